/** Four-eyes rules (contract 6.4): which change needs a second person, above which amount per currency; an approval's state as read. */
import { approvalRulesIssues, approvalStateAt, needsApproval } from '../../functions/domain/approvals';
import { at } from '../times';

describe('needsApproval', () => {
  test('a change the rules do not name never needs a second person; one named with {} always does', () => {
    expect(needsApproval({}, 'unhold', [{ currency: 'INR', amount: '99999999' }])).toBe(false);
    expect(needsApproval(undefined, 'manualRelease', null)).toBe(false);
    expect(needsApproval({ unhold: {} }, 'unhold', [])).toBe(true);
    expect(needsApproval({ settingsChange: {} }, 'settingsChange', null)).toBe(true);
  });

  test('above: only an amount greater than its currency\'s threshold, compared as decimals', () => {
    const rules = { manualRelease: { above: { INR: '50000.00', USD: '600' } } };
    expect(needsApproval(rules, 'manualRelease', [{ currency: 'INR', amount: '50000' }])).toBe(false);
    expect(needsApproval(rules, 'manualRelease', [{ currency: 'INR', amount: '50000.01' }])).toBe(true);
    expect(needsApproval(rules, 'manualRelease', [{ currency: 'USD', amount: '599.99' }, { currency: 'INR', amount: '10' }])).toBe(false);
    expect(needsApproval(rules, 'manualRelease', [{ currency: 'USD', amount: '599.99' }, { currency: 'INR', amount: '50000.10' }])).toBe(true);
    // A currency the rule does not name: the control fails closed.
    expect(needsApproval(rules, 'manualRelease', [{ currency: 'EUR', amount: '1' }])).toBe(true);
    // Nothing moved: nothing above any threshold.
    expect(needsApproval({ unhold: { above: { INR: '1' } } }, 'unhold', [])).toBe(false);
  });
});

test('rules are validated field by field', () => {
  expect(approvalRulesIssues({ manualRelease: { above: { INR: '1.5' } }, unhold: {} })).toEqual([]);
  expect(approvalRulesIssues([]).map((i) => i.field)).toEqual(['approvals']);
  expect(approvalRulesIssues({ unhold: { above: {} }, policyChange: { when: 'always' } }).map((i) => i.field)).toEqual(['approvals.unhold.above', 'approvals.policyChange.when']);
  expect(approvalRulesIssues({ manualRelease: { above: { INR: '-1', inr: '1', EUR: 1.5 } } }).map((i) => i.field)).toEqual([
    'approvals.manualRelease.above.INR', 'approvals.manualRelease.above.inr', 'approvals.manualRelease.above.EUR',
  ]);
});

test('a pending approval reads expired from its expiry on; a decided one keeps its state', () => {
  const pending = { state: 'pending' as const, expiresAt: at('2022-12-03T16:05:00+05:30') };
  const expiry = Date.parse('2022-12-03T16:05:00+05:30');
  expect(approvalStateAt(pending, expiry - 1)).toBe('pending');
  expect(approvalStateAt(pending, expiry)).toBe('expired');
  expect(approvalStateAt({ ...pending, state: 'approved' }, expiry + 1)).toBe('approved');
});
