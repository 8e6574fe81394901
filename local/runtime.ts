/** The embedded default, whole in one process: shared clock, gateway sandbox, local AWS edge, Holdback's handlers and API. */
import type { Context } from 'aws-lambda';
import { SharedClock } from './clock';
import { createEdge, localFunctionArn, localSchedulerRoleArn, type Edge } from './edge';
import { createApiServer } from './api-server';
import { createSandbox, type Sandbox } from '../sandbox/app';
import { createTableInputs, DEFAULT_TABLE_NAMES, TABLE_ENV } from '../functions/adapters/dynamodb/tables';
import { buildDependencies, readRuntimeConfig, RUNTIME_ENV } from '../functions/composition-root';
import { DEFAULT_EVENT_BUS, DEFAULT_EVENT_SOURCE, type HandlerName } from '../functions/routing';
import type { Dependencies, Logger } from '../functions/application/ports';
import { makeOrderEventsHandler } from '../functions/handlers/order-events';
import { makeReleaseHandler } from '../functions/handlers/release';
import { makeSweepHandler } from '../functions/handlers/sweep';
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
}

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

/** A Lambda context for in-process invocations; middy only reads a few fields. */
function lambdaContext(name: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: localFunctionArn(name as HandlerName),
    memoryLimitInMB: '1024',
    awsRequestId: `local-${Date.now().toString(36)}`,
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 900_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function envPort(name: string, fallback: number): number {
  const text = process.env[name];
  return text ? Number(text) : fallback;
}

/** Starts everything, wired so that a new user configures nothing. */
export async function startLocal(opts: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const clock = new SharedClock({ start: opts.clockStart, frozen: opts.frozen });
  const sandbox = await createSandbox({ port: opts.sandboxPort ?? envPort('SANDBOX_PORT', 4010), clock, log: opts.log });
  // A settlement timer's webhooks finish before the next timer fires (the edge adds its own deliveries to this).
  clock.settle = () => sandbox.webhooks.idle();

  // The edge needs its targets before Holdback's dependencies can point at the edge: the targets resolve them late.
  let deps: Dependencies | undefined;
  const getDeps = (): Dependencies => {
    if (!deps) throw new Error('the local runtime is still starting');
    return deps;
  };
  const orderEvents = makeOrderEventsHandler(getDeps);
  const release = makeReleaseHandler(getDeps);
  const sweep = makeSweepHandler(getDeps);
  const invoke = (name: string, handler: (event: never, context: Context) => Promise<unknown>) =>
    (event: unknown) => handler(event as never, lambdaContext(name));

  const eventSource = process.env.HOLDBACK_EVENT_SOURCE ?? DEFAULT_EVENT_SOURCE;
  const edge = await createEdge({
    port: opts.edgePort ?? envPort('HOLDBACK_EDGE_PORT', 4566),
    clock,
    tables: createTableInputs(DEFAULT_TABLE_NAMES),
    eventSource,
    targets: {
      orderEvents: invoke('holdback-order-events', orderEvents),
      release: invoke('holdback-release', release),
      sweep: invoke('holdback-sweep', sweep),
    },
    log: opts.log ?? (() => undefined),
  });

  // The production composition root, fed the variables the CDK stack would set, pointed at the edge and the sandbox.
  const config = readRuntimeConfig({
    [RUNTIME_ENV.region]: 'us-east-1',
    [RUNTIME_ENV.endpoint]: edge.url,
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
  });
  deps = buildDependencies(config, { clock: { now: () => clock.now() }, logger: opts.logger ?? silentLogger });

  const apiHandler = makeApiHandler(getDeps);
  const api = await createApiServer({
    port: opts.apiPort ?? envPort('HOLDBACK_API_PORT', 4000),
    handler: (event) => apiHandler(event, lambdaContext('holdback-api')) as never,
  });
  // The gateway's settlement webhooks come back to Holdback's receiver, as they would from the real gateway.
  sandbox.state.merchant.webhookUrl = `${api.url}/webhooks/gateway`;
  clock.start();

  const idle = async (): Promise<void> => {
    // Deliveries can start webhooks and webhooks can start deliveries: settle until both are quiet.
    for (let i = 0; i < 10; i += 1) {
      await edge.idle();
      await sandbox.webhooks.idle();
      await edge.idle();
    }
  };
  return {
    clock, sandbox, edge, api, deps: getDeps(), idle,
    close: async () => {
      clock.stop();
      await api.close();
      await edge.close();
      await sandbox.close();
    },
  };
}
