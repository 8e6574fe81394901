/** Overview: what goes out today and tomorrow, what failed or drifted and why, who is held, and the next 30 days of money. */
import { call, listOf, withQuery } from '../api';
import { StackedDaysChart } from '../chart';
import { addDays, dayStart, indiaDay, indiaTime } from '../format';
import { Loaded, Section, Table } from '../form';
import { useLoad } from '../load';
import { isDrift, ReleaseTable, holdOf, whyOf, type Release, type VendorSummary } from '../releases';

const FORECAST_DAYS = 30;

/** The India-time day a release's money becomes eligible: applied at the gateway, else its target. */
function eligibilityDayOf(r: Release): string | null {
  const when = r.appliedEligibility ?? r.targetEligibility ?? null;
  return when ? indiaDay(when) : null;
}

function ReleasesSoon({ today }: { today: string }) {
  const tomorrow = addDays(today, 1);
  const state = useLoad(async () => {
    const window = { from: dayStart(today), to: dayStart(addDays(today, 2)), limit: '1000' };
    // Applied with an eligibility in the two days (by=applied ranges over the applied eligibility), and those still
    // waiting whose target is in them: scheduled, planned or held.
    const [sent, ...waiting] = await Promise.all([
      call('GET', withQuery('/outcomes', { ...window, by: 'applied' })),
      ...['SCHEDULED', 'PLANNED', 'HELD'].map((s) => call('GET', withQuery('/outcomes', { state: s, limit: '1000' }))),
    ]);
    const soon = waiting.flatMap((body) => listOf<Release>(body)).filter((r) => {
      const day = eligibilityDayOf(r);
      return day === today || day === tomorrow;
    });
    const seen = new Set<string>();
    return [...listOf<Release>(sent), ...soon].filter((r) => {
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
      call('GET', withQuery('/outcomes', { state: 'FAILED', limit: '1000' })),
      call('GET', withQuery('/outcomes', { by: 'settled', from: dayStart(addDays(today, -30)), to: dayStart(addDays(today, 1)), limit: '1000' })),
    ]);
    return [...listOf<Release>(failed), ...listOf<Release>(settled).filter((r) => r.settlementMismatch)];
  }, [today]);
  return (
    <Section title="Failures and drift alerts" testId="failures">
      <Loaded state={state}>
        {(alerts) => (
          <Table
            caption="Releases the gateway refused, and settlements that did not come when predicted (drift: the gateway's configuration and Holdback's disagree)"
            headers={['Order', 'Vendor', 'Alert', 'Why', 'When (IST)']}
            empty="none — every release went through and settled as predicted."
            rows={alerts.map((r) => ({
              key: `${r.orderId}/${r.vendorId}`,
              testId: `alert-${r.orderId}-${r.vendorId}`,
              cells: [
                <a href={`#/orders/${encodeURIComponent(r.orderId)}`}>{r.orderId}</a>,
                <a href={`#/vendors/${encodeURIComponent(r.vendorId)}`}>{r.vendorId}</a>,
                r.settlementMismatch
                  ? `DRIFT: settled ${Math.abs(r.settlementMismatch.differenceMinutes)} min ${r.settlementMismatch.differenceMinutes < 0 ? 'earlier' : 'later'} than predicted`
                  : isDrift(r) ? 'DRIFT: the gateway refused a date inside the window' : 'FAILED',
                r.settlementMismatch ? r.settlementMismatch.message : whyOf(r),
                r.settlementMismatch
                  ? `settled ${indiaTime(r.settlementMismatch.settledAt)}, predicted ${indiaTime(r.settlementMismatch.predicted)}`
                  : Array.isArray(r.attempts) && r.attempts.length ? `last attempt ${indiaTime(r.attempts[r.attempts.length - 1].at)}` : '—',
              ],
            }))}
          />
        )}
      </Loaded>
    </Section>
  );
}

function HeldVendors() {
  const state = useLoad(async () => {
    // Every page of vendors: a held vendor must not hide on page two.
    const held: VendorSummary[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const answer = await call<{ items: VendorSummary[]; nextCursor: string | null }>('GET', withQuery('/vendors', { limit: '1000', cursor }));
      held.push(...listOf<VendorSummary>(answer).filter((v) => holdOf(v)));
      if (!answer.nextCursor) break;
      cursor = answer.nextCursor;
    }
    return held;
  }, []);
  return (
    <Section title="Held vendors" testId="held-vendors">
      <Loaded state={state}>
        {(held) => (
          <Table
            caption="Vendors on hold: nothing of theirs is sent until unhold"
            headers={['Vendor', 'Reason', 'By', 'Since']}
            empty="no vendor is held."
            rows={held.map((v) => {
              const hold = holdOf(v)!;
              return { key: v.vendorId, cells: [<a href={`#/vendors/${encodeURIComponent(v.vendorId)}`}>{v.vendorId}</a>, hold.reason, hold.actor ?? '—', indiaTime(hold.at)] };
            })}
          />
        )}
      </Loaded>
    </Section>
  );
}

interface ForecastDay {
  date: string;
  firm: { count: number; amount: string };
  projected: { count: number; amount: string };
}

export function ForecastChart({ today, vendorId }: { today: string; vendorId?: string }) {
  const state = useLoad(async () => {
    const params = { from: today, to: addDays(today, FORECAST_DAYS - 1), ...(vendorId ? { vendorId } : {}) };
    const body = await call('GET', withQuery('/forecast', params));
    const byDate = new Map(listOf<ForecastDay>(body, 'days', 'forecast').map((d) => [d.date, d]));
    return Array.from({ length: FORECAST_DAYS }, (_, i) => {
      const date = addDays(today, i);
      return byDate.get(date) ?? { date, firm: { count: 0, amount: '0' }, projected: { count: 0, amount: '0' } };
    });
  }, [today, vendorId]);
  return (
    <Section title="Expected settlements, next 30 days" testId="forecast">
      <Loaded state={state}>
        {(days) => (
          <StackedDaysChart
            title={`Expected settlements per India-time day from ${today}${vendorId ? ` for ${vendorId}` : ''}: firm (applied at the gateway) and projected (planned, not yet sent)`}
            days={days.map((d) => d.date)}
            firm={{ label: 'firm', amounts: days.map((d) => d.firm.amount), counts: days.map((d) => d.firm.count), color: '#12355b' }}
            projected={{ label: 'projected', amounts: days.map((d) => d.projected.amount), counts: days.map((d) => d.projected.count), color: '#8ab4e8' }}
            testId="forecast-chart"
          />
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
      <ReleasesSoon today={today} />
      <FailuresAndDrift today={today} />
      <HeldVendors />
      <ForecastChart today={today} />
    </>
  );
}
