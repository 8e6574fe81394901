/** The vendor settlement eligibility PUT ({vendor_base_url}/api/v2/...), its eight answers, rate limit and audit log. */
import { requireClient } from './auth';
import { GatewayError, type SandboxContext, type SandboxReply, type SandboxRequest, type SandboxRouteModule } from './http';
import { armSettlement, maxEligibility, shownSettlementStatus } from './settlement';
import { settlementKey, type SandboxState } from './state';
import { isoIst, parseIstWallTime } from './time';

/**
 * The documented messages (gateway-facts section 1), plus the sandbox's own for a future date before the transaction
 * (only possible when the pay control set a transaction time in the future).
 */
const ELIGIBILITY_MESSAGES = {
  updated: 'Updated vendor settlement eligibility date',
  deferredNotEnabled: 'Deferred settlement is not enabled for merchant',
  orderMissing: 'Order ID does not exist',
  vendorMissing: 'Vendor ID does not exist',
  alreadySettled: 'Order has already been settled',
  inProgress: 'Settlement for the order is in progress',
  beyondMax: 'Settlement eligibility cannot be beyond max_eligibity_date. Provide an earlier date',
  inPast: 'Eligibility time specified is in the past. Specify a new time',
  beforeTransaction: 'Settlement eligibility cannot be before the transaction time. Provide a later date',
} as const;

const FIELD = 'settlementEligibilityDateUpdate';
/** The vendor eligibility PUT's path (a fault acts on this endpoint alone). */
export const ELIGIBILITY_ROUTE = '/api/v2/easy-split/orders/:order_id/settlement-eligibility/vendors/:vendor_id';
const RATE_WINDOW_MS = 60_000;

interface Outcome {
  ok: boolean;
  message: string;
}

const fail = (message: string): Outcome => ({ ok: false, message });

function decide(ctx: SandboxContext, orderId: string, vendorId: string, requested: unknown): Outcome {
  const { state } = ctx;
  if (!state.merchant.deferredSettlementEnabled) return fail(ELIGIBILITY_MESSAGES.deferredNotEnabled);
  const order = state.orders.get(orderId);
  if (!order || order.status !== 'PAID' || order.payment_time === null) return fail(ELIGIBILITY_MESSAGES.orderMissing);
  const record = state.settlements.get(settlementKey(orderId, vendorId));
  if (!record) return fail(ELIGIBILITY_MESSAGES.vendorMissing);
  const wanted = parseIstWallTime(requested);
  if (wanted === null) {
    return fail(`${FIELD}: must be "YYYY-MM-DD HH:MM:SS" (24-hour) or "YYYY-MM-DD hh:mm:ss AM|PM", India time. Value received: ${JSON.stringify(requested ?? null)}`);
  }
  const now = ctx.clock.nowMs();
  const status = shownSettlementStatus(record, now);
  if (status === 'SETTLED') return fail(ELIGIBILITY_MESSAGES.alreadySettled);
  if (status === 'IN_PROGRESS') return fail(ELIGIBILITY_MESSAGES.inProgress);
  const paidAt = Date.parse(order.payment_time);
  if (wanted > maxEligibility(state, paidAt)) return fail(ELIGIBILITY_MESSAGES.beyondMax);
  // A past date before the transaction gets the documented "in the past", the answer a caller knows how to handle.
  if (wanted < now) return fail(ELIGIBILITY_MESSAGES.inPast);
  if (wanted < paidAt) return fail(ELIGIBILITY_MESSAGES.beforeTransaction);
  record.eligibility = isoIst(wanted);
  record.eligibility_updates += 1;
  armSettlement(ctx, record);
  ctx.config.log(`eligibility of vendor ${vendorId} on order ${orderId} set to ${record.eligibility}; settles ${record.scheduled_at}`);
  return { ok: true, message: ELIGIBILITY_MESSAGES.updated };
}

/**
 * Windows known to be in ascending order, as this module keeps them (Date.now() can step back, e.g. after a clock
 * correction, and then a window loses its place here). Only their oldest entries can have expired, so sliding one
 * drops a prefix instead of filtering thousands of entries on every PUT of a busy minute.
 */
const ascendingWindows = new WeakSet<number[]>();

/** Drops the window's entries older than 60 seconds: the entries (and order) the filter over all of them keeps. */
function slideWindow(state: SandboxState, now: number): number[] {
  const cutoff = now - RATE_WINDOW_MS;
  const window = state.eligibilityWindow;
  if (!ascendingWindows.has(window)) {
    const kept = window.filter((t) => t > cutoff);
    if (kept.every((t, i) => i === 0 || kept[i - 1] <= t)) ascendingWindows.add(kept);
    state.eligibilityWindow = kept;
    return kept;
  }
  let expired = 0;
  while (expired < window.length && window[expired] <= cutoff) expired++;
  if (expired > 0) window.splice(0, expired);
  return window;
}

/** Sliding 60-second window (real time): the headers to send, or a 429 reply when the window is full. */
function rateLimit(ctx: SandboxContext): { headers: Record<string, string>; limited: SandboxReply | null } {
  const { state } = ctx;
  const now = Date.now();
  const window = slideWindow(state, now);
  const limit = state.rateLimits.eligibilityPerMinute;
  const stats = state.stats.eligibilityPut;
  if (limit !== null && window.length >= limit) {
    stats.rateLimited += 1;
    const retry = Math.max(1, Math.ceil((window[0] + RATE_WINDOW_MS - now) / 1000));
    const headers = { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': '0', 'x-ratelimit-retry': String(retry), 'x-ratelimit-type': 'app_id' };
    const error = new GatewayError(429, 'rate_limit_exceeded', `too many requests: at most ${limit} per minute. Retry after ${retry} seconds`, 'rate_limit_error', headers);
    return { headers, limited: error.toReply() };
  }
  if (window.length > 0 && now < window[window.length - 1]) ascendingWindows.delete(window);
  window.push(now);
  stats.servedWithinLimit += 1;
  stats.peakPerMinute = Math.max(stats.peakPerMinute, window.length);
  if (limit === null) return { headers: {}, limited: null };
  return {
    headers: {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(limit - window.length),
      'x-ratelimit-retry': '0',
      'x-ratelimit-type': 'app_id',
    },
    limited: null,
  };
}

function handle(ctx: SandboxContext, req: SandboxRequest): SandboxReply {
  const { order_id: orderId, vendor_id: vendorId } = req.params;
  const body = req.body;
  const requested = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[FIELD] : undefined;
  const log = (reply: SandboxReply, status: string, subCode: string, message: string): SandboxReply => {
    ctx.state.eligibilityLog.push({ at: isoIst(ctx.clock.nowMs()), order_id: orderId, vendor_id: vendorId, requested: requested ?? null, http_status: reply.status, status, subCode, message });
    return reply;
  };
  ctx.state.stats.eligibilityPut.total += 1;
  try {
    requireClient(req, ctx);
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    return log(error.toReply(), 'ERROR', String(error.status), error.message);
  }
  const { headers, limited } = rateLimit(ctx);
  if (limited) return log(limited, 'ERROR', '429', String((limited.body as { message: string }).message));
  const outcome = decide(ctx, orderId, vendorId, requested);
  const reply: SandboxReply = {
    status: outcome.ok ? 200 : 400,
    body: { status: outcome.ok ? 'OK' : 'ERROR', subCode: outcome.ok ? '200' : '400', message: outcome.message },
    headers,
  };
  return log(reply, outcome.ok ? 'OK' : 'ERROR', outcome.ok ? '200' : '400', outcome.message);
}

export const registerEligibility: SandboxRouteModule = (router, ctx) => {
  router.put(ELIGIBILITY_ROUTE, (req) => handle(ctx, req));
};
