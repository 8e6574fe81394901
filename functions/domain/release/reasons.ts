/** Why a release is in its state: a typed reason (the code behaviour is keyed on) and the words made from it. */
import type { ReasonCode, ReleaseRule, ReleaseState, VendorRelease } from '../types';

/** A reason with the details its words need. */
export type Reason =
  | { code: 'planned'; why: string; target: string; clamp: string; timing: string }
  | { code: 'retrying'; why: string; send: number; at: string }
  | { code: 'waiting_delivery'; why: string }
  | { code: 'vendor_hold'; actor: string; at: string; why: string }
  | { code: 'dispute' }
  | { code: 'at_max_rule'; rule: ReleaseRule; max: string }
  | { code: 'window_closed' }
  | { code: 'customer_won' }
  | { code: 'cancelled'; at: string }
  | { code: 'applied'; eligibility: string; send: number }
  | { code: 'applied_from_recon'; eligibility: string; send: number; why: string }
  | { code: 'gateway_refused'; message: string }
  | { code: 'config_drift'; message: string }
  | { code: 'gave_up'; sends: number; why: string; since: string; budget: string }
  | { code: 'window_closes'; max: string; why: string }
  | { code: 'window_closed_retrying'; max: string; sends: number; last: string | null }
  | { code: 'settled'; at: string; state: ReleaseState; before: string | null }
  | { code: 'settled_cancelled'; at: string; before: string | null }
  /** An early release that would pass the policy's maxExposure (contract 6.4): the words carry the figures. */
  | { code: 'exposure_cap'; message: string };

export function ruleText(rule: ReleaseRule): string {
  return 'delay' in rule ? `rule ${rule.kind} ${rule.delay}` : `rule ${rule.kind}`;
}

const CUSTOMER_WON_TEXT = 'dispute closed customer_won: no early release';
const WINDOW_CLOSED_TEXT = 'window closed';

/** The words of a reason, as the outcome shows them. */
export function reasonText(reason: Reason): string {
  switch (reason.code) {
    case 'planned': return `${reason.why}: target ${reason.target}${reason.clamp}; ${reason.timing}`;
    case 'retrying': return `retrying: ${reason.why}; send ${reason.send} at ${reason.at}`;
    case 'waiting_delivery': return `waiting for the delivery (${reason.why})`;
    case 'vendor_hold': return `vendor hold by ${reason.actor} at ${reason.at}: ${reason.why}`;
    case 'dispute': return 'dispute open';
    case 'at_max_rule': return `${ruleText(reason.rule)}: no update, the gateway settles from max eligibility ${reason.max}`;
    case 'window_closed': return WINDOW_CLOSED_TEXT;
    case 'customer_won': return CUSTOMER_WON_TEXT;
    case 'cancelled': return `order cancelled before the release was sent (cancelled at ${reason.at})`;
    case 'applied': return `applied: eligibility ${reason.eligibility} accepted by the gateway at send ${reason.send}`;
    case 'applied_from_recon':
      return `applied: eligibility ${reason.eligibility} found at the gateway's order recon after send ${reason.send} ${reason.why}; not sent again`;
    case 'gateway_refused': case 'config_drift': case 'exposure_cap': return reason.message;
    case 'gave_up': return `gave up after ${reason.sends} sends: ${reason.why} since ${reason.since} (retry budget ${reason.budget})`;
    case 'window_closes': return `window closes at ${reason.max} before another send: ${reason.why}`;
    case 'window_closed_retrying':
      return `window closed at ${reason.max} while retrying (${reason.sends} sends): ${reason.last ?? 'no answer'}`;
    case 'settled': return `settled by the gateway at ${reason.at} (was ${reason.state}${reason.before ? `: ${reason.before}` : ''})`;
    case 'settled_cancelled':
      return `settled by the gateway at ${reason.at} although the order was cancelled (was CANCELLED${reason.before ? `: ${reason.before}` : ''}): `
        + 'the money moved at the gateway\'s default date; recover it from the vendor or refund it';
  }
}

/** The release's reason fields for a reason: the code and its words. */
export function because(reason: Reason): { reasonCode: ReasonCode; reason: string } {
  return { reasonCode: reason.code, reason: reasonText(reason) };
}

/**
 * The code of a release stored before codes were kept, from its state and words. Only the item mapping calls it (old
 * items at the edge); the machine reads `reasonCode`.
 */
export function reasonCodeOf(release: Pick<VendorRelease, 'state' | 'reason' | 'holdReason' | 'waitReason'>): ReasonCode {
  const text = release.reason ?? '';
  switch (release.state) {
    case 'PLANNED': case 'SCHEDULED': case 'APPLYING': return text.startsWith('retrying') ? 'retrying' : 'planned';
    case 'WAITING': return release.waitReason === 'exposure_cap' ? 'exposure_cap' : 'waiting_delivery';
    case 'HELD': return release.holdReason === 'vendor_hold' || text.startsWith('vendor hold by') ? 'vendor_hold' : 'dispute';
    case 'AT_MAX': return text === WINDOW_CLOSED_TEXT ? 'window_closed' : text === CUSTOMER_WON_TEXT ? 'customer_won' : 'at_max_rule';
    case 'CANCELLED': return 'cancelled';
    case 'APPLIED': return text.includes('found at the gateway\'s order recon') ? 'applied_from_recon' : 'applied';
    case 'FAILED':
      if (text.startsWith('gave up after')) return 'gave_up';
      if (text.startsWith('window closes at')) return 'window_closes';
      return text.startsWith('window closed at') ? 'window_closed_retrying' : 'gateway_refused';
    case 'SETTLED': return text.includes('although the order was cancelled') ? 'settled_cancelled' : 'settled';
  }
}
