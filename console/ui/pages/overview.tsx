/** Overview: what goes out today and tomorrow, what failed or drifted and why, who is held, and the next 30 days of money. */
import { call, everyItem, withQuery } from '../api';
import { StackedDaysChart } from '../chart';
import { CurrencySums } from '../../../kit/money-format';
import { addDays, dayStart, indiaDay, indiaTime, money } from '../format';
import { Loaded, LoadedTable, Section } from '../form';
import { useLoad } from '../load';
import { isDrift, lastAttemptOf, ReleaseTable, holdOf, whyOf, type Release, type VendorSummary } from '../releases';

const FORECAST_DAYS = 30;

/** The India-time day a release's money becomes eligible: applied at the gateway, else its target. */
function eligibilityDayOf(r: Release): string | null {
  const when = r.appliedEligibility ?? r.targetEligibility ?? null;
  return when ? indiaDay(when) : null;
}

function ReleasesSoon({ today }: { today: string }) {
  const tomorrow = addDays(today, 1);
  const state = useLoad(async () => {
    // Applied with an eligibility in the two days (by=applied ranges over the applied eligibility), and those still
    // waiting whose target is in them: scheduled, planned or held (no route ranges over the target, so all of them).
    const [sent, ...waiting] = await Promise.all([
      everyItem<Release>('/outcomes', { from: dayStart(today), to: dayStart(addDays(today, 2)), by: 'applied' }),
      ...['SCHEDULED', 'PLANNED', 'HELD'].map((state) => everyItem<Release>('/outcomes', { state })),
    ]);
    const soon = waiting.flat().filter((r) => {
      const day = eligibilityDayOf(r);
      return day === today || day === tomorrow;
    });
    const seen = new Set<string>();
    return [...sent, ...soon].filter((r) => {
      const key = `${r.orderId}/${r.vendorId}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }, [today]);
  return (
    <Section title="Releases today and tomorrow (by the day the money becomes eligible)" testId="releases-soon">
      <Loaded state={state}>
        {(releases) => (
          <div>
            {[today, tomorrow].map((day) => (
              <ReleaseTable
                key={day}
                caption={`${day === today ? 'Today' : 'Tomorrow'}, ${day} (IST)`}
                testId={`releases-${day === today ? 'today' : 'tomorrow'}`}
                releases={releases.filter((r) => eligibilityDayOf(r) === day)}
              />
            ))}
          </div>
        )}
      </Loaded>
    </Section>
  );
}

function FailuresAndDrift({ today }: { today: string }) {
  const state = useLoad(async () => {
    // Failed sends, and settlements of the last 30 days that came at another time than predicted.
    const [failed, settled] = await Promise.all([
      everyItem<Release>('/outcomes', { state: 'FAILED' }),
      everyItem<Release>('/outcomes', { by: 'settled', from: dayStart(addDays(today, -30)), to: dayStart(addDays(today, 1)) }),
    ]);
    return [...failed, ...settled.filter((r) => r.settlementMismatch)];
  }, [today]);
  return (
    <LoadedTable
      title="Failures and drift alerts"
      sectionTestId="failures"
      state={state}
      caption="Releases the gateway refused, and settlements that did not come when predicted (drift: the gateway's configuration and Holdback's disagree)"
      headers={['Order', 'Vendor', 'Alert', 'Why', 'When (IST)']}
      empty="none — every release went through and settled as predicted."
      rows={(alerts) => alerts.map((r) => {
        const last = lastAttemptOf(r);
        return {
          key: `${r.orderId}/${r.vendorId}`,
          testId: `alert-${r.orderId}-${r.vendorId}`,
          cells: [
            <a href={`#/orders/${encodeURIComponent(r.orderId)}`}>{r.orderId}</a>,
            <a href={`#/vendors/${encodeURIComponent(r.vendorId)}`}>{r.vendorId}</a>,
            r.settlementMismatch
              ? `DRIFT: settled ${Math.abs(r.settlementMismatch.differenceMinutes)} min ${r.settlementMismatch.differenceMinutes < 0 ? 'earlier' : 'later'} than predicted`
              : isDrift(r) ? 'DRIFT: the gateway refused a date inside the window' : 'FAILED',
            whyOf(r),
            r.settlementMismatch
              ? `settled ${indiaTime(r.settlementMismatch.settledAt)}, predicted ${indiaTime(r.settlementMismatch.predicted)}`
              : last ? `last attempt ${indiaTime(last.at)}` : '—',
          ],
        };
      })}
    />
  );
}

/** GET /alerts/held-settling: held money the gateway settles anyway within holdWarning. */
interface HeldSettling {
  holdWarning: string;
  until: string;
  items: Array<{ orderId: string; vendorId: string; amount: string; currency: string; holdReason: string | null; holdSource: string; settlesAnywayAt: string }>;
  totals: Array<{ currency: string; count: number; amount: string }>;
}

/** A hold only stops an early release: at max eligibility the gateway settles whatever Holdback holds (contract 6.4). */
function HeldSettlingAlert({ today }: { today: string }) {
  const state = useLoad(() => call<HeldSettling>('GET', '/alerts/held-settling'), [today]);
  return (
    <LoadedTable
      title="Held money the gateway settles anyway soon"
      sectionTestId="held-settling"
      state={state}
      caption="ALERT: held releases whose max eligibility comes within holdWarning; the gateway settles them then, whatever Holdback holds"
      headers={['Order', 'Vendor', 'Amount', 'Held by (source)', 'Settles anyway (IST)']}
      empty="none — no held money settles within holdWarning."
      rows={(alert) => alert.items.map((i) => ({
        key: `${i.orderId}/${i.vendorId}`,
        testId: `held-settling-${i.orderId}-${i.vendorId}`,
        cells: [
          <a href={`#/orders/${encodeURIComponent(i.orderId)}`}>{i.orderId}</a>,
          <a href={`#/vendors/${encodeURIComponent(i.vendorId)}`}>{i.vendorId}</a>,
          money(i.amount, i.currency),
          `${i.holdReason === 'dispute' ? 'an open dispute' : 'a vendor hold'} (${i.holdSource})`,
          indiaTime(i.settlesAnywayAt),
        ],
      }))}
    />
  );
}

function HeldVendors() {
  const state = useLoad(async () => {
    const vendors = await everyItem<VendorSummary>('/vendors');
    return vendors.filter((v) => holdOf(v));
  }, []);
  return (
    <LoadedTable
      title="Held vendors"
      sectionTestId="held-vendors"
      state={state}
      caption="Vendors on hold: nothing of theirs is sent until unhold"
      headers={['Vendor', 'Reason', 'By', 'Since']}
      empty="no vendor is held."
      rows={(held) => held.map((v) => {
        const hold = holdOf(v)!;
        return { key: v.vendorId, cells: [<a href={`#/vendors/${encodeURIComponent(v.vendorId)}`}>{v.vendorId}</a>, hold.reason, hold.actor ?? '—', indiaTime(hold.at)] };
      })}
    />
  );
}

/** A day of `GET /forecast`: one per India-time day and currency, every day of the range listed. */
interface ForecastDay {
  date: string;
  currency: string;
  firm: { count: number; amount: string };
  projected: { count: number; amount: string };
}

function ForecastChart({ today }: { today: string }) {
  const state = useLoad(async () => {
    const body = await call<{ days: ForecastDay[] }>('GET', withQuery('/forecast', { from: today, to: addDays(today, FORECAST_DAYS - 1) }));
    // Amounts of different currencies are never added up: one chart per currency.
    const byCurrency = new Map<string, ForecastDay[]>();
    for (const day of body.days) byCurrency.set(day.currency, [...(byCurrency.get(day.currency) ?? []), day]);
    return [...byCurrency];
  }, [today]);
  return (
    <Section title="Expected settlements, next 30 days" testId="forecast">
      <Loaded state={state}>
        {(perCurrency) => (
          <div>
            {perCurrency.length === 0 ? <p data-testid="forecast-empty">Nothing is expected to settle in the next {FORECAST_DAYS} days.</p> : null}
            {perCurrency.map(([currency, days], i) => (
              <StackedDaysChart
                key={currency}
                title={`Expected settlements in ${currency} per India-time day from ${today}: firm (applied at the gateway) and projected (planned, not yet sent)`}
                days={days.map((d) => d.date)}
                firm={{ label: 'firm', amounts: days.map((d) => d.firm.amount), counts: days.map((d) => d.firm.count), color: '#12355b' }}
                projected={{ label: 'projected', amounts: days.map((d) => d.projected.amount), counts: days.map((d) => d.projected.count), color: '#8ab4e8' }}
                currency={currency}
                testId={i === 0 ? 'forecast-chart' : `forecast-chart-${currency}`}
              />
            ))}
          </div>
        )}
      </Loaded>
    </Section>
  );
}

/** Sums per currency (kit/money-format: in hundredths, never across currencies). */
function perCurrency(entries: Array<{ currency?: string | null; amount?: string | null; count?: number }>): CurrencySums {
  const sums = new CurrencySums();
  for (const e of entries) if (e.currency && e.amount) sums.add(e.currency, e.amount, e.count ?? 1);
  return sums;
}

function sumsText(sums: CurrencySums): string {
  return sums.text((money, count) => `${money} (${count})`, ' · ', 'nothing');
}

/** The headline figures, per currency: settling today and in the next 7 days (firm and projected), held, failed. */
function Headline({ today }: { today: string }) {
  const state = useLoad(async () => {
    const [forecast, held, failed, vendors] = await Promise.all([
      call<{ days: ForecastDay[] }>('GET', withQuery('/forecast', { from: today, to: addDays(today, 6) })),
      everyItem<Release>('/outcomes', { state: 'HELD' }),
      everyItem<Release>('/outcomes', { state: 'FAILED' }),
      everyItem<VendorSummary>('/vendors'),
    ]);
    const landing = (days: ForecastDay[]) => days.flatMap((d) => [{ currency: d.currency, ...d.firm }, { currency: d.currency, ...d.projected }].filter((x) => x.count > 0));
    return {
      today: perCurrency(landing(forecast.days.filter((d) => d.date === today))),
      week: perCurrency(landing(forecast.days)),
      held: perCurrency(held),
      failed: perCurrency(failed),
      exposure: perCurrency(vendors.flatMap((v) => (v.exposure ?? []).filter((e) => e.count > 0))),
    };
  }, [today]);
  return (
    <Section title="Headline figures (per currency, never added across currencies)" testId="headline">
      <Loaded state={state}>
        {(h) => (
          <dl class="facts">
            <dt>Settling today ({today}, IST)</dt><dd data-testid="headline-today">{sumsText(h.today)}</dd>
            <dt>Settling in the next 7 days</dt><dd data-testid="headline-week">{sumsText(h.week)}</dd>
            <dt>Held (a dispute or a vendor hold)</dt><dd data-testid="headline-held">{sumsText(h.held)}</dd>
            <dt>Failed</dt><dd data-testid="headline-failed">{sumsText(h.failed)}</dd>
            <dt>Exposure: released early, still refundable (count: releases)</dt><dd data-testid="headline-exposure">{sumsText(h.exposure)}</dd>
          </dl>
        )}
      </Loaded>
    </Section>
  );
}

export function OverviewPage({ now }: { now: string | null }) {
  if (!now) return <p aria-busy="true">Reading Holdback's clock…</p>;
  const today = indiaDay(now);
  return (
    <>
      <h1>Overview</h1>
      <Headline today={today} />
      <ReleasesSoon today={today} />
      <FailuresAndDrift today={today} />
      <HeldSettlingAlert today={today} />
      <HeldVendors />
      <ForecastChart today={today} />
    </>
  );
}
