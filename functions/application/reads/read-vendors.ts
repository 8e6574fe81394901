/** Use cases: the vendors Holdback knows (GET /vendors) and the per-day forecast of their settlements (GET /forecast). */
import Decimal from 'decimal.js';
import { DateTime } from 'luxon';
import { GATEWAY_ZONE } from '../../domain/dates';
import { ValidationError, collectIssues, type ValidationIssue } from '../../domain/errors';
import { predictSettlement } from '../../domain/schedule-options';
import { calendarOf, defaultPolicy } from '../../domain/settings';
import type { ReleaseRule, ReleaseState, Settings, VendorRelease } from '../../domain/types';
import { boundedCount, decodeCursor, encodeCursor } from '../cursor';
import { NotFoundError, describeError } from '../errors';
import { requireId } from '../ids';
import type { Dependencies, ReadRelease } from '../ports';
import { inZone } from '../response-times';

export interface VendorSummary {
  vendorId: string;
  /** The policy in force (version 0: none stored, the default applies). */
  policyVersion: number;
  scheduleOption: number;
  release: ReleaseRule;
  /** Whether a vendor hold keeps its releases unsent, and its last hold or unhold (null: never held). */
  held: boolean;
  hold: { held: boolean; actor: string; reason: string; at: string } | null;
  /** Releases not yet settled or cancelled, per currency: how many and how much (decimal text). */
  open: { currency: string; count: number; amount: string }[];
  /** Only with `checkGateway=true`: the gateway's schedule option for the vendor (null: the gateway does not know it). */
  gateway?: { scheduleOption: number | null; policyDisagrees: boolean; error?: string };
}

/** Gateway lookups at a time, so that a page of vendors does not burst the gateway's rate limit. */
const GATEWAY_LOOKUPS_AT_ONCE = 4;

export async function listVendors(
  deps: Dependencies, query: { limit?: string; cursor?: string; checkGateway?: string },
): Promise<{ items: VendorSummary[]; nextCursor: string | null }> {
  const issues: ValidationIssue[] = [];
  const limit = collectIssues(issues, () => boundedCount(query.limit, 'limit', 1, 1000, 100)) ?? 100;
  const after = collectIssues(issues, () => decodeCursor(query.cursor, 'vendors')) ?? null;
  if (query.checkGateway !== undefined && query.checkGateway !== 'true' && query.checkGateway !== 'false') {
    issues.push({ field: 'checkGateway', problem: `is ${JSON.stringify(query.checkGateway)}`, expected: 'true or false' });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  const [settings, page] = await Promise.all([deps.settings.get(), deps.reads.vendors(after, limit)]);
  const items: VendorSummary[] = [];
  for (let i = 0; i < page.vendorIds.length; i += GATEWAY_LOOKUPS_AT_ONCE) {
    items.push(...await Promise.all(page.vendorIds.slice(i, i + GATEWAY_LOOKUPS_AT_ONCE)
      .map((vendorId) => vendorSummary(deps, settings, vendorId, query.checkGateway === 'true'))));
  }
  const last = page.vendorIds[page.vendorIds.length - 1];
  return { items, nextCursor: page.more && last ? encodeCursor('vendors', last) : null };
}

/** Every vendor Holdback knows, a page of ids at a time (in id order). */
export async function* knownVendorPages(deps: Dependencies, pageSize: number): AsyncIterable<string[]> {
  for (let after: string | null = null; ;) {
    const page = await deps.reads.vendors(after, pageSize);
    if (page.vendorIds.length > 0) yield page.vendorIds;
    if (!page.more || page.vendorIds.length === 0) return;
    after = page.vendorIds[page.vendorIds.length - 1];
  }
}

async function vendorSummary(deps: Dependencies, settings: Settings, vendorId: string, checkGateway: boolean): Promise<VendorSummary> {
  const [stored, hold, open] = await Promise.all([deps.policies.current(vendorId), deps.holds.get(vendorId), deps.reads.openTotals(vendorId)]);
  const policy = stored ?? defaultPolicy(vendorId, settings);
  const summary: VendorSummary = {
    vendorId,
    policyVersion: policy.version,
    scheduleOption: policy.scheduleOption,
    release: policy.release,
    held: hold?.held ?? false,
    hold: hold ? { held: hold.held, actor: hold.actor, reason: hold.reason, at: inZone(hold.at, settings.timezone) } : null,
    open,
  };
  if (checkGateway && deps.gatewayOrders.fetchVendor) {
    try {
      const found = await deps.gatewayOrders.fetchVendor(vendorId);
      const scheduleOption = found?.scheduleOption ?? null;
      summary.gateway = { scheduleOption, policyDisagrees: scheduleOption !== null && scheduleOption !== policy.scheduleOption };
    } catch (error) {
      summary.gateway = { scheduleOption: null, policyDisagrees: false, error: describeError(error) };
    }
  }
  return summary;
}

// ---------------------------------------------------------------------------------------------------------------
// Forecast

export interface ForecastDay {
  /** An India-time day, "YYYY-MM-DD". */
  date: string;
  currency: string;
  /** Applied at the gateway, settling that day (at their predicted settlement). */
  firm: { count: number; amount: string };
  /** Not yet sent, settling that day at their predicted settlement if nothing changes (see `projectedEligibility`). */
  projected: { count: number; amount: string };
}

/** The longest forecast asked at once (a year and a day). */
const MAX_FORECAST_DAYS = 366;
/**
 * The furthest a settlement falls after its eligibility: the monthly option settles on the first working day of the
 * next month, after holidays at most about five weeks on. Forecast reads eligibilities from this long before `from`.
 */
const LONGEST_SETTLEMENT_DAYS = 45;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** States whose money the gateway has not been asked to move (or will move at its default date). */
const PROJECTED: readonly ReleaseState[] = ['PLANNED', 'SCHEDULED', 'APPLYING', 'WAITING', 'HELD', 'AT_MAX', 'FAILED'];

/**
 * Where an unsent release would settle if nothing else happens: a planned one at its target; one that waits (for
 * delivery, a dispute, a hold), one at max and a failed one at its max eligibility, the gateway's default.
 */
export function projectedEligibility(release: VendorRelease): string {
  if ((release.state === 'PLANNED' || release.state === 'SCHEDULED' || release.state === 'APPLYING') && release.targetEligibility !== null) {
    return release.targetEligibility;
  }
  return release.maxEligibility;
}

function forecastDate(text: string | undefined, field: string, fallback: DateTime): DateTime {
  if (text === undefined || text === '') return fallback;
  const day = DATE.test(text) ? DateTime.fromISO(text, { zone: GATEWAY_ZONE }) : null;
  if (!day || !day.isValid) {
    throw new ValidationError([{ field, problem: `is ${JSON.stringify(text)}`, expected: 'an India-time date YYYY-MM-DD' }]);
  }
  return day;
}

/**
 * Per India-time day in [from, to] (default: today and the 30 days after), the firm and projected settlements of one
 * vendor or of every vendor Holdback knows. Every day of the range is listed, empty ones with zeros.
 */
export async function forecast(deps: Dependencies, query: { from?: string; to?: string; vendorId?: string }): Promise<{
  from: string; to: string; vendorId: string | null; days: ForecastDay[];
}> {
  const today = deps.clock.now().setZone(GATEWAY_ZONE).startOf('day');
  const from = forecastDate(query.from, 'from', today);
  const to = forecastDate(query.to, 'to', from.plus({ days: 30 }));
  const span = Math.round(to.diff(from, 'days').days) + 1;
  if (span < 1 || span > MAX_FORECAST_DAYS) {
    throw new ValidationError([{ field: 'to', problem: `makes a range of ${span} days`, expected: `a date from \`from\` to ${MAX_FORECAST_DAYS} days after it` }]);
  }
  const vendorId = query.vendorId === undefined ? null : requireId(query.vendorId, 'vendorId');
  const settings = await deps.settings.get();
  const calendar = calendarOf(settings);
  const range = { from: from.minus({ days: LONGEST_SETTLEMENT_DAYS }).toISO()!, to: to.endOf('day').toISO()! };
  const days = new Map<string, { firm: { count: number; amount: Decimal }; projected: { count: number; amount: Decimal } }>();
  const first = from.toISODate()!;
  const last = to.toISODate()!;

  const count = (row: ReadRelease): void => {
    const { release } = row;
    const firm = release.state === 'APPLIED';
    if (!firm && !PROJECTED.includes(release.state)) return;
    const settlement = firm && release.predictedSettlement !== null
      ? DateTime.fromISO(release.predictedSettlement, { setZone: true })
      : predictSettlement(DateTime.fromISO(firm ? release.appliedEligibility! : projectedEligibility(release), { setZone: true }), release.scheduleOption, calendar);
    const date = settlement.setZone(GATEWAY_ZONE).toISODate()!;
    if (date < first || date > last) return;
    const currency = release.currency ?? row.order?.currency ?? 'INR';
    const key = `${date}\u0000${currency}`;
    const day = days.get(key) ?? { firm: { count: 0, amount: new Decimal(0) }, projected: { count: 0, amount: new Decimal(0) } };
    const bucket = firm ? day.firm : day.projected;
    bucket.count += 1;
    bucket.amount = bucket.amount.plus(release.amount);
    days.set(key, day);
  };

  if (vendorId !== null) {
    for await (const row of deps.reads.openReleases(vendorId, range)) count(row);
  } else {
    for await (const page of knownVendorPages(deps, 100)) {
      for (const id of page) for await (const row of deps.reads.openReleases(id, range)) count(row);
    }
  }

  const currencies = [...new Set([...days.keys()].map((key) => key.split('\u0000')[1]))].sort();
  if (currencies.length === 0) currencies.push('INR');
  const listed: ForecastDay[] = [];
  for (let day = from; day <= to; day = day.plus({ days: 1 })) {
    const date = day.toISODate()!;
    for (const currency of currencies) {
      const found = days.get(`${date}\u0000${currency}`);
      listed.push({
        date,
        currency,
        firm: { count: found?.firm.count ?? 0, amount: (found?.firm.amount ?? new Decimal(0)).toFixed(2) },
        projected: { count: found?.projected.count ?? 0, amount: (found?.projected.amount ?? new Decimal(0)).toFixed(2) },
      });
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
