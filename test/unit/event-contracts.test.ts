/** Event contracts: the JSON Schemas of every event Holdback consumes and emits, agreeing with the validation, and never broken against their published version. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { DateTime } from 'luxon';
import { breakingChanges } from '../../functions/contracts/compatibility';
import { parseOrderEvent } from '../../functions/domain/order-events';
import { ORDER_DETAIL_TYPES } from '../../functions/definitions/routing';
import { Instant } from '../../functions/domain/instant';

const DIR = path.join(__dirname, '../../functions/contracts');
const load = (folder: string, name: string) => JSON.parse(fs.readFileSync(path.join(DIR, folder, `${name}.schema.json`), 'utf8')) as Record<string, unknown>;
const EMITTED = ['vendor.release_applied', 'vendor.release_failed', 'config.drift_detected'];
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
const validators = Object.fromEntries([...ORDER_DETAIL_TYPES, ...EMITTED].map((n) => [n, ajv.compile(load('events', n))]));
const NOW = Instant.fromDateTime(DateTime.fromISO('2022-12-02T16:00:00+05:30', { setZone: true }));

/** The gateway interface's own example: order_1001 paid 2022-12-02 16:00 IST, split between two vendors. */
const VALID: [string, Record<string, unknown>][] = [
  ['order.paid', { orderId: 'order_1001', transactionTime: '2022-12-02T16:00:00+05:30', vendors: [{ vendorId: 'vendor_a', amount: 600 }, { vendorId: 'vendor_b', amount: '400.50' }] }],
  ['order.paid', { orderId: 'order_1002', transactionTime: '2022-12-02T10:30:00Z', vendors: [{ vendorId: 'vendor_a', amount: '0.01' }], currency: 'INR' }],
  ['order.delivered', { orderId: 'order_1001', deliveredAt: '2022-12-02T15:00:00+05:30' }],
  ['order.dispute_opened', { orderId: 'order_1001', openedAt: '2022-12-02T15:10:00+05:30', vendorIds: ['vendor_a'] }],
  ['order.dispute_closed', { orderId: 'order_1001', closedAt: '2022-12-02T15:20:00+05:30', resolution: 'merchant_won' }],
  ['order.cancelled', { orderId: 'order_1001', cancelledAt: '2022-12-02T15:30:00+05:30', vendorIds: ['vendor_a', 'vendor_b'] }],
];

/** Each breaks one rule both the schema and the validation state. */
const INVALID: [string, Record<string, unknown>, string][] = [
  ['order.paid', { orderId: 'o!', transactionTime: '2022-12-02T16:00:00+05:30', vendors: [{ vendorId: 'vendor_a', amount: 600 }] }, 'orderId'],
  ['order.paid', { orderId: 'order_1001', transactionTime: '2022-12-02T16:00:00', vendors: [{ vendorId: 'vendor_a', amount: 600 }] }, 'transactionTime'],
  ['order.paid', { orderId: 'order_1001', transactionTime: '2022-12-02T16:00:00+05:30', vendors: [] }, 'vendors'],
  ['order.paid', { orderId: 'order_1001', transactionTime: '2022-12-02T16:00:00+05:30', vendors: [{ vendorId: 'vendor_a', amount: '10.005' }] }, 'amount'],
  ['order.paid', { orderId: 'order_1001', transactionTime: '2022-12-02T16:00:00+05:30', vendors: [{ vendorId: 'vendor_a', amount: -5 }] }, 'amount'],
  ['order.paid', { orderId: 'order_1001', transactionTime: '2022-12-02T16:00:00+05:30', vendors: [{ vendorId: 'vendor_a', amount: '123456789012345678901234567890' }] }, 'amount'],
  ['order.paid', { orderId: 'order_1001', transactionTime: '2022-12-02T16:00:00+05:30', vendors: [{ vendorId: 'vendor_a', amount: 1 }], currency: 'rupees' }, 'currency'],
  ['order.delivered', { orderId: 'order_1001' }, 'deliveredAt'],
  ['order.dispute_opened', { orderId: 'order_1001', openedAt: '2022-12-02T15:10:00+05:30', vendorIds: [] }, 'vendorIds'],
  ['order.dispute_opened', { orderId: 'order_1001', openedAt: '2022-12-02T15:10:00+05:30', vendorIds: ['vendor_a', 'vendor_a'] }, 'vendorIds'],
  ['order.dispute_closed', { orderId: 'order_1001', closedAt: '2022-12-02T15:20:00+05:30', resolution: 'vendor_won' }, 'resolution'],
  ['order.cancelled', { cancelledAt: '2022-12-02T15:30:00+05:30' }, 'orderId'],
];

describe('the schemas agree with the validation', () => {
  it.each(VALID)('%s %j: accepted by both', (type, detail) => {
    expect(validators[type](detail)).toBe(true);
    expect(() => parseOrderEvent(type, detail, NOW)).not.toThrow();
  });

  it.each(INVALID)('%s %j: refused by both, naming %s', (type, detail, field) => {
    expect(validators[type](detail)).toBe(false);
    expect(() => parseOrderEvent(type, detail, NOW)).toThrow(new RegExp(field));
  });

  it('every detail type the rule routes has a schema, and each emitted event one too', () => {
    const files = fs.readdirSync(path.join(DIR, 'events')).map((f) => f.replace('.schema.json', '')).sort();
    expect(files).toEqual([...ORDER_DETAIL_TYPES, ...EMITTED].sort());
  });
});

describe('published versions stay readable', () => {
  it.each([...ORDER_DETAIL_TYPES.map((n) => [n, 'consumed'] as const), ...EMITTED.map((n) => [n, 'emitted'] as const)])(
    '%s (%s): the current schema does not break v1', (name, direction) => {
      expect(breakingChanges(load('published/v1', name), load('events', name), direction)).toEqual([]);
    },
  );

  it('the checker catches what would break a marketplace: a new required field, a narrowed pattern, a dropped enum value', () => {
    const published = load('published/v1', 'order.dispute_closed');
    const required = { ...published, required: [...(published.required as string[]), 'reason'] };
    expect(breakingChanges(published, required, 'consumed')).toEqual(['detail.reason: now required']);
    const narrowed = JSON.parse(JSON.stringify(published));
    narrowed.properties.orderId.pattern = '^[a-z]{3,45}$';
    narrowed.properties.resolution.enum = ['merchant_won'];
    expect(breakingChanges(published, narrowed, 'consumed')).toEqual([
      'detail.orderId: pattern changed from "^[A-Za-z0-9_-]{3,45}$" to "^[a-z]{3,45}$"',
      'detail.resolution: enum ["merchant_won","customer_won"] is not within ["merchant_won"]',
    ]);
  });

  it('and what would break a subscriber: a field no longer always emitted, a changed type', () => {
    const published = load('published/v1', 'vendor.release_failed');
    const dropped = { ...published, required: ['orderId', 'vendorId', 'reason'] };
    expect(breakingChanges(published, dropped, 'emitted')).toEqual(['detail.retryable: no longer always present']);
    const retyped = JSON.parse(JSON.stringify(published));
    retyped.properties.retryable = { type: 'string' };
    expect(breakingChanges(published, retyped, 'emitted')).toEqual(['detail.retryable: type "string" is not within "boolean"']);
  });
});
