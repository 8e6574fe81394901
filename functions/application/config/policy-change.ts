/** The body of PUT /vendors/{vendorId}/policy and of its preview: the policy, plus how and when the change applies. */
import { ValidationError, collectIssues, isRecord, type ValidationIssue } from '../../domain/errors';
import { validatePolicyInput } from '../../domain/settings';
import type { ReleaseRule } from '../../domain/types';

export type ApplyTo = 'new_orders' | 'open_orders';

export interface PolicyChange {
  policy: { scheduleOption: number; release: ReleaseRule; actor: string; reason: string; maxExposure?: Record<string, string> };
  /** The version the change is based on; a stale one is a 409. */
  expectedVersion: number | null;
  /** `new_orders` (default): open orders keep their pinned version; `open_orders`: they are planned again. */
  applyTo: ApplyTo;
  /** A preview whose showing must still hold; null: none required. */
  previewId: string | null;
}

/** Keys of the body that say how the change applies, not what the policy is. */
export const CHANGE_OPTIONS = ['expectedVersion', 'applyTo', 'previewId'] as const;
const PREVIEW_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** The issues of each member that says how the change applies (none: fine or absent); its body's reader uses them too. */
export const CHANGE_OPTION_ISSUES: Record<(typeof CHANGE_OPTIONS)[number], (value: unknown) => ValidationIssue[]> = {
  expectedVersion: (value) => (value === undefined || (Number.isInteger(value) && (value as number) >= 0) ? []
    : [{ field: 'expectedVersion', problem: `is ${JSON.stringify(value)}, not a whole number`, expected: 'the version you read (GET /vendors/{vendorId}/policy), or leave it out' }]),
  applyTo: (value) => (value === undefined || value === 'new_orders' || value === 'open_orders' ? []
    : [{ field: 'applyTo', problem: `is ${JSON.stringify(value)}`, expected: '"new_orders" (open orders keep their version) or "open_orders" (plan them again), or leave it out' }]),
  previewId: (value) => (value === undefined || (typeof value === 'string' && PREVIEW_ID.test(value)) ? []
    : [{ field: 'previewId', problem: `is ${JSON.stringify(value)}, not a preview id`, expected: 'the previewId a preview answered, or leave it out' }]),
};

/** Validates the whole body, naming every bad field at once. */
export function policyChangeOf(body: unknown): PolicyChange {
  const record = isRecord(body) ? body : null;
  const policyPart = record ? Object.fromEntries(Object.entries(record).filter(([k]) => !(CHANGE_OPTIONS as readonly string[]).includes(k))) : body;
  const issues: ValidationIssue[] = [];
  const policy = collectIssues(issues, () => validatePolicyInput(policyPart));
  const { expectedVersion, applyTo, previewId } = record ?? {};
  for (const option of CHANGE_OPTIONS) issues.push(...CHANGE_OPTION_ISSUES[option](record?.[option]));
  if (issues.length > 0 || !policy) throw new ValidationError(issues);
  return {
    policy,
    expectedVersion: expectedVersion === undefined ? null : expectedVersion as number,
    applyTo: (applyTo as ApplyTo | undefined) ?? 'new_orders',
    previewId: (previewId as string | undefined) ?? null,
  };
}
