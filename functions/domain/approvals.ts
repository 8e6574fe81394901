/**
 * Four eyes (contract 6.4): which changes need a second person (the settings' `approvals`), whether one change does,
 * and the life of an approval (pending, then approved, rejected or expired after 24 hours).
 */
import Decimal from './decimal';
import type { Instant } from './instant';
import { isRecord, type ValidationIssue } from './errors';

/**
 * The changes that can need a second person, as keys of the settings' `approvals`:
 * - `manualRelease`: POST /orders/{orderId}/vendors/{vendorId}/release (amount: the release's);
 * - `overrideRelease`: the same with `"override": true` on a HELD release (a dispute or vendor hold released);
 * - `unhold`: POST /vendors/{vendorId}/unhold (amount: the vendor's open releases, per currency);
 * - `policyChange`: PUT /vendors/{vendorId}/policy with `applyTo: "open_orders"` (amount: the vendor's open releases);
 * - `settingsChange`: PUT /settings (it applies to every open release at once; amount: every vendor's open releases).
 */
export const APPROVAL_CHANGES = ['manualRelease', 'overrideRelease', 'unhold', 'policyChange', 'settingsChange'] as const;
export type ApprovalChange = typeof APPROVAL_CHANGES[number];

/** One change's rule: `{}` always needs a second person; `{above: {INR: "50000"}}` only above that amount. */
export interface ApprovalRule {
  /** Per ISO 4217 currency, a decimal text: the change needs approval when its amount in that currency is greater. */
  above?: Record<string, string>;
}

/** The settings' `approvals`: a change not named needs no second person. */
export type ApprovalRules = Partial<Record<ApprovalChange, ApprovalRule>>;

export type ApprovalState = 'pending' | 'approved' | 'rejected' | 'expired';
export const APPROVAL_STATES: readonly ApprovalState[] = ['pending', 'approved', 'rejected', 'expired'];

/** An approval expires this long after it was asked for (contract 6.4). */
export const APPROVAL_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** Money a change moves, in one currency. */
export interface MovedAmount {
  currency: string;
  amount: string;
  /** Releases it covers (absent for one release). */
  count?: number;
  /**
   * True when the change covers more releases than its request reads (a vendor or a settings change too large to
   * total in one request): the amount and count are of the releases read, a lower bound.
   */
  atLeast?: boolean;
}

const CURRENCY = /^[A-Z]{3}$/;
const AMOUNT = /^\d{1,15}(\.\d{1,4})?$/;
const EXAMPLE = '{"manualRelease": {"above": {"INR": "50000"}}, "unhold": {}, "settingsChange": {}}';

function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 60)}...` : text;
}

/** Issues of a settings `approvals` value, each naming its field (`approvals.manualRelease.above.INR`...). */
export function approvalRulesIssues(value: unknown): ValidationIssue[] {
  if (!isRecord(value)) {
    return [{ field: 'approvals', problem: `is ${shown(value)}, not a JSON object`, expected: `an object naming the changes that need a second person, e.g. ${EXAMPLE}, or {} for none` }];
  }
  const issues: ValidationIssue[] = [];
  for (const [change, rule] of Object.entries(value)) {
    const field = `approvals.${change}`;
    if (!(APPROVAL_CHANGES as readonly string[]).includes(change)) {
      issues.push({ field, problem: 'is not a change that can need approval', expected: `only ${APPROVAL_CHANGES.join(', ')}` });
      continue;
    }
    if (!isRecord(rule)) {
      issues.push({ field, problem: `is ${shown(rule)}, not a JSON object`, expected: '{} (always a second person) or {"above": {"INR": "50000"}} (above that amount)' });
      continue;
    }
    for (const key of Object.keys(rule).filter((k) => k !== 'above')) {
      issues.push({ field: `${field}.${key}`, problem: 'is not a known field', expected: 'only above' });
    }
    if (rule.above === undefined) continue;
    if (!isRecord(rule.above) || Object.keys(rule.above).length === 0) {
      issues.push({ field: `${field}.above`, problem: `is ${shown(rule.above)}, not an object of amounts per currency`, expected: 'e.g. {"INR": "50000.00"}, or leave "above" out' });
      continue;
    }
    for (const [currency, amount] of Object.entries(rule.above)) {
      if (!CURRENCY.test(currency)) {
        issues.push({ field: `${field}.above.${currency}`, problem: 'is not an ISO 4217 currency code', expected: 'three capital letters, e.g. "INR"' });
      } else if (typeof amount !== 'string' || !AMOUNT.test(amount)) {
        issues.push({ field: `${field}.above.${currency}`, problem: `is ${shown(amount)}, not a decimal text`, expected: 'a non-negative amount as a string (money is never a float), e.g. "50000.00"' });
      }
    }
  }
  return issues;
}

/**
 * Whether `change` needs a second person under `rules`, given what it moves (null: no amount). A rule without `above` always does. With `above`, a change does when any amount it moves is greater than
 * the threshold of its currency, or is in a currency the rule does not name, or is only a lower bound (`atLeast`:
 * what was not read may pass the threshold): a control fails closed.
 */
export function needsApproval(rules: ApprovalRules | undefined, change: ApprovalChange, moves: readonly MovedAmount[] | null): boolean {
  const rule = rules?.[change];
  if (!rule) return false;
  if (!rule.above || moves === null) return true;
  const above = rule.above;
  return moves.some((m) => {
    const threshold = above[m.currency];
    return threshold === undefined || m.atLeast === true || new Decimal(m.amount).greaterThan(threshold);
  });
}

/** Whether the change is named in the rules at all (so its amount is worth reading). */
export function isControlled(rules: ApprovalRules | undefined, change: ApprovalChange): boolean {
  return Boolean(rules?.[change]);
}

/** The state a reader sees: a pending approval past its expiry is expired, whether or not that was written yet. */
export function approvalStateAt(approval: { state: ApprovalState; expiresAt: Instant }, nowMs: number): ApprovalState {
  return approval.state === 'pending' && approval.expiresAt.ms <= nowMs ? 'expired' : approval.state;
}
