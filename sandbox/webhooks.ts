/** Signed webhook deliveries with retries, each recorded in the sandbox state (GET /_sandbox/webhooks lists them). */
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { SandboxClock } from './clock';
import type { SandboxState, WebhookDelivery } from './state';
import { isoIst } from './time';

const WEBHOOK_VERSION = '2022-09-01';

/** x-webhook-signature = base64(HMAC-SHA256(key = client secret, message = timestamp + raw body)). */
function signWebhook(secret: string, timestamp: string, rawBody: string): string {
  return createHmac('sha256', secret).update(timestamp + rawBody).digest('base64');
}

export interface WebhookSender {
  /**
   * Posts `{type, event_time, data}` to `url`, signed; resolves with the delivery once it is delivered, given up, or
   * waiting for a later try (still PENDING: it goes on being tried, and a restart resumes it). `merchant` says the url
   * is the merchant's webhook URL: each try then posts to the merchant's URL of the moment.
   */
  send(url: string, type: string, data: unknown, merchant?: boolean): Promise<WebhookDelivery>;
  /**
   * The receiver listens now (the embedded default's API is up): deliveries waiting for a later try go at once, and
   * the PENDING ones kept from before a restart are delivered again. Returns how many were kept from before.
   */
  resume(): number;
  /** Resolves when no delivery is in flight or in its first quick retries (later tries, up to a minute apart, are not waited for). */
  idle(): Promise<void>;
  /** Stops pending retries (on sandbox close or reset); what was not delivered stays PENDING for the next start. */
  cancelAll(): void;
}

export interface WebhookOptions {
  /** Waits between the first attempts (real time), which `idle()` waits for. */
  retryDelaysMs?: number[];
  /**
   * Attempts in all before a delivery is given up (FAILED): by default only the first ones when `retryDelaysMs` is
   * given (tests), else DEFAULT_MAX_ATTEMPTS, the later ones waiting twice as long each time up to `maxRetryDelayMs`.
   */
  maxAttempts?: number;
  maxRetryDelayMs?: number;
  attemptTimeoutMs?: number;
}

/**
 * A receiver that is down (Holdback starting, or killed) gets its webhooks when it is back: tries go on, at most a
 * minute apart, for about 24 hours (1,440 tries a minute apart), as gateways retry; a delivery kept in the state is
 * resumed after a restart with its count of attempts.
 */
export const DEFAULT_MAX_ATTEMPTS = 1_440;
const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;

export function createWebhookSender(
  deps: { state: SandboxState; clock: SandboxClock; secret: () => string; log: (line: string) => void },
  opts: WebhookOptions = {},
): WebhookSender {
  const retryDelays = opts.retryDelaysMs ?? [250, 1000];
  const maxAttempts = opts.maxAttempts ?? (opts.retryDelaysMs ? retryDelays.length + 1 : DEFAULT_MAX_ATTEMPTS);
  const maxRetryDelayMs = opts.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
  const attemptTimeoutMs = opts.attemptTimeoutMs ?? 5000;
  const inFlight = new Set<Promise<WebhookDelivery>>();
  /** Pending retry waits: cancelAll ends each at once with "give up". */
  const waits = new Map<NodeJS.Timeout, (goOn: boolean) => void>();
  /** Deliveries waiting minutes for a later try (outside `idle()`), by id: `resume` sends them at once. */
  const later = new Map<number, { timer: NodeJS.Timeout; delivery: WebhookDelivery }>();
  /** Ids being delivered or waiting in this process: a resume never starts a second delivery of one. */
  const active = new Set<number>();
  let generation = 0;

  const pause = (ms: number, gen: number): Promise<boolean> => new Promise((resolve) => {
    const timer = setTimeout(() => { waits.delete(timer); resolve(gen === generation); }, ms);
    waits.set(timer, resolve);
  });

  async function attempt(delivery: WebhookDelivery): Promise<boolean> {
    // The merchant's URL of the moment: after a restart the receiver may listen elsewhere.
    if (delivery.merchant && deps.state.merchant.webhookUrl) delivery.url = deps.state.merchant.webhookUrl;
    delivery.attempts += 1;
    const timestamp = String(deps.clock.nowMs());
    try {
      const status = await post(delivery.url, {
        'content-type': 'application/json',
        'x-webhook-signature': signWebhook(deps.secret(), timestamp, delivery.body),
        'x-webhook-timestamp': timestamp,
        'x-webhook-version': WEBHOOK_VERSION,
      }, delivery.body, attemptTimeoutMs);
      const ok = status >= 200 && status < 300;
      delivery.last_status_code = status;
      delivery.last_error = ok ? null : `HTTP ${status}`;
      return ok;
    } catch (error) {
      delivery.last_status_code = null;
      delivery.last_error = error instanceof Error ? error.message : String(error);
      return false;
    }
  }

  /** `first`: the index of the try in this process (a later try starts past the quick retries). */
  async function deliver(delivery: WebhookDelivery, gen: number, first: number): Promise<WebhookDelivery> {
    for (let i = first; ; i++) {
      if (await attempt(delivery)) {
        delivery.status = 'DELIVERED';
        delivery.delivered_at = isoIst(deps.clock.nowMs());
        active.delete(delivery.id);
        deps.log(`webhook ${delivery.type} #${delivery.id} delivered to ${delivery.url}`);
        return delivery;
      }
      if (delivery.attempts >= maxAttempts) {
        delivery.status = 'FAILED';
        active.delete(delivery.id);
        deps.log(`webhook ${delivery.type} #${delivery.id} to ${delivery.url} failed after ${delivery.attempts} attempts: ${delivery.last_error}`);
        return delivery;
      }
      if (i < retryDelays.length) {
        // Cancelled (close or reset): it stays PENDING, kept in the state for the next start.
        if (!(await pause(retryDelays[i], gen))) return delivery;
        continue;
      }
      if (gen !== generation) return delivery;
      const wait = Math.min(maxRetryDelayMs, (retryDelays.at(-1) ?? 250) * 2 ** (i - retryDelays.length + 1));
      if (i === retryDelays.length) {
        deps.log(`webhook ${delivery.type} #${delivery.id} to ${delivery.url} not delivered yet (${delivery.last_error}); tried again at most ${maxRetryDelayMs / 1000} s apart until ${maxAttempts} attempts`);
      }
      const timer = setTimeout(() => {
        later.delete(delivery.id);
        void track(delivery, i + 1);
      }, wait);
      timer.unref();
      later.set(delivery.id, { timer, delivery });
      return delivery;
    }
  }

  const track = (delivery: WebhookDelivery, first = 0): Promise<WebhookDelivery> => {
    active.add(delivery.id);
    const run = deliver(delivery, generation, first);
    inFlight.add(run);
    void run.finally(() => inFlight.delete(run));
    return run;
  };

  return {
    send(url, type, data, merchant = false) {
      const now = deps.clock.nowMs();
      const body = JSON.stringify({ data, event_time: isoIst(now), type });
      const delivery: WebhookDelivery = {
        id: ++deps.state.counters.webhookId,
        type,
        url,
        ...(merchant ? { merchant: true } : {}),
        body,
        status: 'PENDING',
        attempts: 0,
        last_status_code: null,
        last_error: null,
        created_at: isoIst(now),
        delivered_at: null,
      };
      deps.state.webhooks.push(delivery);
      return track(delivery);
    },
    resume() {
      for (const [id, { timer, delivery }] of [...later]) {
        clearTimeout(timer);
        later.delete(id);
        void track(delivery);
      }
      const kept = deps.state.webhooks.filter((delivery) => delivery.status === 'PENDING' && !active.has(delivery.id));
      for (const delivery of kept) void track(delivery);
      return kept.length;
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    cancelAll() {
      generation += 1;
      for (const [timer, resolve] of waits) {
        clearTimeout(timer);
        resolve(false);
      }
      waits.clear();
      for (const { timer } of later.values()) clearTimeout(timer);
      later.clear();
      active.clear();
    },
  };
}

/**
 * One POST with Node's own client, answered with the status code. Not fetch: fetch refuses the ports on its blocked
 * list (6000, 6566, ...), and a merchant's receiver may listen on any port.
 */
function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : target.protocol === 'http:' ? httpRequest : null;
    if (!send) return reject(new Error(`${url}: only http and https webhook URLs can be delivered`));
    const req = send(target, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
