/** POST /pg/orders/pay/authenticate/{cf_payment_id} (4.3, 2.9): the OTP of a "post" payment decides it. */
import { fieldError, GatewayError, type SandboxContext } from '../http';
import type { PaymentRecord } from '../state';
import { completePayment, extensionsOf } from './completion';

/** The one OTP the sandbox's banks and providers accept; any other OTP fails the payment. */
export const TEST_OTP = '111000';

export interface OtpResponse {
  cf_payment_id: number;
  action: 'SUBMIT_OTP';
  authenticate_status: 'SUCCESS' | 'FAILED';
  payment_message: string;
}

export function submitOtp(ctx: SandboxContext, payment: PaymentRecord, body: Record<string, unknown>): OtpResponse {
  if (body.action === undefined || body.action === null || body.action === '') throw fieldError('action', 'missing', 'is required. Send "SUBMIT_OTP"', '');
  if (body.action !== 'SUBMIT_OTP') throw fieldError('action', 'invalid', 'must be "SUBMIT_OTP"', body.action);
  const otp = body.otp;
  if (otp === undefined || otp === null || otp === '') throw fieldError('otp', 'missing', 'is required. Send the OTP the customer received, as a string', '');
  if (typeof otp !== 'string' || !/^\d{4,8}$/.test(otp)) throw fieldError('otp', 'invalid', 'must be a string of 4 to 8 digits', typeof otp === 'string' ? '***' : otp);
  if (extensionsOf(payment).flow !== 'otp') {
    throw new GatewayError(400, 'payment_otp_not_applicable', `cf_payment_id: payment ${payment.cf_payment_id} does not take an OTP: its action is "link" and the customer completes it at the redirect page (data.url). Value received: ${payment.cf_payment_id}`);
  }
  if (payment.payment_status !== 'PENDING') {
    throw new GatewayError(400, 'payment_not_pending', `cf_payment_id: payment is already ${payment.payment_status}; an OTP can be submitted once. Start a new payment with POST /pg/orders/sessions. Value received: ${payment.cf_payment_id}`);
  }
  const done = completePayment(ctx, payment, otp === TEST_OTP ? { approved: true } : { approved: false, reason: 'OTP verification failed: the OTP is incorrect' });
  return {
    cf_payment_id: done.cf_payment_id,
    action: 'SUBMIT_OTP',
    authenticate_status: done.payment_status === 'SUCCESS' ? 'SUCCESS' : 'FAILED',
    payment_message: done.payment_message ?? '',
  };
}
