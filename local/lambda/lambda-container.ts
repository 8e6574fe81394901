/**
 * One local Lambda container on a worker thread: its own composition root and SDK clients, talking to the edge over
 * HTTP as on AWS, invoked by the runtime for the bus's and the scheduler's targets.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Instant } from '../../functions/domain/instant';
import type { Context } from 'aws-lambda';
import { composeDependencies, type AwsAdapters } from '../../functions/composition/compose';
import { adapters as orderEventsAdapters } from '../../functions/composition/order-events';
import { adapters as releaseAdapters } from '../../functions/composition/release';
import { adapters as sweepAdapters } from '../../functions/composition/sweep';
import { adapters as jobsAdapters } from '../../functions/composition/jobs';
import { adapters as exportJobsAdapters } from '../../functions/composition/export-jobs';
import type { HandlerName } from '../../functions/definitions/routing';
import type { Dependencies, EventPublisher, Logger } from '../../functions/application/ports';
import { makeOrderEventsHandler } from '../../functions/handlers/order-events';
import { makeReleaseHandler } from '../../functions/handlers/release';
import { makeSweepHandler } from '../../functions/handlers/sweep';
import { makeJobsHandler } from '../../functions/handlers/jobs';
import { makeExportJobsHandler } from '../../functions/handlers/export-jobs';
import { sharedClockReader } from '../clock';
import { lambdaContext } from './lambda-context';
import type { ContainerData, FromContainer, ToContainer } from './lambda-messages';
import { LOCAL_FUNCTION_NAMES } from '../edge/scheduler';
import { loadClientHook } from './client-hook';
import { dynamoOverChannel } from './dynamo-channel';
import { edgeOverChannel } from './edge-channel';

const port = parentPort;
if (!port) throw new Error('lambda-container runs on a worker thread started by the local runtime');
const data = workerData as ContainerData;
const post = (message: FromContainer): void => port.postMessage(message);

const nowMs = sharedClockReader(data.clock);

const logger: Logger = data.log
  ? {
    info: (message, fields) => post({ kind: 'log', level: 'info', message, fields }),
    warn: (message, fields) => post({ kind: 'log', level: 'warn', message, fields }),
    error: (message, fields) => post({ kind: 'log', level: 'error', message, fields }),
  }
  : { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Events go out through the runtime's own publisher (the production EventBridge adapter on the runtime's thread, over
 * HTTP to the edge): one publisher sees every event, so concurrent releases of all containers share PutEvents calls,
 * and `runtime.deps.publisher` observes what Holdback emits.
 */
const waitingForPublish = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
let nextPublishId = 0;
function relay(method: 'publish' | 'publishOrderEvent', args: unknown[]): Promise<void> {
  const id = nextPublishId++;
  return new Promise((resolve, reject) => {
    waitingForPublish.set(id, { resolve, reject });
    post({ kind: 'publish', id, method, args });
  });
}
const publisher: EventPublisher = {
  publish: (events) => relay('publish', [events]),
  publishOrderEvent: (detailType, detail) => relay('publishOrderEvent', [detailType, detail]),
};

const hook = data.clientHook ? loadClientHook(data.clientHook) : undefined;
// DynamoDB over a port to dynalite's thread, and Scheduler, EventBridge and SQS over a port to the edge, when the
// runtime gave them (see dynamo-channel.ts, edge-channel.ts); everything else over HTTP.
const edgeOrigin = data.config.aws.endpoint ? new URL(data.config.aws.endpoint).origin : null;
const toEdge = data.edgeChannel && edgeOrigin ? edgeOverChannel(data.edgeChannel, edgeOrigin, hook) : hook;
const wrapClient = data.dynamodbChannel ? dynamoOverChannel(data.dynamodbChannel, toEdge) : toEdge;

/**
 * A function's own composition, as its Lambda container builds it (functions/composition/<function>.ts: only the
 * adapters its bundle carries, so a use of one it lacks fails here as on AWS); only the release function's may send to
 * the gateway. Its events are relayed to the runtime's publisher, where its composition publishes at all.
 */
function dependencies(functionName: string, adapters: AwsAdapters, sendsToGateway: boolean): Dependencies {
  const clock = { now: () => Instant.withOffset(nowMs(), 0) };
  const built = composeDependencies(data.config, adapters, functionName, { clock, logger, sendsToGateway, wrapClient });
  return adapters.publisher ? { ...built, publisher } : built;
}
type Handler = (event: never, context: Context) => Promise<unknown>;
// A deployed bundle reads its configuration from process.env, as on Lambda (this thread's copy of it).
if (data.environment) Object.assign(process.env, data.environment);

/**
 * The handler a deployed bundle exports. Each load is a fresh module instance (the bundle keeps its composition root
 * at module level), as each Lambda execution environment loads the bundle anew.
 */
function loadBundle(file: string): Handler {
  delete require.cache[require.resolve(file)];
  const { handler } = require(file) as { handler?: unknown };
  if (typeof handler !== 'function') throw new Error(`the bundle ${file} exports no handler function`);
  return handler as Handler;
}
/** A handler made at its first invocation, with its dependencies then (as Lambda builds them at a cold start). */
function lazyHandler(make: () => Handler): Handler {
  let made: Handler | null = null;
  return (event, context) => (made ??= make())(event, context);
}
const bundle = (name: HandlerName): Handler | null => {
  const file = data.bundles?.[name];
  return file ? loadBundle(file) : null;
};
const handlers: Record<HandlerName, Handler> = {
  orderEvents: bundle('orderEvents') ?? lazyHandler(() => makeOrderEventsHandler(() => dependencies('order-events', orderEventsAdapters, false))),
  release: bundle('release') ?? lazyHandler(() => makeReleaseHandler(() => dependencies('release', releaseAdapters, true))),
  sweep: bundle('sweep') ?? lazyHandler(() => makeSweepHandler(() => dependencies('sweep', sweepAdapters, false))),
  jobs: bundle('jobs') ?? lazyHandler(() => makeJobsHandler(() => dependencies('jobs', jobsAdapters, false))),
  exportJobs: bundle('exportJobs') ?? lazyHandler(() => makeExportJobsHandler(() => dependencies('export-jobs', exportJobsAdapters, false))),
};
/**
 * The release function's execution environments this container hosts, each built as a Lambda container would be: its
 * own composition root, so its own gateway client and rate limiter (the gateway's rate / the maximum concurrency).
 */
const releaseEnvironments = new Map<number, Handler>();
function handlerFor(name: HandlerName, environment: number | undefined): Handler {
  if (name !== 'release' || environment === undefined) return handlers[name];
  let handler = releaseEnvironments.get(environment);
  if (!handler) {
    const own = dependencies('release', releaseAdapters, true);
    handler = bundle('release') ?? makeReleaseHandler(() => own);
    releaseEnvironments.set(environment, handler);
  }
  return handler;
}

async function invoke(id: number, name: HandlerName, event: unknown, environment: number | undefined): Promise<void> {
  try {
    const value = await handlerFor(name, environment)(event as never, lambdaContext(LOCAL_FUNCTION_NAMES[name]));
    post({ kind: 'result', id, value });
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    post({ kind: 'failed', id, message: failure.message, stack: failure.stack });
  }
}

port.on('message', (message: ToContainer) => {
  if (message.kind === 'invoke') {
    void invoke(message.id, message.name, message.event, message.environment);
    return;
  }
  const waiting = waitingForPublish.get(message.id);
  waitingForPublish.delete(message.id);
  if (!waiting) return;
  if (message.error === undefined) waiting.resolve();
  else waiting.reject(new Error(message.error));
});
post({ kind: 'ready' });
