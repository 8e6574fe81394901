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
  /** Posts `{type, event_time, data}` to `url`, signed; resolves with the delivery once it is delivered or given up. */
  send(url: string, type: string, data: unknown): Promise<WebhookDelivery>;
  /** Delivers again a delivery kept from before a restart that was not delivered (same id, same body). */
  redeliver(delivery: WebhookDelivery): Promise<WebhookDelivery>;
  /** Resolves when no delivery is in flight or waiting for a retry. */
  idle(): Promise<void>;
  /** Stops pending retries (on sandbox close or reset). */
  cancelAll(): void;
}

export interface WebhookOptions {
  /** Waits between attempts (real time); its length + 1 is the number of attempts. */
  retryDelaysMs?: number[];
  attemptTimeoutMs?: number;
}

export function createWebhookSender(
  deps: { state: SandboxState; clock: SandboxClock; secret: () => string; log: (line: string) => void },
  opts: WebhookOptions = {},
): WebhookSender {
  const retryDelays = opts.retryDelaysMs ?? [250, 1000];
  const attemptTimeoutMs = opts.attemptTimeoutMs ?? 5000;
  const inFlight = new Set<Promise<WebhookDelivery>>();
  /** Pending retry waits: cancelAll ends each at once with "give up". */
  const waits = new Map<NodeJS.Timeout, (goOn: boolean) => void>();
  let generation = 0;

  const pause = (ms: number, gen: number): Promise<boolean> => new Promise((resolve) => {
    const timer = setTimeout(() => { waits.delete(timer); resolve(gen === generation); }, ms);
    waits.set(timer, resolve);
  });

  async function attempt(delivery: WebhookDelivery): Promise<boolean> {
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

  async function deliver(delivery: WebhookDelivery, gen: number): Promise<WebhookDelivery> {
    for (let i = 0; ; i++) {
      if (await attempt(delivery)) {
        delivery.status = 'DELIVERED';
        delivery.delivered_at = isoIst(deps.clock.nowMs());
        deps.log(`webhook ${delivery.type} #${delivery.id} delivered to ${delivery.url}`);
        return delivery;
      }
      if (i >= retryDelays.length || !(await pause(retryDelays[i], gen))) {
        delivery.status = 'FAILED';
        deps.log(`webhook ${delivery.type} #${delivery.id} to ${delivery.url} failed after ${delivery.attempts} attempts: ${delivery.last_error}`);
        return delivery;
      }
    }
  }

  const track = (delivery: WebhookDelivery): Promise<WebhookDelivery> => {
    const run = deliver(delivery, generation);
    inFlight.add(run);
    void run.finally(() => inFlight.delete(run));
    return run;
  };

  return {
    redeliver: track,
    send(url, type, data) {
      const now = deps.clock.nowMs();
      const body = JSON.stringify({ data, event_time: isoIst(now), type });
      const delivery: WebhookDelivery = {
        id: ++deps.state.counters.webhookId,
        type,
        url,
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
