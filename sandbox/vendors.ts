/** Easy Split: vendors (create, fetch) and the order recon that shows each split vendor's settlement. */
import { requirePgAccess } from './auth';
import { GatewayError, fieldError, jsonReply, objectBody, type SandboxContext, type SandboxRouteModule } from './http';
import { EMAIL_PATTERN, PHONE_PATTERN, findOrder } from './orders';
import { DEFAULT_SCHEDULE_OPTION, SCHEDULE_MESSAGES, isScheduleOption } from './schedule';
import { shownSettlementStatus, splitShares } from './settlement';
import { effectiveOrderStatus, settlementKey, type OrderRecord, type VendorRecord, type VendorStatus } from './state';
import { isoIst } from './time';

const VENDOR_ID_PATTERN = /^[A-Za-z0-9_-]{1,50}$/;
const STATUSES: readonly VendorStatus[] = ['ACTIVE', 'BLOCKED'];

function requiredText(field: string, value: unknown, max: number, shape: RegExp | null, what: string): string {
  if (value === undefined || value === null || value === '') throw fieldError(field, 'missing', `is required. Send ${what}`, value);
  if (typeof value !== 'string' || value.length > max || (shape !== null && !shape.test(value))) {
    throw fieldError(field, 'invalid', `must be ${what}`, value);
  }
  return value;
}

function createVendor(ctx: SandboxContext, body: Record<string, unknown>): VendorRecord {
  const vendorId = requiredText('vendor_id', body.vendor_id, 50, VENDOR_ID_PATTERN, 'up to 50 letters, digits, _ or -');
  const name = requiredText('name', body.name, 100, null, 'the vendor name (up to 100 characters)');
  const email = requiredText('email', body.email, 100, EMAIL_PATTERN, 'an e-mail address like vendor@example.com');
  const phone = requiredText('phone', typeof body.phone === 'number' ? String(body.phone) : body.phone, 15, PHONE_PATTERN, 'a phone number of 8 to 15 digits');
  const status = body.status;
  if (status === undefined || status === null) throw fieldError('status', 'missing', 'is required. Send ACTIVE or BLOCKED', status);
  if (!STATUSES.includes(status as VendorStatus)) throw fieldError('status', 'invalid', 'must be ACTIVE or BLOCKED', status);
  let option = DEFAULT_SCHEDULE_OPTION;
  if (body.schedule_option !== undefined && body.schedule_option !== null) {
    if (!isScheduleOption(body.schedule_option)) {
      throw fieldError('schedule_option', 'invalid', 'must be a settlement schedule id: 1 to 9 or 11 to 16', body.schedule_option);
    }
    option = body.schedule_option;
  }
  if (ctx.state.vendors.has(vendorId)) {
    throw new GatewayError(409, 'vendor_already_exists', `vendor_id: a vendor with this id already exists. Send a new vendor_id. Value received: ${vendorId}`);
  }
  const now = isoIst(ctx.clock.nowMs());
  const vendor: VendorRecord = { vendor_id: vendorId, name, email, phone, status: status as VendorStatus, schedule_option: option, added_on: now, updated_on: now };
  ctx.state.vendors.set(vendorId, vendor);
  return vendor;
}

export function vendorResponse(vendor: VendorRecord): Record<string, unknown> {
  return {
    vendor_id: vendor.vendor_id,
    name: vendor.name,
    email: vendor.email,
    phone: vendor.phone,
    status: vendor.status,
    added_on: vendor.added_on,
    updated_on: vendor.updated_on,
    bank: null,
    upi: null,
    vendor_type: 'ADVANCED',
    schedule_option: {
      settlement_schedule_message: SCHEDULE_MESSAGES[vendor.schedule_option],
      schedule_id: vendor.schedule_option,
      merchant_default: vendor.schedule_option === DEFAULT_SCHEDULE_OPTION,
    },
  };
}

/**
 * Order recon. Times are ISO 8601 with +05:30. Before the order is paid each split vendor is listed with its share
 * and null settlement fields; settlement_status is PENDING, IN_PROGRESS (from 10 minutes before its slot) or SETTLED.
 */
function reconResponse(ctx: SandboxContext, order: OrderRecord): Record<string, unknown> {
  const now = ctx.clock.nowMs();
  const payment = order.payments.map((id) => ctx.state.payments.get(id)).find((p) => p?.payment_status === 'SUCCESS');
  return {
    order_id: order.order_id,
    order_amount: Number(order.order_amount),
    order_currency: order.order_currency,
    order_status: effectiveOrderStatus(order, now),
    payment_time: order.payment_time,
    settlement: {
      entity: 'settlement',
      order_id: order.order_id,
      order_amount: Number(order.order_amount),
      order_currency: order.order_currency,
      cf_payment_id: payment?.cf_payment_id ?? null,
      payment_time: order.payment_time,
    },
    refunds: [],
    vendors: splitShares(order).map((share) => {
      const record = ctx.state.settlements.get(settlementKey(order.order_id, share.vendor_id));
      return {
        vendor_id: share.vendor_id,
        settlement_id: record?.settlement_id ?? null,
        settlement_amount: Number(record?.amount ?? share.amount),
        settlement_eligibility_date: record?.eligibility ?? null,
        settlement_status: record ? shownSettlementStatus(record, now) : null,
        settled_at: record?.settled_at ?? null,
      };
    }),
  };
}

export const registerVendors: SandboxRouteModule = (router, ctx) => {
  router.post('/pg/easy-split/vendors', (req) => {
    requirePgAccess(req, ctx);
    return jsonReply(200, vendorResponse(createVendor(ctx, objectBody(req))));
  });

  router.get('/pg/easy-split/vendors/:vendor_id', (req) => {
    requirePgAccess(req, ctx);
    const vendor = ctx.state.vendors.get(req.params.vendor_id);
    if (!vendor) throw new GatewayError(404, 'vendor_not_found', `vendor_id: no vendor with this id. Value received: ${req.params.vendor_id}`);
    return jsonReply(200, vendorResponse(vendor));
  });

  router.get('/pg/easy-split/orders/:order_id', (req) => {
    requirePgAccess(req, ctx);
    return jsonReply(200, reconResponse(ctx, findOrder(ctx, req.params.order_id)));
  });
};
