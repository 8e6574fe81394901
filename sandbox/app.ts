/** Builds and starts the gateway sandbox: one HTTP server serving both {base_url} (/pg) and {vendor_base_url} (/api/v2). */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { realTimeClock, type SandboxClock } from './clock';
import { Router, type SandboxConfig, type SandboxContext, type SandboxRouteModule } from './http';
import { createState, type SandboxState } from './state';
import { createWebhookSender, type WebhookOptions, type WebhookSender } from './webhooks';
import { registerFaults } from './faults';
import { registerOrders } from './orders';
import { registerVendors } from './vendors';
import { registerEligibility } from './eligibility';
import { registerControls } from './controls';
import { armSettlement, cancelSettlementTimers } from './settlement';
import { loadState, stateFile } from './persistence';
import registerPayments from './payments/index';

export interface SandboxOptions {
  port?: number;
  host?: '127.0.0.1';
  clientId?: string;
  clientSecret?: string;
  clock?: SandboxClock;
  log?: (line: string) => void;
  webhooks?: WebhookOptions;
  /** Keep the state in this folder (the embedded default's data folder): loaded at start, saved before each answer. */
  dataFolder?: string;
}

export interface Sandbox {
  url: string;
  port: number;
  state: SandboxState;
  /** What route modules receive; handy for tests and for the embedded default (e.g. webhooks.idle()). */
  context: SandboxContext;
  webhooks: WebhookSender;
  /**
   * Once whoever receives its webhooks listens (after a start, or a restart on a data folder): arms the settlement of
   * every pending vendor, sends at once the webhooks waiting for a later try, and delivers again those kept PENDING.
   */
  resume(): { settlements: number; webhooks: number };
  close(): Promise<void>;
}

/** The sandbox's public test credentials (not secrets of any real account). */
export const DEFAULT_CLIENT_ID = 'sandbox_client_id';
export const DEFAULT_CLIENT_SECRET = 'sandbox_client_secret';

/** How often the state is saved besides after each changing request: settlements and webhooks change it on timers. */
const SAVE_EVERY_MS = 2_000;

/** Faults first (a faulted request must never reach processing), then the core modules, then payments. */
const MODULES: SandboxRouteModule[] = [registerFaults, registerOrders, registerVendors, registerEligibility, registerControls, registerPayments];

export async function createSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const state = createState();
  if (opts.dataFolder) loadState(state, opts.dataFolder);
  const clock = opts.clock ?? realTimeClock();
  const config: SandboxConfig = {
    clientId: opts.clientId ?? process.env.SANDBOX_CLIENT_ID ?? DEFAULT_CLIENT_ID,
    clientSecret: opts.clientSecret ?? process.env.SANDBOX_CLIENT_SECRET ?? DEFAULT_CLIENT_SECRET,
    baseUrl: '',
    log: opts.log ?? (() => undefined),
  };
  const webhooks = createWebhookSender({ state, clock, secret: () => config.clientSecret, log: config.log }, opts.webhooks);
  const context: SandboxContext = { state, clock, config, webhooks };
  const router = new Router();
  for (const register of MODULES) register(router, context);
  const snapshot = opts.dataFolder ? stateFile(state, opts.dataFolder) : null;
  let saver: NodeJS.Timeout | null = null;
  if (snapshot) {
    // A changing request is answered only once the state it changed is on disk.
    router.commit = (request) => (request.method === 'GET' ? Promise.resolve() : snapshot.save());
    // Timers (settlements, webhooks) change records they hold, not reached through the state's maps: made again in whole.
    saver = setInterval(() => {
      snapshot.saveAll().catch((error: unknown) => config.log(`sandbox: saving the state failed: ${String(error)}`));
    }, SAVE_EVERY_MS);
    saver.unref();
    // On disk from the start, so that the data folder's list of files (local/data-check.ts) has it from the first start.
    await snapshot.save();
  }

  const server = createServer((req, res) => { void router.handle(req, res); });
  const host = opts.host ?? '127.0.0.1';
  const port = opts.port ?? Number(process.env.SANDBOX_PORT ?? 4010);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => { server.off('error', reject); resolve(); });
  });
  const bound = (server.address() as AddressInfo).port;
  config.baseUrl = `http://${host}:${bound}`;
  config.log(`gateway sandbox listening on ${config.baseUrl}`);

  return {
    url: config.baseUrl,
    port: bound,
    state,
    context,
    webhooks,
    resume: () => {
      let settlements = 0;
      for (const record of state.settlements.values()) {
        if (record.status !== 'PENDING') continue;
        armSettlement(context, record);
        settlements += 1;
      }
      return { settlements, webhooks: webhooks.resume() };
    },
    close: async () => {
      if (saver) clearInterval(saver);
      cancelSettlementTimers(state);
      webhooks.cancelAll();
      await snapshot?.saveAll().catch((error: unknown) => config.log(`sandbox: saving the state failed: ${String(error)}`));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
