/**
 * Injected faults on the gateway endpoints (/pg/**, /api/v2/**), decided before any processing: all but one act then,
 * so state never changes; `hang_after_apply` lets the eligibility PUT be processed and then never answers it.
 */
import { ELIGIBILITY_ROUTE } from './eligibility';
import { GatewayError, send, type SandboxRequest, type SandboxRouteModule } from './http';
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
const ELIGIBILITY_PATH = new RegExp(`^${ELIGIBILITY_ROUTE.replace(/:[a-z_]+/g, '[^/]+')}/?$`);

/** The kinds that can act on this request: `hang_after_apply` only on the vendor eligibility PUT. */
function kindsFor(faults: FaultSettings, req: SandboxRequest): FaultKind[] {
  const eligibilityPut = req.method === 'PUT' && ELIGIBILITY_PATH.test(req.path);
  return faults.kinds.filter((kind) => kind !== 'hang_after_apply' || eligibilityPut);
}

export const registerFaults: SandboxRouteModule = (router, ctx) => {
  router.guard((req, res) => {
    const faults = ctx.state.faults;
    if (!faults || faults.rate <= 0 || !GATEWAY_PATH.test(req.path)) return false;
    const kinds = kindsFor(faults, req);
    if (kinds.length === 0) return false;
    if (drawFault(faults) >= faults.rate) return false;
    const kind: FaultKind = kinds[Math.floor(drawFault(faults) * kinds.length)];
    // A snapshot kept before a kind existed lacks its counter.
    ctx.state.stats.faultsInjected[kind] = (ctx.state.stats.faultsInjected[kind] ?? 0) + 1;
    ctx.config.log(`fault ${kind} on ${req.method} ${req.path}`);
    if (kind === 'hang_after_apply') {
      // Processed and kept (on disk too) like any other request; the answer is never sent and the socket is dropped
      // after timeoutMs, by which time a client has given up.
      req.answer = () => {
        const hold = setTimeout(() => req.raw.socket.destroy(), faults.timeoutMs);
        hold.unref();
      };
      return false;
    }
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
