/**
 * The gateway reported a vendor's settlement: SETTLED, keeping what the release was; and the settlement checked
 * against its prediction (the mismatch kept on the release, with `config.drift_detected` saying what likely disagrees).
 */
import { GATEWAY_ZONE, Instant } from '../instant';
import { predictSettlement } from '../schedule-options';
import { calendarOf } from '../settings';
import type { Settings, SettlementMismatch, VendorRelease } from '../types';
import { because, moved, stamp, type Effect, type Reason, type Transition } from './states';
import { confirmHeld, reconHolds } from './recon';

const MINUTE_MS = 60_000;

/** The order recon read when a settlement comes for a release with a send of unknown outcome, and the settings. */
export interface SettleRecon {
  gatewayEligibility: Instant | null;
  at: Instant;
  settings: Settings;
}

/**
 * Why a release is SETTLED, keeping why it was what it was: a cancelled order that the gateway settled anyway says so
 * (the money moved at the gateway's default date although nothing was released), as does one never moved.
 */
function settledReason(current: VendorRelease, at: Instant): Reason {
  const text = at.toText();
  // What an applied release was is in its fields already; any other state's reason says why nothing moved it.
  const before = current.reason && current.state !== 'APPLIED' ? current.reason : null;
  if (current.state === 'CANCELLED') return { code: 'settled_cancelled', at: text, before };
  return { code: 'settled', at: text, state: current.state, before };
}

/**
 * The gateway reported the vendor's settlement: SETTLED, keeping what the release was before. No audit effect: the
 * received webhook's own audit record says what it settled. A release with a send of unknown outcome (APPLYING after
 * its sender was lost, or retrying after a timeout) whose date the order recon holds was applied: it settles from
 * APPLIED, with its eligibility, its attempt confirmed from the recon and `vendor.release_applied`.
 */
export function settle(current: VendorRelease, settledAt: Instant, now: Instant, recon?: SettleRecon): Transition {
  if (current.state === 'SETTLED') return { kind: 'unchanged', release: current };
  const effects: Effect[] = [];
  let before = current;
  const lost = current.state === 'APPLYING' ? current.sending ?? null : null;
  const held = recon && current.state !== 'APPLIED' ? reconHolds(current, recon.gatewayEligibility) : null;
  if (recon && held !== null && recon.gatewayEligibility !== null) {
    const confirmed = confirmHeld(current, held, { gatewayEligibility: recon.gatewayEligibility, at: recon.at }, lost, recon.settings, now,
      'had no clear answer before the gateway settled it');
    before = confirmed.release;
    effects.push(...confirmed.effects);
  }
  const settledStamp = stamp(settledAt);
  const release: VendorRelease = {
    ...before,
    state: 'SETTLED',
    settledAt: settledStamp,
    settledFrom: { state: before.state, appliedEligibility: before.appliedEligibility, predictedSettlement: before.predictedSettlement },
    sendAt: null,
    releaseKey: null,
    sending: null,
    ...because(settledReason(before, settledStamp)),
    version: current.version + 1,
    updatedAt: stamp(now),
  };
  // The gateway settled before Holdback's send: the send has nothing left to move.
  if (current.state === 'SCHEDULED' && current.releaseKey) effects.push({ kind: 'cancel_schedule', releaseKey: current.releaseKey });
  return moved(current, 'settle', release, current.version, effects);
}

// ---------------------------------------------------------------------------------------------------------------
// The settlement against its prediction

/**
 * When the gateway settles a release, by Holdback's own reckoning: the predicted slot after the applied eligibility,
 * or, for a release Holdback never moved, the slot after its max eligibility (the gateway's default).
 */
export function predictedSettlementOf(release: VendorRelease, settings: Settings, scheduleOption = release.scheduleOption): Instant {
  const before = release.settledFrom ?? release;
  if (before.appliedEligibility !== null) {
    if (before.predictedSettlement !== null && scheduleOption === release.scheduleOption) return before.predictedSettlement;
    return predictSettlement(before.appliedEligibility, scheduleOption, calendarOf(settings));
  }
  return predictSettlement(release.maxEligibility, scheduleOption, calendarOf(settings));
}

/** Whole minutes from `predicted` to `settled` (negative: the gateway settled earlier). */
export function minutesBetween(predicted: Instant, settled: Instant): number {
  return Math.round((settled.ms - predicted.ms) / MINUTE_MS);
}

/** Whether a settle write settled at another minute than predicted (then the gateway's schedule option is worth asking). */
export function settledOffPrediction(transition: Transition, settings: Settings): boolean {
  if (transition.kind !== 'write' || transition.release.settledAt === null) return false;
  return minutesBetween(predictedSettlementOf(transition.release, settings), transition.release.settledAt) !== 0;
}

function inGatewayZone(at: Instant): string {
  return at.in(GATEWAY_ZONE).toISO();
}

/**
 * The settle transition with its check: a settlement at another minute than predicted keeps a `settlementMismatch`
 * on the release (so outcomes list it), and emits `config.drift_detected` saying what likely disagrees; the gateway's
 * own schedule option for the vendor (`gatewayOption`, null when unknown) is named when the policy disagrees with it.
 */
export function checkSettlement(transition: Transition, settings: Settings, gatewayOption: number | null): Transition {
  if (transition.kind !== 'write' || transition.release.settledAt === null) return transition;
  const release = transition.release;
  const predicted = predictedSettlementOf(release, settings);
  const settled = release.settledAt!;
  const difference = minutesBetween(predicted, settled);
  if (difference === 0) return { ...transition, release: { ...release, settlementMismatch: null } };

  const causes: string[] = [];
  if (gatewayOption !== null && gatewayOption !== release.scheduleOption) {
    const byGateway = predictedSettlementOf(release, settings, gatewayOption);
    causes.push(`the gateway settles vendor ${release.vendorId} by schedule option ${gatewayOption}, Holdback's policy says ${release.scheduleOption}`
      + (minutesBetween(byGateway, settled) === 0 ? ' (the gateway\'s option explains the settlement): update the policy' : ''));
  }
  const applied = (release.settledFrom ?? release).appliedEligibility !== null;
  if (!applied && difference < 0) {
    causes.push(`never moved, it settled before its max eligibility ${inGatewayZone(release.maxEligibility)}: the dashboard's Defer by Days is likely shorter than settings.deferByDays (${settings.deferByDays})`);
  } else if (!applied && difference > 0) {
    causes.push(`never moved, it settled after its max eligibility's slot: the dashboard's Defer by Days is likely longer than settings.deferByDays (${settings.deferByDays})`);
  }
  if (causes.length === 0) causes.push('check settings.holidays and settings.settlementDays against the gateway\'s calendar');
  const mismatch: SettlementMismatch = {
    predicted: predicted.in(GATEWAY_ZONE).wholeSecond(),
    settledAt: release.settledAt!,
    differenceMinutes: difference,
    message: `settled at ${release.settledAt}, ${Math.abs(difference)} minutes ${difference < 0 ? 'before' : 'after'} the predicted ${predicted.in(GATEWAY_ZONE).toISO()}: ${causes.join('; ')}`,
  };
  return {
    ...transition,
    release: { ...release, settlementMismatch: mismatch },
    effects: [
      ...transition.effects,
      { kind: 'publish', event: { type: 'config.drift_detected', detail: { orderId: release.orderId, vendorId: release.vendorId, message: mismatch.message } } },
    ],
  };
}
