/** A release as the API shows it (orders, outcomes, manual releases, exports): every time in the settings' timezone, every state with its reason. */
import type { BankCalendar } from '../domain/calendar';
import { formatEpochMs } from '../domain/dates';
import { landingOf } from '../domain/projection';
import { calendarOf } from '../domain/settings';
import { DEFAULT_HOLD_SOURCE, sourceOf } from '../domain/hold-sources';
import type {
  Clamp, DecimalText, HoldReason, HoldSource, WaitReason, ManualRelease, ReleaseRule, ReleaseState, SettledFrom, Settings, VendorRelease,
} from '../domain/types';
import { nextGatewayMinuteMs } from '../domain/release/plan';
import type { Dependencies } from './ports';
import { inZone, type Shown } from './response-times';

/** One vendor's release: the contract's fields, then why it is in its state and what it was before it settled. */
export interface VendorView {
  vendorId: string;
  state: ReleaseState;
  policyVersion: number;
  targetEligibility: string | null;
  appliedEligibility: string | null;
  predictedSettlement: string | null;
  /** `confirmedFromRecon`: the answer never came (or said nothing) and the gateway's order recon held the date sent. */
  attempts: { at: string; request: string; status: string; subCode: string | null; message: string; confirmedFromRecon?: { at: string; eligibility: string } }[];
  /** Decimal text in the order's currency. */
  amount: DecimalText;
  rule: ReleaseRule;
  scheduleOption: number;
  /** Why it is in its state (waiting, held, cancelled, clamped, retrying, failed, at max...). */
  reason: string | null;
  /** HELD by an open dispute or a vendor hold; null otherwise. */
  holdReason: HoldReason | null;
  clamp: Clamp | null;
  /** When the rule wants the PUT sent (target minus releaseLead). */
  plannedSendAt: string | null;
  /** The pending send or retry; while APPLYING, the deadline after which the sweep sends again. */
  sendAt: string | null;
  /** Eligibility PUTs sent so far (each may hold several attempts; the last ones are listed in `attempts`). */
  sends: number;
  manual: Shown<ManualRelease, 'at' | 'requestedAt'> | null;
  settledAt: string | null;
  settledFrom: Shown<SettledFrom, 'appliedEligibility' | 'predictedSettlement'> | null;
  /**
   * Where the money lands by the one projection the forecast and previews use (domain/projection.ts): the predicted
   * settlement once applied, else where it settles if nothing changes (a held or waiting release at its max
   * eligibility's settlement); null when cancelled or settled. `settlementProjected` says it is not yet firm.
   */
  projectedSettlement: string | null;
  settlementProjected: boolean;
  /** WAITING under the policy's maxExposure (`exposure_cap`, figures in `reason`); null otherwise. */
  waitReason: WaitReason | null;
  /** HELD: who holds it (`dispute` for an open dispute, else the vendor hold's source); null otherwise. */
  holdSource: HoldSource | null;
  /**
   * HELD or WAITING: when the gateway settles it anyway (the settlement after its max eligibility), whatever Holdback
   * holds (contract 6.4); null otherwise.
   */
  settlesAnywayAt: string | null;
}

/** What the projection of a release view needs: the calendar in force and the earliest minute the gateway accepts. */
export interface ProjectionContext {
  calendar: BankCalendar;
  earliestMs: number;
}

/** The projection context of `settings` at `now`. */
export function projectionContext(settings: Settings, nowMs: number): ProjectionContext {
  return { calendar: calendarOf(settings), earliestMs: nextGatewayMinuteMs(nowMs) };
}

export interface ReleaseView extends VendorView {
  orderId: string;
}

/** One release as the API shows it, times in `zone`. */
export function releaseViewOf(r: VendorRelease, zone: string, projection: ProjectionContext, vendorHoldSource?: HoldSource): VendorView {
  const landing = landingOf(r, projection.calendar, projection.earliestMs);
  const unsent = r.state === 'HELD' || r.state === 'WAITING';
  return {
    vendorId: r.vendorId,
    state: r.state,
    policyVersion: r.policyVersion,
    targetEligibility: inZone(r.targetEligibility, zone),
    appliedEligibility: inZone(r.appliedEligibility, zone),
    predictedSettlement: inZone(r.predictedSettlement, zone),
    attempts: r.attempts.map((a) => ({
      at: inZone(a.at, zone), request: a.request, status: a.status, subCode: a.subCode, message: a.message,
      ...(a.confirmedFromRecon ? { confirmedFromRecon: { at: inZone(a.confirmedFromRecon.at, zone), eligibility: inZone(a.confirmedFromRecon.eligibility, zone) } } : {}),
    })),
    amount: r.amount,
    rule: r.rule,
    scheduleOption: r.scheduleOption,
    reason: r.reason,
    holdReason: r.holdReason ?? null,
    clamp: r.clamp,
    plannedSendAt: inZone(r.plannedSendAt ?? null, zone),
    sendAt: inZone(r.sendAt, zone),
    sends: r.sends ?? 0,
    manual: r.manual ? { ...r.manual, at: inZone(r.manual.at, zone), requestedAt: inZone(r.manual.requestedAt, zone) } : null,
    settledAt: inZone(r.settledAt, zone),
    settledFrom: r.settledFrom
      ? { ...r.settledFrom, appliedEligibility: inZone(r.settledFrom.appliedEligibility, zone), predictedSettlement: inZone(r.settledFrom.predictedSettlement, zone) }
      : null,
    projectedSettlement: landing === null ? null : formatEpochMs(landing.settlesMs, zone),
    settlementProjected: landing !== null && !landing.firm,
    waitReason: r.state === 'WAITING' ? r.waitReason ?? null : null,
    holdSource: r.state !== 'HELD' ? null : r.holdReason === 'dispute' ? 'dispute' : vendorHoldSource ?? DEFAULT_HOLD_SOURCE,
    settlesAnywayAt: unsent && landing !== null ? formatEpochMs(landing.settlesMs, zone) : null,
  };
}

/** The source of each vendor hold that keeps one of these releases HELD (one read per such vendor). */
export async function vendorHoldSources(deps: Pick<Dependencies, 'holds'>, releases: readonly VendorRelease[]): Promise<Map<string, HoldSource>> {
  const vendorIds = [...new Set(releases.filter((r) => r.state === 'HELD' && r.holdReason === 'vendor_hold').map((r) => r.vendorId))];
  const holds = await Promise.all(vendorIds.map((id) => deps.holds.get(id)));
  return new Map(vendorIds.map((id, i) => [id, sourceOf(holds[i])]));
}
