/** Payments of the gateway sandbox: sessions (orders pay), OTP, TPV, links, CSV upload, hosted checkout and their controls. */
import { requireApiVersion, requirePgAccess } from '../auth';
import { MAX_UPLOAD_BYTES, fieldError, jsonReply, objectBody, type Router, type SandboxContext, type SandboxRequest, type SandboxRouteModule } from '../http';
import { submitOtp } from './authenticate';
import { csvOfRequest, uploadLinks } from './bulk-links';
import { loadCatalogue } from './catalogue';
import { registerCheckout } from './checkout';
import { findPayment } from './completion';
import { createLink, findLink, linkResponse } from './links';
import { normalisePhone } from './payment-method';
import { startPayment } from './payment-session';
import { listTestPayers, parseTestPayers, replaceTestPayers } from './tpv';

/** 4.2 takes x-api-version only in some requests (section 5): checked when sent. */
function optionalApiVersion(req: SandboxRequest): void {
  if (req.header('x-api-version') !== undefined) requireApiVersion(req);
}

function parsePhones(body: unknown): string[] {
  const list = Array.isArray(body) ? body : body !== null && typeof body === 'object' && Array.isArray((body as { phones?: unknown }).phones) ? (body as { phones: unknown[] }).phones : null;
  if (list === null) throw fieldError('phones', 'invalid', 'send a JSON array of phone numbers (or {"phones": [...]})', body);
  return list.map((value, i) => {
    const phone = typeof value === 'string' || typeof value === 'number' ? normalisePhone(value) : '';
    if (!/^\d{10}$/.test(phone)) throw fieldError(`phones[${i}]`, 'invalid', 'must be a 10-digit mobile number (an optional +91 prefix)', value);
    return phone;
  });
}

const registerPayments: SandboxRouteModule = (router: Router, ctx: SandboxContext) => {
  // Read once per sandbox: SANDBOX_CATALOGUE replaces the shipped catalogue; a bad file stops the sandbox with the reason.
  const catalogue = loadCatalogue(process.env);

  router.post('/pg/orders/sessions', (req) => {
    optionalApiVersion(req);
    return jsonReply(200, startPayment(ctx, catalogue, objectBody(req)).response);
  });

  router.post('/pg/orders/pay/authenticate/:cf_payment_id', (req) => {
    requireApiVersion(req);
    const payment = findPayment(ctx, req.params.cf_payment_id);
    return jsonReply(200, submitOtp(ctx, payment, objectBody(req)));
  });

  router.post('/pg/links', (req) => {
    requirePgAccess(req, ctx);
    return jsonReply(200, linkResponse(createLink(ctx, objectBody(req)), ctx.clock.nowMs()));
  });

  router.post('/pg/links/bulk', (req) => {
    requirePgAccess(req, ctx);
    return jsonReply(200, uploadLinks(ctx, csvOfRequest(req)));
  }, { maxBodyBytes: MAX_UPLOAD_BYTES });

  router.get('/pg/links/:link_id', (req) => {
    requirePgAccess(req, ctx);
    return jsonReply(200, linkResponse(findLink(ctx, req.params.link_id), ctx.clock.nowMs()));
  });

  registerCheckout(router, ctx, catalogue);

  router.get('/_sandbox/pre-approved-phones', () => jsonReply(200, { phones: [...ctx.state.preApprovedPhones] }));
  router.put('/_sandbox/pre-approved-phones', (req) => {
    const phones = parsePhones(req.body);
    ctx.state.preApprovedPhones = new Set(phones);
    return jsonReply(200, { phones: [...ctx.state.preApprovedPhones] });
  });

  router.get('/_sandbox/test-payers', () => jsonReply(200, { payers: listTestPayers(ctx.state) }));
  router.put('/_sandbox/test-payers', (req) => {
    replaceTestPayers(ctx.state, parseTestPayers(req.body));
    return jsonReply(200, { payers: listTestPayers(ctx.state) });
  });

  router.get('/_sandbox/catalogue', () => jsonReply(200, {
    source: catalogue.source,
    codes: catalogue.codes,
    creditEmi: [...catalogue.credit.values()],
    debitEmi: [...catalogue.debit.values()],
    cardlessEmi: [...catalogue.cardlessPlans.values()],
    cardlessProviders: [...catalogue.cardlessProviders.values()],
    payLater: [...catalogue.payLater.values()],
  }));
};

export default registerPayments;
