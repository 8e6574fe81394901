/** The gateway's vendor settlement eligibility PUT over HTTP: validation, throttling, body-driven answers, attempt log. */
import type { Attempt, GatewayAnswer } from '../../domain/types';
import { GATEWAY_ZONE, parseGatewayDate } from '../../domain/dates';
import { Instant } from '../../domain/instant';
import { attemptOf } from '../../domain/gateway-answer';
import type { BeforePut, EligibilityGateway, GatewayCallResult } from '../../application/ports';
import { requireId } from '../../domain/order-events';
import { GatewayTransport, type GatewayClientOptions, type GatewayExchange } from './gateway-transport';
import { SendRateLimiter } from './send-rate-limiter';

export interface HttpEligibilityGatewayOptions extends GatewayClientOptions {
  /** `{vendor_base_url}` of the interface, e.g. "https://api.example.com" (no trailing path). */
  vendorBaseUrl: string;
  /** Client-side limit of sends per sliding minute, shared by all calls of this instance. Default 600. */
  ratePerMinute?: number;
  /** Stamps attempts (the shared clock locally); waiting and timeouts always use real time. */
  now?: () => Instant;
}

/**
 * Seconds to wait at least before trying again within the call, or null: the call ends. Only a 429 is tried again
 * here: it is a clean refusal. A timeout, a reset or a 5xx may have been applied, so the caller reads the gateway's
 * order recon before it sends again (release-vendor.ts).
 */
function inCallRetryWait(answer: GatewayAnswer): number | null {
  if (answer.kind === 'response' && answer.httpStatus === 429) return answer.retryAfterSeconds ?? 0;
  return null;
}

export class HttpEligibilityGateway implements EligibilityGateway {
  private readonly transport: GatewayTransport;
  private readonly limiter: SendRateLimiter;
  private readonly now: () => Instant;

  constructor(options: HttpEligibilityGatewayOptions) {
    this.transport = new GatewayTransport(options, {
      baseUrl: options.vendorBaseUrl,
      baseUrlField: 'vendorBaseUrl',
      baseUrlExample: 'https://api.example.com',
      // No x-api-version: the eligibility PUT documents none.
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      maxMessageChars: 500,
      // A call may wait for the rate limit and between its 4 tries; the release is re-driven after that.
      defaults: { maxTries: 4, maxWaitMs: 20_000, backoffCapMs: 5_000 },
    });
    this.limiter = new SendRateLimiter(options.ratePerMinute ?? 600);
    this.now = options.now ?? (() => Instant.now());
  }

  async updateEligibility(orderId: string, vendorId: string, eligibility: string, beforePut?: BeforePut): Promise<GatewayCallResult> {
    requireId(orderId, 'orderId');
    requireId(vendorId, 'vendorId');
    if (parseGatewayDate(eligibility) === null) {
      throw new Error(`eligibility: "${String(eligibility).slice(0, 60)}" is not a gateway date; send "YYYY-MM-DD HH:MM:SS" in India time`);
    }
    const url = this.transport.url(`/api/v2/easy-split/orders/${encodeURIComponent(orderId)}`
      + `/settlement-eligibility/vendors/${encodeURIComponent(vendorId)}`);
    const attempts: Attempt[] = [];
    const { outcome } = await this.transport.withRetries(async (deadline): Promise<GatewayAnswer> => {
      const slot = await this.limiter.acquire(deadline);
      if (!slot.ok) {
        // Nothing is sent, so no attempt is recorded: our own throttle must not count against the release's sends.
        return { kind: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil(slot.waitMs / 1000)) };
      }
      const at = this.now().in(GATEWAY_ZONE).wholeSecond();
      if (beforePut) {
        // On the record before it leaves; a failure to record sends nothing.
        await beforePut(attempts.length + 1, at).catch((error: unknown) => {
          slot.answered();
          throw error;
        });
      }
      const exchange = await this.transport.exchange('PUT', url, { settlementEligibilityDateUpdate: eligibility }).finally(slot.answered);
      const answer = this.answerOf(exchange);
      attempts.push(attemptOf(answer, eligibility, at));
      return answer;
    }, inCallRetryWait);
    return { attempts, final: outcome };
  }

  /** The body decides even on a non-2xx status: whether the HTTP status mirrors subCode is undocumented. */
  private answerOf(exchange: GatewayExchange): GatewayAnswer {
    if (exchange.kind !== 'response') return exchange;
    const { status: httpStatus, body, text } = exchange;
    const field = (name: string): string | null => {
      const value = body?.[name];
      return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
    };
    const message = field('message') ?? (body ? '' : `unreadable answer: ${text}`);
    return {
      kind: 'response',
      httpStatus,
      status: field('status') ?? (httpStatus === 429 ? 'RATE_LIMITED' : 'ERROR'),
      subCode: field('subCode') ?? String(httpStatus),
      message: this.transport.scrub(message),
      ...(httpStatus === 429 && exchange.retryAfterSeconds ? { retryAfterSeconds: exchange.retryAfterSeconds } : {}),
    };
  }
}

