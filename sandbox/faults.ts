/** Injected faults on the gateway endpoints (/pg/**, /api/v2/**), decided before any processing so state never changes. */
import { GatewayError, send, type SandboxRouteModule } from './http';
import type { FaultKind, FaultSettings } from './state';

/** mulberry32: small, seedable, good enough to spread faults; advances `faults.rngState`. */
function drawFault(faults: FaultSettings): number {
  faults.rngState = (faults.rngState + 0x6d2b79f5) | 0;
  let t = faults.rngState;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const GATEWAY_PATH = /^\/(pg|api\/v2)\//;

export const registerFaults: SandboxRouteModule = (router, ctx) => {
  router.guard((req, res) => {
    const faults = ctx.state.faults;
    if (!faults || faults.rate <= 0 || faults.kinds.length === 0 || !GATEWAY_PATH.test(req.path)) return false;
    if (drawFault(faults) >= faults.rate) return false;
    const kind: FaultKind = faults.kinds[Math.floor(drawFault(faults) * faults.kinds.length)];
    ctx.state.stats.faultsInjected[kind] += 1;
    ctx.config.log(`fault ${kind} on ${req.method} ${req.path}`);
    switch (kind) {
      case 'reset':
        req.raw.socket.destroy();
        break;
      case 'timeout': {
        const hold = setTimeout(() => req.raw.socket.destroy(), faults.timeoutMs);
        hold.unref();
        break;
      }
      case '429':
        send(res, new GatewayError(429, 'rate_limit_exceeded', 'too many requests (injected fault). Wait x-ratelimit-retry seconds and retry', 'rate_limit_error', {
          'x-ratelimit-limit': String(ctx.state.rateLimits.eligibilityPerMinute ?? 100),
          'x-ratelimit-remaining': '0',
          'x-ratelimit-retry': '1',
          'x-ratelimit-type': 'app_id',
        }).toReply());
        break;
      case '5xx': {
        const status = drawFault(faults) < 0.5 ? 500 : 502;
        send(res, new GatewayError(status, 'internal_error', `the gateway failed to process the request (injected fault ${status}). Retry later`).toReply());
        break;
      }
    }
    return true;
  });
};
