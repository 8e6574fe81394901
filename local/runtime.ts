/** The embedded default, whole in one process: shared clock, gateway sandbox, local AWS edge, Holdback's handlers and API. */
import { SharedClock } from './clock';
import { createEdge, localFunctionArn, localSchedulerRoleArn, type Edge } from './edge';
import { LOCAL_REGION } from './scheduler';
import { lambdaContext } from './lambda-context';
import { LambdaPool } from './lambda-pool';
import { createApiServer } from './api-server';
import { createSandbox, type Sandbox } from '../sandbox/app';
import { createTableInputs, DEFAULT_TABLE_NAMES, TABLE_ENV } from '../functions/adapters/dynamodb/tables';
import { buildDependencies, readRuntimeConfig, RUNTIME_ENV } from '../functions/composition-root';
import { DEFAULT_EVENT_BUS, DEFAULT_EVENT_SOURCE, GATEWAY_WEBHOOK_PATH, type HandlerName } from '../functions/routing';
import type { Dependencies, Logger } from '../functions/application/ports';
import { makeApiHandler } from '../functions/handlers/api';

export interface LocalRuntimeOptions {
  /** Ports; 0 picks a free one (tests). Defaults: the contract's, moved by their variables. */
  apiPort?: number;
  edgePort?: number;
  sandboxPort?: number;
  /** Where the shared clock starts (default: now) and whether it stands still. */
  clockStart?: Date;
  frozen?: boolean;
  /** Gateway client tuning (the bench uses it); defaults as on AWS. */
  gatewayRatePerMinute?: number;
  gatewayMaxWaitMs?: number;
  gatewayTimeoutMs?: number;
  /** Holdback's structured log (default: none, so tests and demos stay quiet). */
  logger?: Logger;
  log?: (line: string) => void;
  /** How many Lambda containers (worker threads) run the bus's and the scheduler's targets (HOLDBACK_LOCAL_CONTAINERS). */
  containers?: number;
}

/** Two containers use the second core well beside the edge, the sandbox and DynamoDB's own thread. */
const DEFAULT_CONTAINERS = 2;

export interface LocalRuntime {
  clock: SharedClock;
  sandbox: Sandbox;
  edge: Edge;
  api: { url: string; port: number };
  deps: Dependencies;
  /** Resolves when no event delivery, schedule invocation or sandbox webhook is in flight. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

function envCount(name: string, fallback: number): number {
  const text = process.env[name];
  if (!text) return fallback;
  const count = Number(text);
  if (!Number.isInteger(count) || count < 1 || count > 64) {
    throw new Error(`${name} is "${text}", not a count of Lambda containers: send a whole number from 1 to 64`);
  }
  return count;
}

function envPort(name: string, fallback: number): number {
  const text = process.env[name];
  if (!text) return fallback;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`${name} is "${text}", not a port: send a whole number from 1 to 65535 (0 picks a free one)`);
  }
  return port;
}

/** Starts everything, wired so that a new user configures nothing; if a part fails to start, the parts started are closed. */
/** How long the shared publisher waits for more events before a PutEvents; a few ms turn 2 entries a call into 10. */
const LOCAL_PUBLISH_LINGER_MS = 10;

export async function startLocal(opts: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const clock = new SharedClock({ start: opts.clockStart, frozen: opts.frozen });
  // Closed newest first; a part that failed to start must not leave the others listening (the process would not exit).
  const started: Array<() => Promise<void>> = [];
  const close = async (): Promise<void> => {
    clock.stop();
    for (const stop of started.splice(0).reverse()) await stop();
  };
  try {
    const sandbox = await createSandbox({ port: opts.sandboxPort ?? envPort('SANDBOX_PORT', 4010), clock, log: opts.log });
    started.push(() => sandbox.close());

    // The edge needs its targets before Holdback's containers can point at the edge: the targets resolve them late.
    let deps: Dependencies | undefined;
    const getDeps = (): Dependencies => {
      if (!deps) throw new Error('the local runtime is still starting');
      return deps;
    };
    let pool: LambdaPool | undefined;
    const invoke = (name: HandlerName) => (event: unknown): Promise<unknown> => {
      if (!pool) return Promise.reject(new Error('the local runtime is still starting'));
      return pool.invoke(name, event);
    };

    const eventSource = process.env.HOLDBACK_EVENT_SOURCE ?? DEFAULT_EVENT_SOURCE;
    const edge = await createEdge({
      port: opts.edgePort ?? envPort('HOLDBACK_EDGE_PORT', 4566),
      clock,
      tables: createTableInputs(DEFAULT_TABLE_NAMES),
      eventSource,
      targets: {
        orderEvents: invoke('orderEvents'),
        release: invoke('release'),
        sweep: invoke('sweep'),
      },
      log: opts.log ?? (() => undefined),
    });
    started.push(() => edge.close());

    // The production composition root, fed the variables the CDK stack would set, pointed at the edge and the sandbox.
    const config = readRuntimeConfig({
      [RUNTIME_ENV.region]: LOCAL_REGION,
      [RUNTIME_ENV.endpoint]: edge.url,
      [RUNTIME_ENV.dynamodbEndpoint]: edge.dynamodbUrl,
      [TABLE_ENV.orders]: DEFAULT_TABLE_NAMES.orders,
      [TABLE_ENV.config]: DEFAULT_TABLE_NAMES.config,
      [TABLE_ENV.rejected]: DEFAULT_TABLE_NAMES.rejected,
      [RUNTIME_ENV.eventBus]: process.env.HOLDBACK_EVENT_BUS ?? DEFAULT_EVENT_BUS,
      [RUNTIME_ENV.eventSource]: eventSource,
      [RUNTIME_ENV.gatewayBaseUrl]: sandbox.url,
      [RUNTIME_ENV.gatewayClientId]: sandbox.context.config.clientId,
      [RUNTIME_ENV.gatewayClientSecret]: sandbox.context.config.clientSecret,
      [RUNTIME_ENV.gatewayRatePerMinute]: String(opts.gatewayRatePerMinute ?? 600),
      [RUNTIME_ENV.gatewayMaxWaitMs]: opts.gatewayMaxWaitMs === undefined ? undefined : String(opts.gatewayMaxWaitMs),
      [RUNTIME_ENV.gatewayTimeoutMs]: opts.gatewayTimeoutMs === undefined ? undefined : String(opts.gatewayTimeoutMs),
      [RUNTIME_ENV.releaseFunctionArn]: localFunctionArn('release'),
      [RUNTIME_ENV.schedulerRoleArn]: localSchedulerRoleArn(),
      // The local edge serves this queue (the one send path, issue 9); until it does, nothing enqueues.
      [RUNTIME_ENV.releaseQueueUrl]: `${edge.url}/000000000000/holdback-releases`,
    });
    // The API's dependencies on this thread; the bus's and the scheduler's targets run in containers built alike.
    // Its publisher serves every container too (their events go out through it), so it waits a little to fill each call.
    deps = buildDependencies(config, { clock: { now: () => clock.now() }, logger: opts.logger ?? silentLogger, publishLingerMs: LOCAL_PUBLISH_LINGER_MS });
    const containers = new LambdaPool({
      size: opts.containers ?? envCount('HOLDBACK_LOCAL_CONTAINERS', DEFAULT_CONTAINERS),
      config, clock, publisher: () => getDeps().publisher, logger: opts.logger,
    });
    started.push(() => containers.close());
    await containers.ready();
    pool = containers;

    const apiHandler = makeApiHandler(getDeps);
    const api = await createApiServer({
      port: opts.apiPort ?? envPort('HOLDBACK_API_PORT', 4000),
      handler: (event) => apiHandler(event, lambdaContext('holdback-api')) as never,
    });
    started.push(() => api.close());
    // The gateway's settlement webhooks come back to Holdback's receiver, as they would from the real gateway.
    sandbox.state.merchant.webhookUrl = `${api.url}${GATEWAY_WEBHOOK_PATH}`;

    // Deliveries start webhooks (through the gateway) and webhooks start deliveries (through Holdback's API). A round
    // waits for the edge, then the webhooks; any delivery a webhook started is still in flight when the webhook ends,
    // so an edge that is quiet right after the webhooks went quiet means the chain has ended, however long it was.
    const idle = async (): Promise<void> => {
      do {
        await edge.idle();
        await sandbox.webhooks.idle();
      } while (edge.busy());
    };
    // Each fired timer (a release schedule, a sandbox settlement) settles the same way before the next one fires.
    clock.settle = idle;
    clock.start();
    return { clock, sandbox, edge, api, deps: getDeps(), idle, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}
