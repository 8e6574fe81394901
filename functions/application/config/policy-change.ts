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
const CHANGE_OPTIONS = ['expectedVersion', 'applyTo', 'previewId'];
const PREVIEW_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** Validates the whole body, naming every bad field at once. */
export function policyChangeOf(body: unknown): PolicyChange {
  const record = isRecord(body) ? body : null;
  const policyPart = record ? Object.fromEntries(Object.entries(record).filter(([k]) => !CHANGE_OPTIONS.includes(k))) : body;
  const issues: ValidationIssue[] = [];
  const policy = collectIssues(issues, () => validatePolicyInput(policyPart));
  const { expectedVersion, applyTo, previewId } = record ?? {};
  if (expectedVersion !== undefined && !(Number.isInteger(expectedVersion) && (expectedVersion as number) >= 0)) {
    issues.push({ field: 'expectedVersion', problem: `is ${JSON.stringify(expectedVersion)}, not a whole number`, expected: 'the version you read (GET /vendors/{vendorId}/policy), or leave it out' });
  }
  if (applyTo !== undefined && applyTo !== 'new_orders' && applyTo !== 'open_orders') {
    issues.push({ field: 'applyTo', problem: `is ${JSON.stringify(applyTo)}`, expected: '"new_orders" (open orders keep their version) or "open_orders" (plan them again), or leave it out' });
  }
  if (previewId !== undefined && !(typeof previewId === 'string' && PREVIEW_ID.test(previewId))) {
    issues.push({ field: 'previewId', problem: `is ${JSON.stringify(previewId)}, not a preview id`, expected: 'the previewId a preview answered, or leave it out' });
  }
  if (issues.length > 0 || !policy) throw new ValidationError(issues);
  return {
    policy,
    expectedVersion: expectedVersion === undefined ? null : expectedVersion as number,
    applyTo: (applyTo as ApplyTo | undefined) ?? 'new_orders',
    previewId: (previewId as string | undefined) ?? null,
  };
}
