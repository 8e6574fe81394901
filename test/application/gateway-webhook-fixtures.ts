/** The gateway's side of the webhook tests (over HTTP and behind the function URL): its paid split order and how it signs. */
import { webhookSignature } from '../../functions/application/releases/handle-gateway-webhook';
import { TEST_WEBHOOK_SECRET } from '../fakes/dependencies';
import { ORDER } from './scenario';

/** PAYMENT_SUCCESS_WEBHOOK as the gateway sends it (sandbox/settlement.ts paymentWebhookData): no order_splits. */
export const PAYMENT_SUCCESS = {
  type: 'PAYMENT_SUCCESS_WEBHOOK',
  event_time: '2022-12-02T16:00:05+05:30',
  data: {
    order: { order_id: ORDER, order_amount: 1000.05, order_currency: 'INR', order_tags: null },
    payment: { cf_payment_id: 1, payment_status: 'SUCCESS', payment_amount: 1000.05, payment_time: '2022-12-02T16:00:00+05:30' },
    customer_details: { customer_id: 'c1' },
  },
};

/** The gateway's order as GET /pg/orders/{order_id} shows it: the split lives here, not in the payment webhook. */
export const SPLIT_ORDER_AT_GATEWAY = {
  orderAmount: '1000.05',
  splits: [{ vendorId: 'vendor_a', percentage: '33.33' }, { vendorId: 'vendor_b', percentage: '66.67' }],
};

/** What the paid order becomes: 33.33 % and 66.67 % of 1000.05 (333.316665 and 666.733335), to two decimals, half up. */
export const ORDER_PAID_FROM_GATEWAY = {
  detailType: 'order.paid',
  detail: {
    orderId: ORDER,
    transactionTime: '2022-12-02T16:00:00+05:30',
    vendors: [{ vendorId: 'vendor_a', amount: '333.32' }, { vendorId: 'vendor_b', amount: '666.73' }],
    currency: 'INR',
    // The gateway's own payment time: trusted for the window over the marketplace's order.paid (issue 9.6).
    transactionTimeSource: 'gateway',
  },
};

/** As the gateway signs: base64(HMAC-SHA256(client secret, timestamp + raw body)), with its timestamp and version. */
export function signatureHeaders(rawBody: string, timestamp = '1669977005000') {
  return { 'x-webhook-timestamp': timestamp, 'x-webhook-signature': webhookSignature(TEST_WEBHOOK_SECRET, timestamp, Buffer.from(rawBody)), 'x-webhook-version': '2022-09-01' };
}
