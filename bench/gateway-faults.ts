/**
 * The fault run (`npx tsx bench/run.ts faults`): releases through the whole local stack while the sandbox faults a
 * share of the gateway's calls (5xx, 429, timeouts, connection resets, and `hang_after_apply`, a PUT applied and never
 * answered), each PUT counted per release by the sandbox itself: exactly one effective PUT each is the target.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { startLocal, type LocalRuntime } from '../local/runtime';

/** The kinds injected; `hang_after_apply` acts on the eligibility PUT only, the others on every gateway call. */
export const FAULT_KINDS = ['5xx', '429', 'timeout', 'reset', 'hang_after_apply'] as const;

export interface FaultRunOptions {
  orders: number;
  vendorsPerOrder: number;
  /** Share of gateway calls faulted, 0..1. */
  rate: number;
  seed?: number;
  /** How long the sandbox holds a `timeout` or `hang_after_apply` connection; Holdback's client gives up sooner. */
  sandboxHoldMs?: number;
  gatewayTimeoutMs?: number;
  /** Clock advances of 30 minutes at most, while releases remain unapplied (retries back off up to 30 minutes). */
  maxAdvances?: number;
  progress?: (line: string) => void;
}

export interface FaultRunResult {
  orders: number;
  releases: number;
  faultRate: number;
  faultKinds: string[];
  /** Faults the sandbox injected, by kind (all gateway calls: PUTs, order recons and order reads). */
  faultsInjected: Record<string, number>;
  /** Eligibility PUTs the sandbox processed (its update log), and those that changed an eligibility (effective). */
  putsProcessed: number;
  effectivePuts: number;
  /** Releases by the number of effective PUTs the sandbox counted for them. */
  releasesWithEffectivePuts: { zero: number; one: number; twoOrMore: number };
  /** Releases whose send was confirmed from the gateway's order recon instead of its (lost) answer. */
  confirmedFromRecon: number;
  states: Record<string, number>;
  releasesLost: number;
  clockAdvances: number;
  seconds: number;
}

const START = new Date('2022-12-02T16:05:00+05:30');

async function json(url: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...(init.headers ?? {}) } });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Vendors with an immediate policy, and paid split orders at the sandbox (set up before any fault). */
async function prepare(runtime: LocalRuntime, vendors: string[], orderIds: string[]): Promise<void> {
  const { clientId, clientSecret } = runtime.sandbox.context.config;
  const gateway = { 'x-client-id': clientId, 'x-client-secret': clientSecret, 'x-api-version': '2022-09-01' };
  // Payment webhooks would send order.paid too; the run sends its own. Settlements are not the subject here.
  runtime.sandbox.state.merchant.webhookUrl = null;
  for (const vendor_id of vendors) {
    await json(`${runtime.sandbox.url}/pg/easy-split/vendors`, { method: 'POST', headers: gateway, body: JSON.stringify({ vendor_id, name: vendor_id, email: `${vendor_id}@example.com`, phone: '9999999999', schedule_option: 14, status: 'ACTIVE' }) });
    await json(`${runtime.api.url}/vendors/${vendor_id}/policy`, { method: 'PUT', body: JSON.stringify({ scheduleOption: 14, release: { kind: 'immediate' }, actor: 'bench', reason: 'fault run' }) });
  }
  for (const order_id of orderIds) {
    await json(`${runtime.sandbox.url}/pg/orders`, { method: 'POST', headers: gateway, body: JSON.stringify({
      order_id, order_amount: 100 * vendors.length, order_currency: 'INR', customer_details: { customer_id: 'fault-run', customer_phone: '9999999999' },
      order_splits: vendors.map((vendor_id) => ({ vendor_id, amount: 100 })),
    }) });
    await json(`${runtime.sandbox.url}/_sandbox/orders/${order_id}/pay`, { method: 'POST', body: '{}' });
  }
}

/** Runs the fault run on a fresh in-memory local stack and counts, at the sandbox, every PUT of every release. */
export async function runGatewayFaults(options: FaultRunOptions): Promise<FaultRunResult> {
  const progress = options.progress ?? (() => {});
  const runtime = await startLocal({
    apiPort: 0, edgePort: 0, sandboxPort: 0, clockStart: START, frozen: true, gatewayTimeoutMs: options.gatewayTimeoutMs ?? 1_000,
  });
  try {
    const vendors = Array.from({ length: options.vendorsPerOrder }, (_, i) => `fault-v${i + 1}`);
    const orderIds = Array.from({ length: options.orders }, (_, i) => `fault-order-${i + 1}`);
    await prepare(runtime, vendors, orderIds);
    const began = performance.now();
    await json(`${runtime.sandbox.url}/_sandbox/faults`, { method: 'POST', body: JSON.stringify({
      rate: options.rate, kinds: FAULT_KINDS, seed: options.seed ?? 15, timeoutMs: options.sandboxHoldMs ?? 1_500,
    }) });
    const events = new EventBridgeClient({ endpoint: runtime.edge.url, region: 'us-east-1', credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } });
    const paidAt = (orderId: string) => runtime.sandbox.state.orders.get(orderId)!.payment_time!;
    for (let i = 0; i < orderIds.length; i += 10) {
      const out = await events.send(new PutEventsCommand({
        Entries: orderIds.slice(i, i + 10).map((orderId) => ({
          Source: 'marketplace.orders', DetailType: 'order.paid',
          Detail: JSON.stringify({ orderId, transactionTime: paidAt(orderId), vendors: vendors.map((vendorId) => ({ vendorId, amount: 100 })) }),
        })),
      }));
      if (out.FailedEntryCount) throw new Error(`PutEvents refused entries: ${JSON.stringify(out.Entries)}`);
    }
    events.destroy();
    await runtime.idle();

    const releases = orderIds.length * vendors.length;
    const states = async () => {
      const counts = new Map<string, number>();
      let confirmed = 0;
      for (const orderId of orderIds) {
        for (const release of await runtime.deps.orders.listReleases(orderId)) {
          counts.set(release.state, (counts.get(release.state) ?? 0) + 1);
          if (release.attempts.some((a) => a.confirmedFromRecon)) confirmed += 1;
        }
      }
      return { counts, confirmed, done: (counts.get('APPLIED') ?? 0) + (counts.get('SETTLED') ?? 0) };
    };
    // Retries back off (a minute doubling to 30); the clock moves on while any release is unapplied.
    let advances = 0;
    for (let now = await states(); now.done < releases && advances < (options.maxAdvances ?? 12); now = await states()) {
      progress(`fault run: ${now.done} of ${releases} releases applied; clock +30 min`);
      await json(`${runtime.edge.url}/_local/clock`, { method: 'POST', body: JSON.stringify({ advance: 'PT30M' }) });
      await runtime.idle();
      advances += 1;
    }
    const final = await states();
    const seconds = (performance.now() - began) / 1000;

    // The sandbox's own record: every processed eligibility PUT (its log) and every one that changed an eligibility.
    const { updates, applied } = await json(`${runtime.sandbox.url}/_sandbox/eligibility-updates`) as {
      updates: Array<{ order_id: string; vendor_id: string }>; applied: Array<{ order_id: string; vendor_id: string; applied: number }>;
    };
    const ours = new Set(orderIds);
    const effective = new Map<string, number>();
    for (const a of applied) if (ours.has(a.order_id)) effective.set(`${a.order_id}/${a.vendor_id}`, a.applied);
    const perRelease = orderIds.flatMap((o) => vendors.map((v) => effective.get(`${o}/${v}`) ?? 0));
    const stats = await json(`${runtime.sandbox.url}/_sandbox/stats`) as { faultsInjected: Record<string, number> };
    return {
      orders: orderIds.length, releases, faultRate: options.rate, faultKinds: [...FAULT_KINDS], faultsInjected: stats.faultsInjected,
      putsProcessed: updates.filter((u) => ours.has(u.order_id)).length,
      effectivePuts: perRelease.reduce((sum, n) => sum + n, 0),
      releasesWithEffectivePuts: {
        zero: perRelease.filter((n) => n === 0).length, one: perRelease.filter((n) => n === 1).length, twoOrMore: perRelease.filter((n) => n >= 2).length,
      },
      confirmedFromRecon: final.confirmed,
      states: Object.fromEntries(final.counts), releasesLost: releases - final.done, clockAdvances: advances,
      seconds: Math.round(seconds * 10) / 10,
    };
  } finally {
    await runtime.close();
  }
}

/** The fault run of the benchmark: 200 orders of 3 vendors, a fifth of the gateway's calls faulted. */
export function benchGatewayFaults(progress?: (line: string) => void): Promise<FaultRunResult> {
  return runGatewayFaults({ orders: 200, vendorsPerOrder: 3, rate: 0.2, seed: 15, progress });
}

export function gatewayFaultsTargets(r: FaultRunResult) {
  const once = r.releasesWithEffectivePuts.one === r.releases;
  return {
    faultRunOneEffectivePutPerRelease: { target: r.releases, measured: r.releasesWithEffectivePuts.one, met: once },
    faultRunReleasesLost: { target: 0, measured: r.releasesLost, met: r.releasesLost === 0 },
  };
}

export function gatewayFaultsLine(r: FaultRunResult): string {
  const injected = Object.entries(r.faultsInjected).map(([kind, n]) => `${kind} ${n}`).join(', ');
  return `fault run: ${r.releases} releases of ${r.orders} orders, ${Math.round(r.faultRate * 100)}% of gateway calls faulted (${injected}): `
    + `${r.putsProcessed} PUTs processed by the sandbox, ${r.effectivePuts} effective; releases with 0/1/2+ effective PUTs: `
    + `${r.releasesWithEffectivePuts.zero}/${r.releasesWithEffectivePuts.one}/${r.releasesWithEffectivePuts.twoOrMore} (target all 1); `
    + `${r.confirmedFromRecon} confirmed from the order recon, ${r.releasesLost} lost, ${r.seconds} s`;
}
