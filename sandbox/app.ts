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
import { cancelSettlementTimers } from './settlement';
import registerPayments from './payments/index';

export interface SandboxOptions {
  port?: number;
  host?: '127.0.0.1';
  clientId?: string;
  clientSecret?: string;
  clock?: SandboxClock;
  log?: (line: string) => void;
  webhooks?: WebhookOptions;
}

export interface Sandbox {
  url: string;
  port: number;
  state: SandboxState;
  /** What route modules receive; handy for tests and for the embedded default (e.g. webhooks.idle()). */
  context: SandboxContext;
  webhooks: WebhookSender;
  close(): Promise<void>;
}

/** The sandbox's public test credentials (not secrets of any real account). */
export const DEFAULT_CLIENT_ID = 'sandbox_client_id';
export const DEFAULT_CLIENT_SECRET = 'sandbox_client_secret';

/** Faults first (a faulted request must never reach processing), then the core modules, then payments. */
const MODULES: SandboxRouteModule[] = [registerFaults, registerOrders, registerVendors, registerEligibility, registerControls, registerPayments];

export async function createSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const state = createState();
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
    close: async () => {
      cancelSettlementTimers(state);
      webhooks.cancelAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
