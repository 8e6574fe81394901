/** Issue 10.1 and 10.4 in the domain: every bound names its field and range; nesting is measured and cut without recursion. */
import { DateTime } from 'luxon';
import {
  MAX_NESTING_DEPTH, MAX_VENDORS_PER_ORDER, NESTED_TOO_DEEP, instantBoundsIssue, nestingDepth, pruneNesting,
} from '../../functions/domain/errors';
import { gatewaySplitIssues, parseOrderEvent, vendorsOutsideOrderIssues } from '../../functions/domain/order-events';
import { durationBoundsIssues, validatePolicyInput, validateSettings } from '../../functions/domain/settings';
import { issuesOf } from './validation-issues';
import { Instant } from '../../functions/domain/instant';

const NOW = Instant.fromDateTime(DateTime.fromISO('2022-12-02T16:05:00+05:30'));

function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i += 1) value = i % 2 ? [value] : { a: value };
  return value;
}

describe('times', () => {
  const paid = (transactionTime: string) => ({ orderId: 'order_1', transactionTime, vendors: [{ vendorId: 'vendor_a', amount: '1.00' }] });

  it('accept 2000-01-01 and now + 1 day; refuse a second either side, naming the field and the range', () => {
    expect(parseOrderEvent('order.paid', paid('2000-01-01T00:00:00Z'), NOW)).toMatchObject({ transactionTime: '2000-01-01T00:00:00Z' });
    expect(parseOrderEvent('order.paid', paid('2022-12-03T16:05:00+05:30'), NOW)).toMatchObject({ transactionTime: '2022-12-03T16:05:00+05:30' });
    expect(issuesOf(() => parseOrderEvent('order.paid', paid('1999-12-31T23:59:59Z'), NOW))).toEqual([{
      field: 'detail.transactionTime', problem: 'is 1999-12-31T23:59:59.000Z, before 2000',
      expected: 'a time from 2000-01-01T00:00:00Z to one day (P1D) after Holdback\'s clock, now 2022-12-03T10:35:00.000Z: the time the event happened',
    }]);
    expect(issuesOf(() => parseOrderEvent('order.paid', paid('2022-12-03T16:05:01+05:30'), NOW))[0].problem).toBe('is 2022-12-03T16:05:01.000+05:30, more than a day after Holdback\'s clock');
    expect(issuesOf(() => parseOrderEvent('order.dispute_opened', { orderId: 'order_1', openedAt: '2999-01-01T00:00:00Z' }, NOW))[0].field).toBe('detail.openedAt');
  });

  it('without a clock, bound to [2000, 2100)', () => {
    expect(instantBoundsIssue(Instant.fromDateTime(DateTime.fromISO('2099-12-31T23:59:59Z')), 'eligibility', null)).toBeNull();
    expect(instantBoundsIssue(Instant.fromDateTime(DateTime.fromISO('2100-01-01T00:00:00Z')), 'eligibility', null)?.expected).toBe('a time from 2000-01-01T00:00:00Z to before 2100-01-01T00:00:00Z');
  });
});

describe('durations', () => {
  it('releaseLead runs from PT0S to P30D, a policy delay from more than zero to P365D (P1Y and P12M within)', () => {
    expect(validateSettings({ releaseLead: 'P30D' }).releaseLead).toBe('P30D');
    expect(issuesOf(() => validateSettings({ releaseLead: 'P31D' }))).toEqual([{
      field: 'releaseLead', problem: 'is "P31D", longer than 30 days', expected: 'an ISO 8601 duration from PT0S up to P30D, e.g. "PT1H"',
    }]);
    expect(issuesOf(() => validateSettings({ releaseLead: 'P100000Y' }))[0].field).toBe('releaseLead');
    const policy = (delay: string) => ({ scheduleOption: 1, release: { kind: 'after_payment', delay }, actor: 'a', reason: 'r' });
    for (const delay of ['P365D', 'P1Y', 'P12M', 'PT1S']) expect(validatePolicyInput(policy(delay)).release).toEqual({ kind: 'after_payment', delay });
    for (const delay of ['P366D', 'P13M', 'P99999D', 'PT0S']) expect(issuesOf(() => validatePolicyInput(policy(delay)))[0].field).toBe('release.delay');
    expect(durationBoundsIssues('P2Y', 'x', { positive: true, maxDays: 365, example: '"P3D"' })[0].expected).toBe('an ISO 8601 duration longer than zero up to P365D, e.g. "P3D"');
  });
});

describe('amounts and lists', () => {
  const paid = (amount: unknown) => ({ orderId: 'order_1', transactionTime: '2022-12-02T16:00:00+05:30', vendors: [{ vendorId: 'vendor_a', amount }] });

  it('an amount runs up to 9999999999.99 with two decimals', () => {
    expect(parseOrderEvent('order.paid', paid('9999999999.99'), NOW)).toMatchObject({ vendors: [{ amount: '9999999999.99' }] });
    expect(issuesOf(() => parseOrderEvent('order.paid', paid('10000000000.00'), NOW))[0]).toMatchObject({
      field: 'detail.vendors[0].amount', problem: 'is 10000000000, more than the largest amount 9999999999.99',
    });
    expect(issuesOf(() => parseOrderEvent('order.paid', paid('1'.repeat(30)), NOW))[0].problem).toBe('has 30 characters, more digits than any amount');
  });

  it('an order has at most 100 vendors, and vendorIds at most as many', () => {
    const vendors = Array.from({ length: MAX_VENDORS_PER_ORDER + 1 }, (_, i) => ({ vendorId: `vendor_${i}`, amount: '1.00' }));
    expect(issuesOf(() => parseOrderEvent('order.paid', { ...paid('1.00'), vendors }, NOW))[0]).toMatchObject({ field: 'detail.vendors', problem: 'has 101 vendors' });
    const vendorIds = vendors.map((v) => v.vendorId);
    expect(issuesOf(() => parseOrderEvent('order.delivered', { orderId: 'order_1', deliveredAt: '2022-12-02T16:00:00+05:30', vendorIds }, NOW))[0].field).toBe('detail.vendorIds');
  });

  it('vendorIds outside the order are named', () => {
    const event = parseOrderEvent('order.cancelled', { orderId: 'order_1', cancelledAt: '2022-12-02T16:00:00+05:30', vendorIds: ['vendor_a', 'vendor_z'] }, NOW);
    expect(vendorsOutsideOrderIssues(event, ['vendor_a'])).toEqual([{
      field: 'detail.vendorIds', problem: 'names "vendor_z", not a vendor of order order_1', expected: 'only vendors of the order (vendor_a), or no vendorIds for every vendor',
    }]);
    expect(vendorsOutsideOrderIssues(event, ['vendor_a', 'vendor_z'])).toEqual([]);
  });

  it('a gateway split: amounts with two decimals, shares up to order_amount (less: the merchant keeps the rest)', () => {
    const f = 'data.order.order_splits';
    expect(gatewaySplitIssues(f, 100, [{ amount: 60, percentage: undefined }, { amount: '40.00', percentage: undefined }])).toEqual([]);
    expect(gatewaySplitIssues(f, 100, [{ amount: 50, percentage: undefined }])).toEqual([]);
    expect(gatewaySplitIssues(f, 100, [{ amount: undefined, percentage: 33.335 }, { amount: undefined, percentage: 66.665 }])).toEqual([]);
    expect(gatewaySplitIssues(f, 20.01, [{ amount: '10.005', percentage: undefined }])[0]).toMatchObject({ field: `${f}[0].amount`, problem: 'is "10.005", 3 decimals' });
    expect(gatewaySplitIssues(f, 100, [{ amount: 60, percentage: undefined }, { amount: undefined, percentage: 50 }])[0].problem)
      .toBe('split shares add up to 110.00, more than order_amount 100.00');
  });
});

describe('nesting', () => {
  it('is measured without recursion, stopping past the limit', () => {
    expect(nestingDepth(1)).toBe(0);
    expect(nestingDepth({ a: [{}] })).toBe(3);
    expect(nestingDepth(nested(MAX_NESTING_DEPTH))).toBe(MAX_NESTING_DEPTH);
    expect(nestingDepth(nested(200_000))).toBe(MAX_NESTING_DEPTH + 1);
  });

  it('a 2,000-level detail is refused naming detail; a pruned copy keeps it too deep, and clones and serialises', () => {
    const detail = { orderId: 'order_1', deep: nested(2000) };
    expect(issuesOf(() => parseOrderEvent('order.paid', detail, NOW))).toEqual([expect.objectContaining({ field: 'detail', problem: 'nests objects and lists more than 32 levels deep' })]);
    const pruned = pruneNesting({ orderId: 'order_1', deep: nested(200_000) });
    expect(nestingDepth(pruned, 100)).toBe(MAX_NESTING_DEPTH + 1);
    expect(JSON.stringify(structuredClone(pruned))).toContain(NESTED_TOO_DEEP);
    expect(issuesOf(() => parseOrderEvent('order.paid', pruned, NOW))[0].field).toBe('detail');
  });
});
