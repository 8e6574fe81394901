/** The embedded default, whole in one process: shared clock, gateway sandbox, local AWS edge, Holdback's handlers and API. */
import { SharedClock, clockFile, resumedClock } from './clock';
import { openDataFolder, type DataFolder } from './data-folder';
import { localAuditKeyFile } from './audit-key-file';
import { checkDataFolder, DataDamaged, recordContents } from './data-check';
import { refuseFetchBlockedPort } from './ports';
import { createEdge, localSchedulerRoleArn, type Edge } from './edge/edge';
import type { DeliveryPolicy, UndeliverableEvent } from './edge/bus';
import { TargetNotReady } from './edge/in-flight';
import { apiFirst } from './edge/dynamodb';
import { GATEWAY_ZONE } from '../functions/domain/dates';
import { Instant } from '../functions/domain/instant';
import { LOCAL_FUNCTION_NAMES, LOCAL_REGION } from './edge/scheduler';
import { lambdaContext } from './lambda/lambda-context';
import { LambdaPool, countInvocation, noUsage, type InvocationUsage } from './lambda/lambda-pool';
import { createApiServer } from './api-server';
import { createSandbox, type Sandbox } from '../sandbox/app';
import { createTableInputs, DEFAULT_TABLE_NAMES, TABLE_ENV } from '../functions/definitions/tables';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DocumentClient } from '../functions/adapters/dynamodb/document-client';
import { armConfigStamp } from '../functions/adapters/dynamodb/config-stamp';
import { buildDependencies, readRuntimeConfig, RUNTIME_ENV } from '../functions/composition-root';
import { loadClientHook } from './lambda/client-hook';
import { DEFAULT_EVENT_BUS, DEFAULT_EVENT_SOURCE, GATEWAY_WEBHOOK_PATH, EXPORT_JOB_QUEUE, JOB_QUEUE, LOCAL_FUNCTIONS_ACCESS_KEY, RELEASE_QUEUE, type HandlerName } from '../functions/definitions/routing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dependencies, Logger } from '../functions/application/ports';
import { makeApiHandler } from '../functions/handlers/api-functions';

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
  /** Open releases a preview covers in its answer at most, above which it is a job (HOLDBACK_PREVIEW_INLINE_RELEASES). */
  previewInlineReleases?: number;
  /** Signed audit records GET /audit/verify checks in its answer at most, above which it is a job (HOLDBACK_AUDIT_VERIFY_INLINE_RECORDS). */
  auditVerifyInlineRecords?: number;
  /** Rows an outcomes export writes a step (HOLDBACK_EXPORT_PART_ROWS). */
  exportPartRows?: number;
  /** Holdback's structured log (default: none, so tests and demos stay quiet). */
  logger?: Logger;
  log?: (line: string) => void;
  /** How many Lambda containers (worker threads) run the bus's and the scheduler's targets (HOLDBACK_LOCAL_CONTAINERS). */
  containers?: number;
  /**
   * Keep everything in this data folder and carry on from it after a restart (`npm start` uses `.holdback/`); without
   * it everything lives in memory (tests, the demo, the bench). `fresh` empties the folder first.
   */
  dataDir?: string;
  fresh?: boolean;
  /** Mend a damaged data folder instead of refusing it: what can be kept is kept, what was lost is logged. */
  repair?: boolean;
  /** How long a stop waits for in-flight work before handing it back (default 10 s with a data folder, else 0). */
  drainMs?: number;
  /**
   * Run these handlers from deployed bundles (the cloud assembly's esbuild output) instead of the TypeScript sources,
   * with the environment this runtime builds; the bundles read the system clock, so start the clock at the real now.
   */
  bundles?: Partial<Record<HandlerName, string>>;
  /** How the bus tries a failing target again (default: EventBridge's 185 tries over 24 hours; tests shorten it). */
  delivery?: Partial<DeliveryPolicy>;
  /**
   * A module whose `clientHook` export (see ClientHook in the composition root) is given every SDK client this runtime
   * and its containers build: the bench's call meter. A path, since each container loads it on its own thread.
   */
  clientHook?: string;
}

/** What the API answers while the runtime starts: a 503 to try again shortly, never a failure. */
const STARTING_ANSWER = {
  statusCode: 503,
  headers: { 'content-type': 'application/json', 'retry-after': '1' },
  body: JSON.stringify({ error: { code: 'starting', message: 'Holdback is still starting (its functions are being set up); try again in a second' } }),
};

/** Two containers use the second core well beside the edge, the sandbox and DynamoDB's own thread. */
const DEFAULT_CONTAINERS = 2;

export interface LocalRuntime {
  clock: SharedClock;
  sandbox: Sandbox;
  edge: Edge;
  api: { url: string; port: number };
  deps: Dependencies;
  /** The data folder's paths, when the runtime keeps its state on disk. */
  dataFolder: DataFolder | null;
  /** Lambda invocations per handler and their durations since the start (the bench's bill). */
  lambdaUsage: LambdaPool['usage'];
  /** The same for the api function (API Gateway's requests), which runs on this thread. */
  apiUsage: InvocationUsage;
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
  refuseFetchBlockedPort(name, port);
  return port;
}

/** Starts everything, wired so that a new user configures nothing; if a part fails to start, the parts started are closed. */
/** How long the shared publisher waits for more events before a PutEvents; a few ms turn 2 entries a call into 10. */
const LOCAL_PUBLISH_LINGER_MS = 10;

/** Long enough for a send that waits out a gateway answer; then the rest is handed back (see `close`). */
const DEFAULT_DRAIN_MS = 10_000;
/** How often a running clock's instant is saved, so that a restart resumes close to where it stopped. */
const CLOCK_SAVE_EVERY_MS = 1_000;

export async function startLocal(opts: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  // Every port is checked before anything starts, so a refused one names its variable and leaves nothing running.
  const ports = {
    sandbox: opts.sandboxPort ?? envPort('SANDBOX_PORT', 4010),
    edge: opts.edgePort ?? envPort('HOLDBACK_EDGE_PORT', 4566),
    api: opts.apiPort ?? envPort('HOLDBACK_API_PORT', 4000),
  };
  const log = opts.log ?? (() => undefined);
  const data = opts.dataDir === undefined ? null : openDataFolder(opts.dataDir, { fresh: opts.fresh });
  const folder = data?.folder ?? null;
  // Every file is checked before a part opens one: a damaged one is refused, naming it (or mended with `repair`).
  if (folder) {
    try {
      for (const line of await checkDataFolder(folder, { repair: opts.repair })) log(`data folder: ${line}`);
    } catch (error) {
      data?.release();
      if (error instanceof DataDamaged) throw new DataDamaged(`Holdback did not start: ${error.message}`);
      throw error;
    }
  }
  const clockStart = folder ? resumedClock(folder.clock, { start: opts.clockStart, frozen: opts.frozen }) : { start: opts.clockStart, frozen: opts.frozen };
  const clock = new SharedClock(clockStart);
  const clockSaves = folder ? clockFile(folder.clock, clock) : null;
  let clockSaver: NodeJS.Timeout | null = null;
  if (clockSaves) {
    clock.moved = () => clockSaves.save();
    if (!clock.frozen) {
      clockSaver = setInterval(() => void clockSaves.save().catch(() => undefined), CLOCK_SAVE_EVERY_MS);
      clockSaver.unref();
    }
  }
  // Closed newest first; a part that failed to start must not leave the others listening (the process would not exit).
  const started: Array<() => Promise<void>> = [];
  let running: { pool: LambdaPool; idle: () => Promise<void> } | null = null;
  const close = async (): Promise<void> => {
    clock.stop();
    if (clockSaver) clearInterval(clockSaver);
    // In memory (tests, the demo, the bench) nothing outlives the stop, so nothing is waited for unless asked.
    const drainMs = opts.drainMs ?? (folder ? DEFAULT_DRAIN_MS : 0);
    if (running && drainMs > 0) await drain(running, drainMs, log, folder !== null);
    running = null;
    for (const stop of started.splice(0).reverse()) await stop();
    await clockSaves?.save().catch(() => undefined);
    data?.release();
  };
  try {
    const sandbox = await createSandbox({ port: ports.sandbox, clock, log: opts.log, dataFolder: folder?.sandbox });
    started.push(() => sandbox.close());
    // Payments made while Holdback starts are webhooks for it too: on a known port its receiver's address is set before
    // the sandbox serves a request, and they are delivered once the API listens (an ephemeral port is set below).
    if (ports.api !== 0) sandbox.state.merchant.webhookUrl = `http://127.0.0.1:${ports.api}${GATEWAY_WEBHOOK_PATH}`;

    // The edge needs its targets before Holdback's containers can point at the edge: the targets resolve them late.
    let deps: Dependencies | undefined;
    const getDeps = (): Dependencies => {
      if (!deps) throw new TargetNotReady('the local runtime is still starting');
      return deps;
    };
    let pool: LambdaPool | undefined;
    // Until the containers are up, the edge's targets are not ready: the bus, the scheduler and the queue wait for them.
    const invoke = (name: HandlerName) => (event: unknown, environment?: number): Promise<unknown> => {
      if (!pool) return Promise.reject(new TargetNotReady('the local runtime is still starting'));
      return pool.invoke(name, event, environment);
    };

    const auditKey = localAuditKeyFile(folder);
    started.push(async () => auditKey.remove());
    const eventSource = process.env.HOLDBACK_EVENT_SOURCE ?? DEFAULT_EVENT_SOURCE;
    const edge = await createEdge({
      port: ports.edge,
      dataFolder: folder ?? undefined,
      clock,
      tables: createTableInputs(DEFAULT_TABLE_NAMES),
      eventSource,
      targets: {
        orderEvents: invoke('orderEvents'),
        release: invoke('release'),
        sweep: invoke('sweep'),
        jobs: invoke('jobs'),
        exportJobs: invoke('exportJobs'),
      },
      log: opts.log ?? (() => undefined),
      delivery: opts.delivery,
      onUndeliverable: (event) => listUndeliverable(getDeps(), event),
    });
    started.push(() => edge.close());
    // One process, every function of this version: no older writer can change the config beside it (config-stamp.ts).
    const stampClient = new DynamoDBClient({ endpoint: edge.dynamodbUrl, region: LOCAL_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await armConfigStamp(new DocumentClient(stampClient), DEFAULT_TABLE_NAMES.config).finally(() => stampClient.destroy());

    // The API listens before the containers are built: export links name its address. It answers once they are ready.
    let apiHandler: ReturnType<typeof makeApiHandler> | null = null;
    const apiUsage = noUsage();
    const api = await createApiServer({
      port: ports.api,
      handler: async (event) => {
        const began = performance.now();
        try {
          // Listening already (export links name this address), answering once the containers are ready.
          if (!apiHandler) return STARTING_ANSWER as never;
          return await apiHandler(event, lambdaContext('holdback-api')) as never;
        } finally {
          countInvocation(apiUsage, began);
        }
      },
    });
    started.push(() => api.close());
    // Export files: in the data folder, or in a temporary folder removed at the stop (memory mode).
    const exportDir = folder ? join(folder.root, 'exports') : mkdtempSync(join(tmpdir(), 'holdback-exports-'));
    if (!folder) started.push(async () => rmSync(exportDir, { recursive: true, force: true }));

    // The production composition root, fed the variables the CDK stack would set, pointed at the edge and the sandbox.
    const environment: Record<string, string | undefined> = {
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
      [RUNTIME_ENV.previewInlineReleases]: opts.previewInlineReleases === undefined ? process.env[RUNTIME_ENV.previewInlineReleases] : String(opts.previewInlineReleases),
      [RUNTIME_ENV.auditVerifyInlineRecords]: opts.auditVerifyInlineRecords === undefined ? process.env[RUNTIME_ENV.auditVerifyInlineRecords] : String(opts.auditVerifyInlineRecords),
      [RUNTIME_ENV.exportPartRows]: opts.exportPartRows === undefined ? process.env[RUNTIME_ENV.exportPartRows] : String(opts.exportPartRows),
      [RUNTIME_ENV.releaseQueueArn]: edge.queues.arn(RELEASE_QUEUE.name),
      [RUNTIME_ENV.schedulerRoleArn]: localSchedulerRoleArn(),
      // The one send path: order events, the sweep and the schedules all put due releases on the edge's queue.
      [RUNTIME_ENV.releaseQueueUrl]: edge.queues.queueUrl(RELEASE_QUEUE.name),
      [RUNTIME_ENV.jobQueueUrl]: edge.queues.queueUrl(JOB_QUEUE.name),
      [RUNTIME_ENV.exportJobQueueUrl]: edge.queues.queueUrl(EXPORT_JOB_QUEUE.name),
      [RUNTIME_ENV.exportDir]: exportDir,
      [RUNTIME_ENV.exportBaseUrl]: api.url,
      [RUNTIME_ENV.auditKeyFile]: auditKey.file,
    };
    const config = readRuntimeConfig(environment);
    // The API's dependencies on this thread; the bus's and the scheduler's targets run in containers built alike.
    // Its publisher serves every container too (their events go out through it), so it waits a little to fill each call.
    deps = buildDependencies(config, {
      clock: { now: () => Instant.withOffset(clock.nowMs(), 0) }, logger: opts.logger ?? silentLogger, publishLingerMs: LOCAL_PUBLISH_LINGER_MS, sendsToGateway: false,
      // The API's DynamoDB calls go first at the local DynamoDB's one thread, as on AWS they wait for no job's.
      wrapClient: apiFirst(opts.clientHook ? loadClientHook(opts.clientHook) : undefined),
    });
    const containers = new LambdaPool({
      size: opts.containers ?? envCount('HOLDBACK_LOCAL_CONTAINERS', DEFAULT_CONTAINERS),
      config, clock, publisher: () => getDeps().publisher, logger: opts.logger, clientHook: opts.clientHook,
      dynamodbChannel: () => edge.dynamodbChannel(), edgeChannel: () => edge.channel(),
      // A bundle builds its own clients from process.env, as on Lambda: it signs as Holdback's functions (the local
      // bus policy's name for them), whatever credentials the shell holds.
      ...(opts.bundles ? { bundles: opts.bundles, environment: { ...definedOnly(environment), AWS_ACCESS_KEY_ID: LOCAL_FUNCTIONS_ACCESS_KEY, AWS_SECRET_ACCESS_KEY: 'local' } } : {}),
    });
    started.push(() => containers.close());
    await containers.ready();
    pool = containers;

    apiHandler = makeApiHandler(getDeps);
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
    running = { pool: containers, idle };
    // Everything listens now: what waited for the start runs (events and webhooks sent meanwhile), and what was kept
    // before a restart too (due schedules fire, events and webhooks are delivered).
    const kept = { ...sandbox.resume(), ...edge.resume() };
    if (folder) {
      log(`data folder ${folder.root}: resumed ${kept.schedules} schedules, ${kept.events} undelivered events, ${kept.settlements} pending settlements, ${kept.webhooks} undelivered webhooks; clock at ${clock.now().toISO()}${clock.frozen ? ' (frozen)' : ''}`);
      await clockSaves?.save();
      recordContents(folder);
    }
    clock.start();
    return { clock, sandbox, edge, api, deps: getDeps(), dataFolder: folder, lambdaUsage: containers.usage, apiUsage, idle, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/**
 * A stop lets the work in flight (event deliveries, schedule invocations and the gateway sends they make, sandbox
 * webhooks) finish for up to `drainMs`, and says so. What is still running then is handed back: with a data folder,
 * its event or schedule is still kept and runs again at the next start, and a release claimed for sending is re-driven
 * by the sweep; without one it is dropped with the memory.
 */
async function drain(
  running: { pool: LambdaPool; idle: () => Promise<void> },
  drainMs: number,
  log: (line: string) => void,
  kept: boolean,
): Promise<void> {
  const busy = running.pool.running;
  if (busy > 0) log(`stopping: waiting up to ${drainMs / 1000} s for ${busy} invocation${busy === 1 ? '' : 's'} in flight`);
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    running.idle().then(() => true),
    new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), drainMs); }),
  ]);
  clearTimeout(timer);
  const left = running.pool.running;
  if (finished || left === 0) {
    log('stopping: no work in flight; every send finished');
  } else {
    log(`stopping: ${left} invocation${left === 1 ? '' : 's'} still in flight after ${drainMs / 1000} s handed back: ${kept
      ? 'their events and schedules are kept in the data folder and run again at the next start; a release claimed for sending is re-driven by the sweep'
      : 'no data folder, so they end with the process'}`);
  }
}

/**
 * An event the order-events function never took, after EventBridge's tries (24 hours): listed in GET /rejected-events
 * with why and what to do, as on AWS it would wait in the order-events dead-letter queue; never dropped in silence.
 */
async function listUndeliverable(deps: Dependencies, event: UndeliverableEvent): Promise<void> {
  const hours = (event.triedForMs / 3_600_000).toFixed(1);
  await deps.rejected.add({
    id: event.envelope.id,
    at: deps.clock.now().in(GATEWAY_ZONE).wholeSecond(),
    source: event.envelope.source,
    detailType: event.envelope['detail-type'],
    reasons: [
      `not delivered: the ${LOCAL_FUNCTION_NAMES[event.target]} function failed ${event.attempts} times over ${hours} h (last error: ${event.message}); nothing of it was applied. Put the event on the bus again once the cause is mended`,
    ],
    detail: event.envelope.detail,
  });
}

/** The variables that are set (a bundle's process.env has no undefined values). */
function definedOnly(environment: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(environment).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
