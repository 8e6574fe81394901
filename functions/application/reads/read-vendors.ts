/** Use cases: the vendors Holdback knows (GET /vendors) and the per-day forecast of their settlements (GET /forecast). */
import { DateTime } from 'luxon';
import { EARLIEST_DAY, LAST_DAY, ValidationError, dayBoundsProblem } from '../../domain/errors';
import { GATEWAY_ZONE, INDIA_TIME, formatEpochMs } from '../../domain/dates';
import { Instant } from '../../domain/instant';
import { CurrencyTotals, landingOf, moneyOf } from '../../domain/projection';
import { nextGatewayMinuteMs } from '../../domain/release/plan';
import { calendarOf, defaultPolicy } from '../../domain/settings';
import type { HoldSource, ReleaseRule, Settings, VendorPolicy } from '../../domain/types';
import { capOf, exposureAt, exposureForecast, type ExposureDay, type ExposureEntry } from '../../domain/exposure';
import { sourceOf } from '../../domain/hold-sources';
import { encodeCursor } from '../cursor';
import { NotFoundError, describeError } from '../errors';
import { requireId } from '../ids';
import type { Dependencies, ReadRelease } from '../ports';
import { inZone } from '../response-times';
import { knownVendorPages } from '../known-vendors';

export { knownVendorPages };

export interface VendorSummary {
  vendorId: string;
  /** The policy in force (version 0: none stored, the default applies). */
  policyVersion: number;
  scheduleOption: number;
  release: ReleaseRule;
  /** Whether a vendor hold keeps its releases unsent, and its last hold or unhold (null: never held). */
  held: boolean;
  hold: { held: boolean; source: HoldSource; actor: string; reason: string; at: string } | null;
  /**
   * Early-release exposure per currency (contract 6.4): money released before max eligibility whose order can still
   * be refunded or disputed, the policy's cap on it, and how it falls day by day as risk windows close.
   */
  exposure: VendorExposure[];
  /** Releases not yet settled or cancelled, per currency: how many and how much (decimal text). */
  open: { currency: string; count: number; amount: string }[];
  /** Only with `checkGateway=true`: the gateway's schedule option for the vendor (null: the gateway does not know it). */
  gateway?: GatewayComparison;
}

/** One currency of a vendor's exposure as GET /vendors shows it. */
export interface VendorExposure {
  currency: string;
  /** Exposure now: decimal text in `currency`. */
  amount: string;
  /** Early releases whose risk window is still open. */
  count: number;
  /** The policy's maxExposure in this currency (null: no cap). */
  maxExposure: string | null;
  /** How much the exposure is above the cap (a cap lowered below today's exposure stops every new early release); null when within it. */
  exceededBy: string | null;
  /** When the next risk window closes (null: none open). */
  nextCloseAt: string | null;
  /** Per day (settings zone) until the last risk window closes: the exposure left at the end of the day, and what closes that day. */
  forecast: ExposureDay[];
}

/** The exposure of each currency the vendor has open entries in or a cap for, from the open entries alone. */
export function exposureOf(entries: readonly ExposureEntry[], policy: Pick<VendorPolicy, 'maxExposure'>, nowMs: number, zone: string): VendorExposure[] {
  const currencies = [...new Set([...entries.map((e) => e.currency), ...Object.keys(policy.maxExposure ?? {})])].sort();
  return currencies.map((currency) => {
    const mine = entries.filter((e) => e.currency === currency);
    const amount = exposureAt(mine, nowMs);
    const cap = capOf(policy, currency);
    const next = mine.map((e) => e.closesAt).sort((a, b) => a.ms - b.ms)[0] ?? null;
    return {
      currency,
      amount: amount.toFixed(2),
      count: mine.length,
      maxExposure: cap === null ? null : cap.toFixed(2),
      exceededBy: cap !== null && amount.gt(cap) ? amount.minus(cap).toFixed(2) : null,
      nextCloseAt: next === null ? null : inZone(next, zone),
      forecast: exposureForecast(mine, nowMs, zone),
    };
  });
}

/**
 * What the gateway's vendor API says against the policy in force: `agrees`, `disagrees` (another schedule option),
 * `vendor_not_found` (the gateway does not know the vendor: a warning, never "agrees"), or `error` (no answer).
 */
export interface GatewayComparison {
  answer: 'agrees' | 'disagrees' | 'vendor_not_found' | 'error';
  scheduleOption: number | null;
  policyDisagrees: boolean;
  /** The comparison in words, for people (the console and the CLI show it as it is). */
  message: string;
  error?: string;
}

/** Gateway lookups at a time, so that a page of vendors does not burst the gateway's rate limit. */
const GATEWAY_LOOKUPS_AT_ONCE = 4;

export const VENDOR_LIMIT = { min: 1, max: 1000, default: 100 } as const;
/** The list its cursors belong to (the route's cursor parameter reads them). */
export const VENDOR_CURSOR_LIST = 'vendors';

/** A page of vendors; the query as the route's schema read it (`after`: the decoded cursor). */
export async function listVendors(
  deps: Dependencies, query: { limit?: number; after?: string | null; checkGateway?: boolean },
): Promise<{ items: VendorSummary[]; nextCursor: string | null }> {
  const { limit = VENDOR_LIMIT.default, after = null, checkGateway = false } = query;
  const [settings, page] = await Promise.all([deps.settings.get(), deps.reads.vendors(after, limit)]);
  const items: VendorSummary[] = [];
  for (let i = 0; i < page.vendorIds.length; i += GATEWAY_LOOKUPS_AT_ONCE) {
    items.push(...await Promise.all(page.vendorIds.slice(i, i + GATEWAY_LOOKUPS_AT_ONCE)
      .map((vendorId) => vendorSummary(deps, settings, vendorId, checkGateway))));
  }
  const last = page.vendorIds[page.vendorIds.length - 1];
  return { items, nextCursor: page.more && last ? encodeCursor(VENDOR_CURSOR_LIST, last) : null };
}

async function vendorSummary(deps: Dependencies, settings: Settings, vendorId: string, checkGateway: boolean): Promise<VendorSummary> {
  const [stored, hold, open, entries] = await Promise.all([
    deps.policies.current(vendorId), deps.holds.get(vendorId), deps.reads.openTotals(vendorId), deps.exposure.open(vendorId, deps.clock.now().in(INDIA_TIME).wholeSecond()),
  ]);
  const policy = stored ?? defaultPolicy(vendorId, settings);
  const summary: VendorSummary = {
    vendorId,
    policyVersion: policy.version,
    scheduleOption: policy.scheduleOption,
    release: policy.release,
    held: hold?.held ?? false,
    hold: hold ? { held: hold.held, source: sourceOf(hold), actor: hold.actor, reason: hold.reason, at: inZone(hold.at, settings.timezone) } : null,
    open,
    exposure: exposureOf(entries, policy, deps.clock.now().ms, settings.timezone),
  };
  if (checkGateway && deps.gatewayOrders.fetchVendor) {
    try {
      const found = await deps.gatewayOrders.fetchVendor(vendorId);
      summary.gateway = compareWithGateway(vendorId, policy.scheduleOption, found?.scheduleOption ?? null, found !== null);
    } catch (error) {
      summary.gateway = {
        answer: 'error', scheduleOption: null, policyDisagrees: false, error: describeError(error),
        message: `the gateway did not answer for vendor ${vendorId}: ${describeError(error)}`,
      };
    }
  }
  return summary;
}

/** The gateway's vendor (found, with its schedule option or none) against the policy's schedule option. */
export function compareWithGateway(vendorId: string, policyOption: number, gatewayOption: number | null, found: boolean): GatewayComparison {
  if (!found) {
    return { answer: 'vendor_not_found', scheduleOption: null, policyDisagrees: false, message: `unknown at the gateway: no vendor ${vendorId} in its vendor API; create it there before its orders are split` };
  }
  if (gatewayOption !== null && gatewayOption !== policyOption) {
    return { answer: 'disagrees', scheduleOption: gatewayOption, policyDisagrees: true, message: `the gateway settles vendor ${vendorId} by schedule option ${gatewayOption}, the policy says ${policyOption}` };
  }
  return { answer: 'agrees', scheduleOption: gatewayOption, policyDisagrees: false, message: `the gateway agrees: schedule option ${policyOption}` };
}

// ---------------------------------------------------------------------------------------------------------------
// Forecast

export interface ForecastDay {
  /** An India-time day, "YYYY-MM-DD". */
  date: string;
  currency: string;
  /** Applied at the gateway, settling that day (at their predicted settlement). */
  firm: { count: number; amount: string };
  /** Not yet sent, settling that day if nothing changes (the one projection: domain/projection.ts landingOf). */
  projected: { count: number; amount: string };
}

/** The longest forecast asked at once (a year and a day). */
const MAX_FORECAST_DAYS = 366;
/**
 * The furthest a settlement falls after its eligibility: the monthly option settles on the first working day of the
 * next month, after holidays at most about five weeks on. Forecast reads eligibilities from this long before `from`.
 */
export const LONGEST_SETTLEMENT_DAYS = 45;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const FORECAST_DAY_EXPECTED = `an India-time date YYYY-MM-DD from ${EARLIEST_DAY} to ${LAST_DAY}, e.g. "2022-12-01"`;

/** A forecast day (India time), within [2000-01-01, 2100-01-01) as every date Holdback reads; absent: `fallback`. */
function forecastDate(text: string | undefined, field: string, fallback: DateTime): DateTime {
  if (text === undefined || text === '') return fallback;
  const day = DATE.test(text) ? DateTime.fromISO(text, { zone: GATEWAY_ZONE }) : null;
  if (!day || !day.isValid) {
    throw new ValidationError([{ field, problem: `is ${JSON.stringify(text.slice(0, 60))}, not a date`, expected: FORECAST_DAY_EXPECTED }]);
  }
  const outside = dayBoundsProblem(text);
  if (outside) throw new ValidationError([{ field, problem: `is ${JSON.stringify(text)}, ${outside}`, expected: FORECAST_DAY_EXPECTED }]);
  return day;
}

/**
 * Per India-time day in [from, to] (default: today and the 30 days after), the firm and projected settlements of one
 * vendor or of every vendor Holdback knows. Every day of the range is listed, empty ones with zeros.
 */
export async function forecast(deps: Dependencies, query: { from?: string; to?: string; vendorId?: string }): Promise<{
  from: string; to: string; vendorId: string | null; days: ForecastDay[];
}> {
  const today = DateTime.fromMillis(deps.clock.now().ms, { zone: GATEWAY_ZONE }).startOf('day');
  const from = forecastDate(query.from, 'from', today);
  const to = forecastDate(query.to, 'to', from.plus({ days: 30 }));
  const span = Math.round(to.diff(from, 'days').days) + 1;
  if (span < 1) {
    throw new ValidationError([{ field: 'to', problem: `is ${to.toISODate()}, before from (${from.toISODate()}): the range is reversed`, expected: `a date from \`from\` to ${MAX_FORECAST_DAYS - 1} days after it (swap them)` }]);
  }
  if (span > MAX_FORECAST_DAYS) {
    throw new ValidationError([{ field: 'to', problem: `is ${to.toISODate()}, which makes a range of ${span} days from ${from.toISODate()}`, expected: `a date from \`from\` to ${MAX_FORECAST_DAYS - 1} days after it (at most ${MAX_FORECAST_DAYS} days in all)` }]);
  }
  const vendorId = query.vendorId === undefined ? null : requireId(query.vendorId, 'vendorId');
  const settings = await deps.settings.get();
  const calendar = calendarOf(settings);
  const earliestMs = nextGatewayMinuteMs(deps.clock.now().ms);
  const range = { from: Instant.fromDateTime(from.minus({ days: LONGEST_SETTLEMENT_DAYS })), to: Instant.fromDateTime(to.endOf('day')) };
  const totals = new CurrencyTotals<string>();
  const first = from.toISODate()!;
  const last = to.toISODate()!;

  // Where the money lands by the one projection (landingOf), the same previews and the order view use.
  const count = (row: ReadRelease): void => {
    const landing = landingOf(row.release, calendar, earliestMs);
    if (landing === null) return;
    const date = formatEpochMs(landing.settlesMs, INDIA_TIME).slice(0, 10);
    if (date < first || date > last) return;
    const { amount, currency } = moneyOf(row.release, row.order?.currency);
    totals.add(`${landing.firm ? 'firm' : 'projected'}#${date}`, currency, amount);
  };

  if (vendorId !== null) {
    for await (const row of deps.reads.openReleases(vendorId, range)) count(row);
  } else {
    for await (const page of knownVendorPages(deps, 100)) {
      for (const id of page) for await (const row of deps.reads.openReleases(id, range)) count(row);
    }
  }

  // Every day of the range for every currency that has money in it; no money at all: no currency to list days in.
  const listed: ForecastDay[] = [];
  for (let day = from; day <= to; day = day.plus({ days: 1 })) {
    const date = day.toISODate()!;
    for (const currency of totals.currencies()) {
      listed.push({ date, currency, firm: totals.get(`firm#${date}`, currency), projected: totals.get(`projected#${date}`, currency) });
    }
  }
  return { from: first, to: last, vendorId, days: listed };
}

/** GET /vendors/{vendorId}/forecast: the forecast of one vendor; 404 for a vendor Holdback has never seen. */
export async function vendorForecast(deps: Dependencies, vendorId: string, query: { from?: string; to?: string }): ReturnType<typeof forecast> {
  requireId(vendorId, 'vendorId');
  const [policy, totals] = await Promise.all([deps.policies.current(vendorId), deps.reads.openTotals(vendorId)]);
  if (policy === null && totals.length === 0 && !(await deps.reads.knowsVendor(vendorId))) {
    throw new NotFoundError(`vendor ${vendorId} is unknown: no order or policy names it`);
  }
  return forecast(deps, { ...query, vendorId });
}
