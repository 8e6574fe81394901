/** Specification of order event validation, keys and times (contract section 2). */
import { issuesOf } from './validation-issues';
import { eventKey, eventTime, isValidId, parseOrderEvent } from '../../functions/domain/order-events';


const paid = { orderId: 'order_1001', transactionTime: '2022-12-02T16:00:00+05:30', vendors: [{ vendorId: 'vendor_a', amount: 1250.5 }, { vendorId: 'vendor_b', amount: '300' }] };

describe('parseOrderEvent', () => {
  it('normalises order.paid: amounts as two-decimal text, currency INR by default', () => {
    expect(parseOrderEvent('order.paid', paid)).toEqual({
      type: 'order.paid', orderId: 'order_1001', transactionTime: '2022-12-02T16:00:00+05:30', currency: 'INR',
      vendors: [{ vendorId: 'vendor_a', amount: '1250.50' }, { vendorId: 'vendor_b', amount: '300.00' }],
    });
  });

  it('reads the other four event types', () => {
    expect(parseOrderEvent('order.delivered', { orderId: 'order_1001', deliveredAt: '2022-12-04T10:00:00Z' }))
      .toEqual({ type: 'order.delivered', orderId: 'order_1001', deliveredAt: '2022-12-04T10:00:00Z' });
    expect(parseOrderEvent('order.dispute_opened', { orderId: 'order_1001', openedAt: '2022-12-04T10:00:00+05:30', vendorIds: ['vendor_a'] }))
      .toEqual({ type: 'order.dispute_opened', orderId: 'order_1001', openedAt: '2022-12-04T10:00:00+05:30', vendorIds: ['vendor_a'] });
    expect(parseOrderEvent('order.dispute_closed', { orderId: 'order_1001', closedAt: '2022-12-05T10:00:00+05:30', resolution: 'merchant_won' }))
      .toMatchObject({ resolution: 'merchant_won' });
    expect(parseOrderEvent('order.cancelled', { orderId: 'order_1001', cancelledAt: '2022-12-05T10:00:00+05:30' }).type).toBe('order.cancelled');
  });

  it('names every bad field of a malformed event, with what to send', () => {
    const issues = issuesOf(() => parseOrderEvent('order.paid', {
      orderId: 'o#1', transactionTime: '2022-12-02 16:00', currency: 'rupees',
      vendors: [{ vendorId: 'vendor_a', amount: '10' }, { vendorId: 'vendor_b', amount: '1250.505' }, { vendorId: 'vendor_a', amount: -3 }],
    }));
    expect(issues.map((i) => i.field)).toEqual([
      'detail.orderId', 'detail.transactionTime', 'detail.vendors[1].amount', 'detail.vendors[2].amount', 'detail.vendors[2].vendorId', 'detail.currency',
    ]);
    expect(issues[2]).toEqual({ field: 'detail.vendors[1].amount', problem: 'has 3 decimals', expected: 'a positive amount with at most two decimals, e.g. 1250.50' });
    expect(issues[3].problem).toBe('is -3, not a plain decimal amount');
    expect(issues[4].problem).toBe('repeats "vendor_a"');
  });

  it('refuses an unknown detail-type, a missing resolution, empty or repeated vendorIds', () => {
    expect(issuesOf(() => parseOrderEvent('order.shipped', {}))[0]).toMatchObject({ field: 'detail-type', problem: 'is "order.shipped", not an order event' });
    expect(issuesOf(() => parseOrderEvent('order.dispute_closed', { orderId: 'order_1001', closedAt: '2022-12-05T10:00:00Z' }))[0])
      .toMatchObject({ field: 'detail.resolution', problem: 'is missing' });
    expect(issuesOf(() => parseOrderEvent('order.delivered', { orderId: 'order_1001', deliveredAt: '2022-12-05T10:00:00Z', vendorIds: [] }))[0].field).toBe('detail.vendorIds');
    expect(issuesOf(() => parseOrderEvent('order.delivered', { orderId: 'order_1001', deliveredAt: '2022-12-05T10:00:00Z', vendorIds: ['v_1', 'v_1'] }))[0].field).toBe('detail.vendorIds[1]');
    expect(issuesOf(() => parseOrderEvent('order.paid', { ...paid, vendors: [] }))[0].field).toBe('detail.vendors');
    expect(issuesOf(() => parseOrderEvent('order.paid', { ...paid, vendors: [{ vendorId: 'vendor_a', amount: 0 }] }))[0].problem).toBe('is 0, not positive');
  });

  it('ids follow the gateway rule: 3 to 45 of [A-Za-z0-9_-]', () => {
    expect(isValidId('ab')).toBe(false);
    expect(isValidId('a'.repeat(45))).toBe(true);
    expect(isValidId('a'.repeat(46))).toBe(false);
    expect(isValidId('order/1')).toBe(false);
  });
});

describe('eventKey and eventTime', () => {
  it('the same event sent three times has one key; a different event another', () => {
    const keys = [1, 2, 3].map(() => eventKey(parseOrderEvent('order.paid', JSON.parse(JSON.stringify(paid)))));
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^order\.paid#[0-9a-f]{32}$/);
    expect(eventKey(parseOrderEvent('order.paid', { ...paid, orderId: 'order_1002' }))).not.toBe(keys[0]);
  });

  it('the same instant written with another offset, or vendorIds in another order, is the same event', () => {
    const a = parseOrderEvent('order.delivered', { orderId: 'order_1001', deliveredAt: '2022-12-04T15:30:00+05:30', vendorIds: ['v_a', 'v_b'] });
    const b = parseOrderEvent('order.delivered', { orderId: 'order_1001', deliveredAt: '2022-12-04T10:00:00Z', vendorIds: ['v_b', 'v_a'] });
    expect(eventKey(a)).toBe(eventKey(b));
  });

  it('eventTime is the event\'s own time', () => {
    expect(eventTime(parseOrderEvent('order.paid', paid))).toEqual('2022-12-02T16:00:00+05:30');
    expect(eventTime(parseOrderEvent('order.dispute_opened', { orderId: 'order_1001', openedAt: '2022-12-04T10:00:00Z' }))).toEqual('2022-12-04T10:00:00Z');
  });
});
