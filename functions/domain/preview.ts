/** Previews of a policy or settings change: each unsent release as it stands and as it would be planned, with day totals. */
import Decimal from './decimal';
import type { BankCalendar } from './calendar';
import { DAY_MS, indiaDayOf, indiaMidnight } from '../../kit/civil-days';
import { INDIA_TIME, formatEpochMs } from './dates';
import { type Instant, wholeSecondAt } from './instant';
import { landingOf, moneyOf, type ProjectedRelease } from './projection';
import { sha256Hex } from './digest';
import { planRelease, type VendorFacts } from './release';
import { calendarOf } from './settings';
import type {
  DecimalText, IsoInstant, OrderRecord, ReleaseState, Settings, VendorHold, VendorPolicy, VendorRelease,
} from './types';
import { nextGatewayMinuteMs } from './release/plan';

/** Where a release aims and when its vendor is then paid; both null while it waits for an event (a delivery). */
export interface PreviewSide {
  targetEligibility: IsoInstant | null;
  predictedSettlement: IsoInstant | null;
}

/** One release of a preview as the API answers it. */
export interface PreviewedRelease {
  orderId: string;
  vendorId: string;
  state: ReleaseState;
  amount: DecimalText;
  /** The amount's currency (null only for a stored release without one, which the day totals report as a defect). */
  currency: string | null;
  current: PreviewSide;
  candidate: PreviewSide;
  /** Whether the candidate differs from the current target or settlement (a dropped release does not move). */
  moves: boolean;
  /** The candidate drops it: its order was cancelled, nothing will be sent, its money lands on no day. */
  dropped: boolean;
  /** Why the gateway would refuse the release as it stands under the candidate (null: it would accept it). */
  refusal: string | null;
}

export interface DayTotals {
  /** India-time day of the predicted settlement, "YYYY-MM-DD". */
  date: string;
  /** The amounts' currency: a day with releases in several currencies has one entry per currency. */
  currency: string;
  current: { count: number; amount: DecimalText };
  candidate: { count: number; amount: DecimalText };
}

/** A side in epoch milliseconds (null: no target yet); text is made only for the releases an answer lists. */
interface Side {
  targetMs: number | null;
  settlesMs: number | null;
}

/** One release previewed, kept in numbers: 100,000 of them are totalled, a thousand are shown. */
export interface ReleasePreview {
  release: VendorRelease;
  current: Side;
  candidate: Side;
  moves: boolean;
  /** The candidate drops it (its order was cancelled): it lands nowhere under the candidate, and is not counted as moved. */
  dropped: boolean;
  /** The candidate window's end, when the current target lies after it (the gateway would refuse it). */
  refusedPastMs: number | null;
}

/** What every release of one preview shares, prepared once. */
export interface PreviewContext {
  /** A policy preview: the candidate policy every release is planned again under (as `applyTo: "open_orders"` does). */
  policy: VendorPolicy | null;
  settings: { current: Settings; candidate: Settings };
  now: Instant;
}

/**
 * The facts a stored release implies without its order's events: unsent releases are not cancelled and no customer
 * won a dispute (those end CANCELLED or AT_MAX with a reason), and HELD by a dispute means a dispute is open. Only the
 * delivery time is not on the release; a candidate rule that needs it (`after_delivery`) takes the facts folded from
 * the events.
 */
export function factsOfUnsentRelease(release: VendorRelease): VendorFacts {
  const disputeOpen = release.state === 'HELD' && release.holdReason !== 'vendor_hold';
  return { deliveredAt: null, disputeOpen, lastResolution: null, cancelledAt: null };
}

/** The order window a release carries, as the planner reads it (only the id and the window are used). */
function orderOf(release: VendorRelease, maxEligibility: Instant): OrderRecord {
  return {
    orderId: release.orderId, transactionTime: release.transactionTime, maxEligibility, deferByDays: 0,
    currency: '', vendors: [], recordedAt: release.updatedAt,
  };
}

/** The policy a release was planned with, as recorded on it. */
function pinnedPolicyOf(release: VendorRelease): VendorPolicy {
  return {
    vendorId: release.vendorId, version: release.policyVersion, scheduleOption: release.scheduleOption, release: release.rule,
    actor: 'system', reason: 'pinned on the release', at: null,
  };
}

/**
 * A side of the preview: the target, and where the money lands by the one projection (landingOf): a target that has
 * passed goes with the next gateway minute, as the release handler sends it; WAITING, HELD and AT_MAX land at the
 * max eligibility's settlement, as the forecast counts them.
 */
function sideOf(release: ProjectedRelease, calendar: BankCalendar, earliestMs: number): Side {
  const landing = landingOf(release, calendar, earliestMs);
  const targetMs = release.state === 'CANCELLED' || release.targetEligibility === null ? null : release.targetEligibility.ms;
  return { targetMs, settlesMs: landing?.settlesMs ?? null };
}

/**
 * Previews every release under one candidate. Each is planned by the domain's planner: under a candidate policy
 * re-pinned (as a replan does), under candidate settings with its own pinned rule and a window that ends at the
 * transaction time + the candidate Defer by Days. A current target past that end is what the gateway would refuse.
 */
export function previewReleases(
  releases: readonly VendorRelease[],
  factsOf: (release: VendorRelease, index: number) => VendorFacts,
  holdOf: (release: VendorRelease) => VendorHold | null,
  context: PreviewContext,
): ReleasePreview[] {
  const { policy, settings, now } = context;
  const calendars = { current: calendarOf(settings.current), candidate: calendarOf(settings.candidate) };
  const earliestMs = nextGatewayMinuteMs(now.ms);
  const sameWindow = settings.candidate.deferByDays === settings.current.deferByDays;
  return releases.map((release, index) => {
    const maxMs = release.transactionTime.ms + settings.candidate.deferByDays * DAY_MS;
    const candidateMax = sameWindow ? release.maxEligibility : wholeSecondAt(maxMs, INDIA_TIME);
    const planned = planRelease({
      order: orderOf(release, candidateMax), vendorId: release.vendorId, amount: release.amount,
      // Without a candidate policy the release keeps its pinned one (the planner reads it from `current`).
      policy: policy ?? pinnedPolicyOf(release), repin: policy !== null,
      settings: settings.candidate, facts: factsOf(release, index), hold: holdOf(release), now, current: release,
    });
    const current = sideOf(release, calendars.current, earliestMs);
    const candidate = sideOf(planned, calendars.candidate, earliestMs);
    // A cancelled order's release is dropped, not moved: nothing will be sent for it, whatever the candidate.
    const dropped = planned.state === 'CANCELLED';
    return {
      release,
      current,
      candidate,
      moves: !dropped && (current.targetMs !== candidate.targetMs || current.settlesMs !== candidate.settlesMs),
      dropped,
      refusedPastMs: current.targetMs !== null && release.state !== 'AT_MAX' && current.targetMs > maxMs ? maxMs : null,
    };
  });
}

/** One previewed release as the API shows it, times in `settings`' zones. */
export function presentPreview(preview: ReleasePreview, settings: { current: Settings; candidate: Settings }): PreviewedRelease {
  const { release, current, candidate, moves, dropped, refusedPastMs } = preview;
  const text = (ms: number | null, zone: string) => (ms === null ? null : formatEpochMs(ms, zone));
  const zones = { current: settings.current.timezone, candidate: settings.candidate.timezone };
  return {
    orderId: release.orderId,
    vendorId: release.vendorId,
    state: release.state,
    amount: release.amount,
    currency: release.currency ?? null,
    current: { targetEligibility: text(current.targetMs, zones.current), predictedSettlement: text(current.settlesMs, zones.current) },
    candidate: { targetEligibility: text(candidate.targetMs, zones.candidate), predictedSettlement: text(candidate.settlesMs, zones.candidate) },
    moves,
    dropped,
    refusal: refusedPastMs === null ? null
      : `target ${text(current.targetMs, zones.candidate)} is after the max eligibility ${text(refusedPastMs, zones.candidate)} of Defer by Days ${settings.candidate.deferByDays}: the gateway would answer "Settlement eligibility cannot be beyond max_eligibity_date"`,
  };
}

/**
 * Count and amount per India-time day of predicted settlement and currency (amounts of two currencies are never
 * added), for both sides; releases that land nowhere (a cancelled order) are left out. A release without its
 * currency is a stored-data defect (moneyOf), never counted as some default currency.
 */
export function totalsPerDay(previews: readonly ReleasePreview[]): DayTotals[] {
  type Totals = { count: number; amount: Decimal };
  const days = new Map<string, { dayNumber: number; currency: string; current: Totals; candidate: Totals }>();
  const add = (settlesMs: number | null, side: 'current' | 'candidate', amount: Decimal, currency: string) => {
    if (settlesMs === null) return;
    const dayNumber = indiaDayOf(settlesMs);
    const key = `${dayNumber}#${currency}`;
    let day = days.get(key);
    if (!day) {
      day = { dayNumber, currency, current: { count: 0, amount: new Decimal(0) }, candidate: { count: 0, amount: new Decimal(0) } };
      days.set(key, day);
    }
    day[side].count += 1;
    day[side].amount = day[side].amount.plus(amount);
  };
  for (const p of previews) {
    const { amount, currency } = moneyOf(p.release);
    add(p.current.settlesMs, 'current', amount, currency);
    add(p.candidate.settlesMs, 'candidate', amount, currency);
  }
  const order = (a: { dayNumber: number; currency: string }, b: { dayNumber: number; currency: string }) =>
    a.dayNumber - b.dayNumber || (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0);
  return [...days.values()].sort(order).map((d) => ({
    date: formatEpochMs(indiaMidnight(d.dayNumber), INDIA_TIME).slice(0, 10),
    currency: d.currency,
    current: { count: d.current.count, amount: d.current.amount.toFixed(2) },
    candidate: { count: d.candidate.count, amount: d.candidate.amount.toFixed(2) },
  }));
}

/**
 * What a preview showed, as one digest that a later PUT can compute again in a few reads whatever the number of
 * releases: the policy and settings versions it started from (and the vendor's hold), the change it previewed, and
 * what marks the set of releases it covered (`releases`: the ends of the vendor's open index, see
 * ReleaseReads.openEnds; empty for settings, whose PUT moves no stored release). Any difference means the preview no
 * longer holds.
 */
export function previewDigest(input: {
  scope: string;
  releases: string;
  versions: Record<string, number | string>;
  change: unknown;
}): string {
  const versions = Object.keys(input.versions).sort().map((k) => `${k}=${input.versions[k]}`).join(',');
  // The change is validated input, built with its keys in a fixed order, so its JSON is stable.
  return sha256Hex(`${input.scope}\n${versions}\n${JSON.stringify(input.change)}\n${input.releases}`);
}
