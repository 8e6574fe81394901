/** The sandbox's own controls under /_sandbox: merchant settings, faults, rate limits, observations and reset. */
import { DateTime } from 'luxon';
import { fieldError, jsonReply, objectBody, type SandboxContext, type SandboxRouteModule } from './http';
import { webhookAddress } from './notify-address';
import { armSettlement, cancelSettlementTimers, shownSettlementStatus } from './settlement';
import { FAULT_KINDS, resetState, type FaultKind, type MerchantSettings } from './state';

function rejectUnknown(body: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(body)) {
    if (!known.includes(key)) throw fieldError(key, 'unknown', `is not a setting here. Send only ${known.join(', ')}`, body[key]);
  }
}

function boolean(field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw fieldError(field, 'invalid', 'must be true or false', value);
  return value;
}

function webhookUrl(value: unknown): string | null {
  if (value === null) return null;
  return webhookAddress('webhookUrl', value, 'must be an absolute http(s) URL, or null to stop webhooks');
}

function holidays(value: unknown): string[] {
  const valid = (d: unknown): boolean => typeof d === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(d) && DateTime.fromISO(d).isValid;
  if (!Array.isArray(value) || !value.every(valid)) {
    throw fieldError('holidays', 'invalid', 'must be an array of "YYYY-MM-DD" dates (India bank holidays)', value);
  }
  return [...new Set(value as string[])].sort();
}

/** Applies a partial merchant update, all fields checked before any is changed. */
function updateMerchant(ctx: SandboxContext, body: Record<string, unknown>): MerchantSettings {
  rejectUnknown(body, ['deferByDays', 'deferredSettlementEnabled', 'tpvEnabled', 'webhookUrl', 'holidays']);
  const next: MerchantSettings = { ...ctx.state.merchant };
  if ('deferByDays' in body) {
    const days = body.deferByDays;
    if (typeof days !== 'number' || !Number.isInteger(days) || days < 0 || days > 365) {
      throw fieldError('deferByDays', 'invalid', 'must be a whole number of days from 0 to 365', days);
    }
    next.deferByDays = days;
  }
  if ('deferredSettlementEnabled' in body) next.deferredSettlementEnabled = boolean('deferredSettlementEnabled', body.deferredSettlementEnabled);
  if ('tpvEnabled' in body) next.tpvEnabled = boolean('tpvEnabled', body.tpvEnabled);
  if ('webhookUrl' in body) next.webhookUrl = webhookUrl(body.webhookUrl);
  if ('holidays' in body) next.holidays = holidays(body.holidays);
  const holidaysChanged = next.holidays.join() !== ctx.state.merchant.holidays.join();
  ctx.state.merchant = next;
  // Slots depend on bank holidays: pending settlements move with them.
  if (holidaysChanged) {
    for (const record of ctx.state.settlements.values()) if (record.status === 'PENDING') armSettlement(ctx, record);
  }
  return next;
}

function setFaults(ctx: SandboxContext, body: Record<string, unknown>): void {
  rejectUnknown(body, ['rate', 'kinds', 'seed', 'timeoutMs']);
  const { rate, kinds, seed, timeoutMs } = body;
  if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1)) throw fieldError('rate', 'invalid', 'must be a number from 0 to 1', rate);
  if (!Array.isArray(kinds) || kinds.length === 0 || !kinds.every((k) => FAULT_KINDS.includes(k as FaultKind))) {
    throw fieldError('kinds', 'invalid', `must be a non-empty subset of ${JSON.stringify(FAULT_KINDS)}`, kinds);
  }
  if (seed !== undefined && (typeof seed !== 'number' || !Number.isInteger(seed))) throw fieldError('seed', 'invalid', 'must be an integer', seed);
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < 0 || timeoutMs > 600_000)) {
    throw fieldError('timeoutMs', 'invalid', 'must be a whole number of milliseconds from 0 to 600000', timeoutMs);
  }
  const chosenSeed = (seed as number | undefined) ?? Math.floor(Math.random() * 2 ** 31);
  ctx.state.faults = {
    rate,
    kinds: [...new Set(kinds as FaultKind[])],
    seed: chosenSeed,
    timeoutMs: (timeoutMs as number | undefined) ?? 5000,
    rngState: chosenSeed,
  };
}

function publicFaults(ctx: SandboxContext): unknown {
  const faults = ctx.state.faults;
  return faults ? { rate: faults.rate, kinds: faults.kinds, seed: faults.seed, timeoutMs: faults.timeoutMs } : null;
}

export const registerControls: SandboxRouteModule = (router, ctx) => {
  router.get('/_sandbox/merchant', () => jsonReply(200, ctx.state.merchant));
  router.put('/_sandbox/merchant', (req) => jsonReply(200, updateMerchant(ctx, objectBody(req))));

  router.get('/_sandbox/faults', () => jsonReply(200, { faults: publicFaults(ctx) }));
  router.post('/_sandbox/faults', (req) => {
    setFaults(ctx, objectBody(req));
    return jsonReply(200, { faults: publicFaults(ctx) });
  });
  router.delete('/_sandbox/faults', () => {
    ctx.state.faults = null;
    return jsonReply(200, { faults: null });
  });

  router.get('/_sandbox/rate-limits', () => jsonReply(200, ctx.state.rateLimits));
  router.put('/_sandbox/rate-limits', (req) => {
    const body = objectBody(req);
    rejectUnknown(body, ['eligibilityPerMinute']);
    const limit = body.eligibilityPerMinute;
    if (limit !== null && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)) {
      throw fieldError('eligibilityPerMinute', 'invalid', 'must be a positive whole number of requests per minute, or null for no limit', limit);
    }
    ctx.state.rateLimits = { eligibilityPerMinute: limit as number | null };
    return jsonReply(200, ctx.state.rateLimits);
  });

  router.get('/_sandbox/stats', () => jsonReply(200, ctx.state.stats));
  router.get('/_sandbox/webhooks', () => jsonReply(200, { deliveries: ctx.state.webhooks }));
  router.get('/_sandbox/eligibility-updates', () => {
    const counts = [...ctx.state.settlements.values()]
      .filter((r) => r.eligibility_updates > 0)
      .map((r) => ({ order_id: r.order_id, vendor_id: r.vendor_id, applied: r.eligibility_updates }));
    return jsonReply(200, { updates: ctx.state.eligibilityLog, applied: counts });
  });
  router.get('/_sandbox/settlements', () => {
    const now = ctx.clock.nowMs();
    return jsonReply(200, { settlements: [...ctx.state.settlements.values()].map((r) => ({ ...r, shown_status: shownSettlementStatus(r, now) })) });
  });

  router.post('/_sandbox/reset', () => {
    cancelSettlementTimers(ctx.state);
    ctx.webhooks.cancelAll();
    resetState(ctx.state);
    return jsonReply(200, { reset: true });
  });
};
