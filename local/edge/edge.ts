/** The local AWS edge: DynamoDB, EventBridge PutEvents, EventBridge Scheduler, SQS and the clock controls on one loopback port. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { LOCAL_KEEP_ALIVE_MS } from './keep-alive';
import type { AddressInfo } from 'node:net';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { DEFAULT_EVENT_SOURCE, EXPORT_JOB_QUEUE, JOB_QUEUE, RELEASE_QUEUE, SWEEP_SCHEDULE, type HandlerName } from '../../functions/definitions/routing';
import { parseDuration } from '../../functions/domain/dates';
import { Instant } from '../../functions/domain/instant';
import { ValidationError, instantBoundsIssue } from '../../functions/domain/errors';
import type { SharedClock } from '../clock';
import { BusValidationError, LocalBus, type DeliveryPolicy, type EventEnvelope, type KeptEvent, type LambdaTarget, type UndeliverableEvent } from './bus';
import { LocalDynamo } from './dynamodb';
import { BusPolicy } from './bus-policy';
import {
  LOCAL_ACCOUNT_ID, LOCAL_REGION, LocalScheduler, SchedulerError, localFunctionArn, localSchedulerRoleArn, type StoredSchedule,
} from './scheduler';
import { BodyTooLarge, parseJsonObject, readBody, sendJson } from '../../kit/wire';
import { loopbackRefusal } from '../../kit/loopback-guard';
import { LocalQueues, SqsError, invalidParameter } from './queue';
import { QueueEventSource } from '../lambda/queue-event-source';
import { serveEdgeChannel } from '../lambda/edge-channel';
import { serveSqs } from './sqs';
import type { DataFolder } from '../data-folder';
import { RecordJournal, type RecordStore } from '../../kit/durable-file';
import { JournaledQueueStore } from './queue-store';
import { LocalS3, type LocalS3Bucket } from './s3';

export { localFunctionArn, localSchedulerRoleArn } from './scheduler';

export interface EdgeOptions {
  /** Default HOLDBACK_EDGE_PORT or 4566; 0 picks a free port. */
  port?: number;
  host?: '127.0.0.1';
  clock: SharedClock;
  tables: CreateTableCommandInput[];
  /** The marketplace's event source the rules route (default HOLDBACK_EVENT_SOURCE or marketplace.orders). */
  eventSource?: string;
  targets: Partial<Record<HandlerName, LambdaTarget>>;
  region?: string;
  accountId?: string;
  log?: (line: string) => void;
  /** Keep the tables, schedules and undelivered events in this data folder (default: memory only). */
  dataFolder?: DataFolder;
  /** How the bus tries a failing or not-ready target again (default: EventBridge's policy, see DeliveryPolicy). */
  delivery?: Partial<DeliveryPolicy>;
  /** Lists an event that no target took after every try (the runtime: GET /rejected-events). */
  onUndeliverable?: (event: UndeliverableEvent) => Promise<void>;
  /**
   * Access key ids that may put order events (the bus policy, see bus-policy.ts; default HOLDBACK_EVENT_PRODUCERS,
   * comma-separated); none: any principal may.
   */
  eventProducers?: readonly string[];
  /** S3 buckets the edge serves path-style (`/<bucket>/<key>`, local/edge/s3.ts, in memory); none by default. */
  buckets?: Record<string, LocalS3Bucket>;
}

export interface Edge {
  url: string;
  /** DynamoDB alone, served directly by dynalite (the edge's url serves it too, one hop longer). */
  dynamodbUrl: string;
  /** A MessagePort to dynalite for one local Lambda container's DynamoDB client (see LocalDynamo.channel). */
  dynamodbChannel(): MessagePort;
  /**
   * A MessagePort to the edge's request listener (the one its HTTP server calls) for one local Lambda container's
   * Scheduler, EventBridge and SQS requests (see local/lambda/edge-channel.ts).
   */
  channel(): MessagePort;
  port: number;
  close(): Promise<void>;
  /** Resolves when no event delivery or schedule invocation is in flight. */
  idle(): Promise<void>;
  /** Whether an event delivery or schedule invocation is in flight right now. */
  busy(): boolean;
  bus: LocalBus;
  scheduler: LocalScheduler;
  queues: LocalQueues;
  /** The release queue's event source mapping (null without a release target): its SQS requests are billed. */
  releaseMapping: QueueEventSource | null;
  /** The job queue's event source mapping (null without a jobs target). */
  jobMapping: QueueEventSource | null;
  /** The export job queue's event source mapping (null without an exportJobs target). */
  exportJobMapping: QueueEventSource | null;
  /**
   * Once the targets can run: arms the schedules, delivers again the events kept in the data folder before a restart,
   * and ends every wait for a target that was not ready yet (events, schedules, queued messages). Returns how many of each.
   */
  resume(): { schedules: number; events: number };
}

const AWS_JSON_1_0 = 'application/x-amz-json-1.0';
const AWS_JSON_1_1 = 'application/x-amz-json-1.1';

export async function createEdge(opts: EdgeOptions): Promise<Edge> {
  const port = opts.port ?? Number(process.env.HOLDBACK_EDGE_PORT ?? 4566);
  const host = opts.host ?? '127.0.0.1';
  const region = opts.region ?? LOCAL_REGION;
  const accountId = opts.accountId ?? LOCAL_ACCOUNT_ID;
  const log = opts.log ?? ((line: string) => console.log(line));
  const { clock } = opts;

  const data = opts.dataFolder;
  const journals = data ? { schedules: new RecordJournal<StoredSchedule>(data.schedules), events: new RecordJournal<KeptEvent | EventEnvelope>(data.events) } : null;
  const dynamo = new LocalDynamo(data?.tables);
  // Without a data folder the queues keep their messages in memory (LocalQueues' default store).
  const queueStore = data ? new JournaledQueueStore(data.queues) : undefined;
  const flushQueues = async (): Promise<void> => {
    await queueStore?.flush();
  };
  const bus = new LocalBus({
    clock, targets: opts.targets, region, accountId, log, store: journals?.events,
    delivery: opts.delivery, onUndeliverable: opts.onUndeliverable,
    eventSource: opts.eventSource ?? process.env.HOLDBACK_EVENT_SOURCE,
    busNames: process.env.HOLDBACK_EVENT_BUS ? [process.env.HOLDBACK_EVENT_BUS] : [],
  });
  let url = '';
  const queues = new LocalQueues({ clock, region, accountId, url: () => url, store: queueStore, log });
  // The one send path (issue 9): the release queue, its dead-letter queue, and the release function consuming it.
  const deadLetters = queues.define(RELEASE_QUEUE.deadLetterName, { messageRetentionPeriod: 1_209_600 });
  queues.define(RELEASE_QUEUE.name, {
    visibilityTimeout: RELEASE_QUEUE.visibilityTimeoutSeconds,
    redrivePolicy: { deadLetterTargetArn: queues.arn(deadLetters.name), maxReceiveCount: RELEASE_QUEUE.maxReceiveCount },
  });
  // A fired schedule's message is on disk before the schedule's deletion is: a kill between them is sent again at worst, never lost.
  const scheduleStore = journals ? { ...bind(journals.schedules), flush: async () => { await flushQueues(); await journals.schedules.flush(); } } : undefined;
  const scheduler = new LocalScheduler({ clock, targets: opts.targets, queues, region, accountId, log, store: scheduleStore });
  // Bulk work (contract 6.3): the job queue and the export job queue, each with its dead-letter queue and the function
  // consuming it (the jobs function, the export-jobs function).
  const jobQueue = (queue: typeof JOB_QUEUE | typeof EXPORT_JOB_QUEUE, target: LambdaTarget | undefined): QueueEventSource | null => {
    const deadLetters = queues.define(queue.deadLetterName, { messageRetentionPeriod: 1_209_600 });
    queues.define(queue.name, {
      visibilityTimeout: queue.visibilityTimeoutSeconds,
      redrivePolicy: { deadLetterTargetArn: queues.arn(deadLetters.name), maxReceiveCount: queue.maxReceiveCount },
    });
    return target ? new QueueEventSource({ queues, queue: queue.name, target, region, log, batchSize: queue.batchSize, maximumConcurrency: queue.maximumConcurrency }) : null;
  };
  const jobs = jobQueue(JOB_QUEUE, opts.targets.jobs);
  const exportJobs = jobQueue(EXPORT_JOB_QUEUE, opts.targets.exportJobs);
  const releaseTarget = opts.targets.release;
  const releases = releaseTarget
    ? new QueueEventSource({
      queues, queue: RELEASE_QUEUE.name, target: releaseTarget, region, log,
      batchSize: RELEASE_QUEUE.batchSize, maximumConcurrency: RELEASE_QUEUE.maximumConcurrency,
    })
    : null;

  const busPolicy = new BusPolicy({
    orderEventSource: opts.eventSource ?? process.env.HOLDBACK_EVENT_SOURCE ?? DEFAULT_EVENT_SOURCE,
    producers: opts.eventProducers ?? (process.env.HOLDBACK_EVENT_PRODUCERS ?? '').split(',').map((p) => p.trim()).filter((p) => p !== ''),
  });
  const busArn = `arn:aws:events:${region}:${accountId}:event-bus/default`;
  const busy = (): boolean => bus.inFlight.size > 0 || scheduler.inFlight.size > 0 || (releases?.busy() ?? false) || (jobs?.busy() ?? false) || (exportJobs?.busy() ?? false);
  async function idle(): Promise<void> {
    while (busy()) await Promise.all([bus.inFlight.idle(), scheduler.inFlight.idle(), releases?.inFlight.idle(), jobs?.inFlight.idle(), exportJobs?.inFlight.idle()]);
  }

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    // Loopback Host only, and no changes from other web pages: the AWS SDKs send x-amz-json or JSON and no Origin.
    const refusal = loopbackRefusal(req, { port: (server.address() as AddressInfo).port, formsAllowed: false });
    if (refusal) {
      req.resume();
      return sendJson(res, refusal.status, { __type: 'AccessDeniedException', message: refusal.message, error: { code: refusal.code, message: refusal.message } });
    }
    route(req, res).catch((error: unknown) => {
      log(`edge: ${req.method} ${req.url} failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
      if (!res.headersSent) sendJson(res, 500, { __type: 'InternalFailure', message: 'the local edge failed; see its log' });
      else res.destroy();
    });
  };
  const server = createServer(listener);
  // The containers' channels (channel() below): served by the same listener, closed with the edge.
  const channels = new Set<MessagePort>();
  const channel = (): MessagePort => {
    const { port1, port2 } = new MessageChannel();
    channels.add(port1);
    port1.once('close', () => channels.delete(port1));
    serveEdgeChannel(port1, listener);
    return port2;
  };
  server.keepAliveTimeout = LOCAL_KEEP_ALIVE_MS;

  /** Whether the tables exist with every index (see the DynamoDB branch of route). */
  let tablesReady = false;

  const s3 = opts.buckets ? new LocalS3(opts.buckets) : null;
  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.headers['x-amz-target'];
    if (typeof target === 'string') {
      if (target.startsWith('DynamoDB_20120810.')) {
        // Until the tables are created (or rebuilt with a new index, table-migration.ts), a write through the edge could
        // land in a table about to be rebuilt and be lost: it is refused as AWS refuses a busy service, and retried.
        if (!tablesReady) return sendJson(res, 503, { __type: 'com.amazonaws.dynamodb.v20120810#ServiceUnavailable', message: 'the local DynamoDB is starting (its tables are being created or rebuilt); try again' });
        return dynamo.handle(req, res);
      }
      if (target.startsWith('AmazonSQS.')) return sqs(target.slice('AmazonSQS.'.length), req, res);
      return putEvents(target, req, res);
    }
    const url = new URL(req.url ?? '/', 'http://edge.local');
    if (url.pathname === '/schedules' || url.pathname.startsWith('/schedules/')) return schedules(req, res, url);
    if (url.pathname === '/_local/clock') return clockControl(req, res, url.searchParams);
    if (url.pathname === '/_local/events' && req.method === 'GET') {
      const events = bus.find({ source: url.searchParams.get('source') ?? undefined, detailType: url.searchParams.get('detailType') ?? undefined });
      return sendJson(res, 200, { events });
    }
    if (url.pathname === '/_local/schedules' && req.method === 'GET') return sendJson(res, 200, { schedules: scheduler.list() });
    if (s3?.serves(url.pathname)) return s3.handle(req, res);
    sendJson(res, 404, { error: { code: 'NotFound', message: `The local edge has no ${req.method} ${url.pathname}: send AWS SDK requests (DynamoDB, EventBridge, Scheduler, SQS), or use /_local/clock, /_local/events, /_local/schedules.` } });
  }

  async function putEvents(target: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const fail = (type: string, message: string) => sendJson(res, 400, { __type: type, message }, {}, AWS_JSON_1_1);
    if (target !== 'AWSEvents.PutEvents') {
      req.resume();
      return fail('UnknownOperationException', `The local edge does not implement ${target}; it serves DynamoDB_20120810.* and AWSEvents.PutEvents.`);
    }
    let text: string;
    try {
      text = await readBody(req);
    } catch (error) {
      if (error instanceof BodyTooLarge) return fail('ValidationException', error.message);
      throw error;
    }
    const body = parseJsonObject(text);
    if ('error' in body) return fail('SerializationException', body.error);
    // The bus's resource policy, before anything of the call is accepted (as EventBridge refuses a denied caller).
    const principal = BusPolicy.principalOf(req.headers.authorization);
    const entries = Array.isArray(body.value.Entries) ? body.value.Entries as Array<{ Source?: unknown; DetailType?: unknown }> : [];
    for (const entry of entries) {
      const refusal = entry && typeof entry === 'object' ? busPolicy.refusal(principal, entry, busArn) : null;
      if (refusal) {
        log(`edge: PutEvents refused by the bus policy: ${refusal}`);
        return fail('AccessDeniedException', refusal);
      }
    }
    try {
      const answer = bus.putEvents(body.value);
      // An accepted event is on disk before the sender hears so: a kill after the answer cannot lose it.
      await bus.persisted();
      return sendJson(res, 200, answer, {}, AWS_JSON_1_1);
    } catch (error) {
      if (error instanceof BusValidationError) return fail(error.type, error.message);
      throw error;
    }
  }

  async function sqs(operation: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    // JSON protocol errors: `__type`, plus the query error code the SDK maps to its exception classes.
    const fail = (error: SqsError) => sendJson(res, error.status, { __type: error.type, message: error.message },
      { 'x-amzn-query-error': `${error.queryCode};Sender` }, AWS_JSON_1_0);
    let text: string;
    try {
      text = await readBody(req);
    } catch (error) {
      if (error instanceof BodyTooLarge) return fail(invalidParameter(error.message));
      throw error;
    }
    const body = parseJsonObject(text);
    if ('error' in body) return fail(invalidParameter(body.error));
    try {
      const answer = await serveSqs(queues, operation, body.value);
      // A sent, received or deleted message is on disk before the caller hears so.
      await flushQueues();
      return sendJson(res, 200, answer, {}, AWS_JSON_1_0);
    } catch (error) {
      if (error instanceof SqsError) return fail(error);
      throw error;
    }
  }

  async function schedules(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const fail = (status: number, type: string, message: string) => sendJson(res, status, { Message: message }, { 'x-amzn-errortype': type });
    let text: string;
    try {
      text = await readBody(req);
    } catch (error) {
      if (error instanceof BodyTooLarge) return fail(400, 'ValidationException', error.message);
      throw error;
    }
    const body = parseJsonObject(text);
    if ('error' in body) return fail(400, 'ValidationException', body.error);
    try {
      const answer = scheduler.handle(req.method ?? 'GET', url.pathname, url.searchParams, body.value);
      await scheduler.persisted();
      return sendJson(res, answer.status, answer.body);
    } catch (error) {
      if (error instanceof SchedulerError) return fail(error.status, error.type, error.message);
      throw error;
    }
  }

  /** The clock's now, and while a set or advance fires its schedules, how far it got (`advancing`). */
  function clockView(): Record<string, unknown> {
    const progress = clock.progress;
    if (!progress) return { now: clock.now().toISO() };
    const iso = (ms: number) => new Date(ms).toISOString();
    return { now: clock.now().toISO(), advancing: { from: iso(progress.from), to: iso(progress.to), fired: progress.fired, pending: progress.pending } };
  }

  async function clockControl(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
    const now = clockView;
    if (req.method === 'GET') return sendJson(res, 200, now());
    const fail = (field: string, message: string) => sendJson(res, 400, { error: { code: 'ValidationError', field, message } });
    if (req.method !== 'POST') return sendJson(res, 405, { error: { code: 'MethodNotAllowed', message: 'use GET or POST /_local/clock' } });
    // wait=true (the default) answers when every due schedule fired and its work is done; wait=false answers 202 at once.
    const wait = query.get('wait') ?? 'true';
    if (wait !== 'true' && wait !== 'false') {
      req.resume();
      return fail('wait', `is ${JSON.stringify(wait.slice(0, 60))}: send wait=true (answer when done, the default) or wait=false (answer 202 at once; GET /_local/clock shows the progress)`);
    }
    const body = parseJsonObject(await readBody(req).catch(() => '\u0000'));
    if ('error' in body) return fail('body', `${body.error}: send {"now": "2022-12-02T16:05:00+05:30"} or {"advance": "PT6H"}`);
    const { now: to, advance } = body.value;
    if ((to === undefined) === (advance === undefined)) {
      return fail(to === undefined ? 'now' : 'advance', 'send exactly one of {"now": ISO 8601 with an offset} or {"advance": ISO 8601 duration such as "PT6H"}');
    }
    let moving: Promise<void>;
    try {
      // The clock stays where dates are plain four-digit years (README "Bounds"): [2000-01-01, 2100-01-01).
      if (to !== undefined) {
        const at = Instant.parse(to, 'now');
        const outOfBounds = instantBoundsIssue(at, 'now', null);
        if (outOfBounds) throw new ValidationError([outOfBounds]);
        moving = clock.set(new Date(at.ms));
      } else {
        // Calendar-aware: "P1M" is a month from the clock's now, as the domain reads durations.
        const duration = parseDuration(advance, 'advance');
        const at = clock.now().plus(duration);
        const outOfBounds = at.isValid ? instantBoundsIssue(Instant.fromDateTime(at), 'advance', null) : null;
        if (!at.isValid || outOfBounds) {
          throw new ValidationError([{ field: 'advance', problem: `is ${JSON.stringify(advance)}, which moves the clock to ${at.isValid ? at.toISO() : 'no valid time'}`, expected: outOfBounds?.expected ?? 'a shorter duration' }]);
        }
        moving = clock.advance(at.toMillis() - clock.nowMs());
      }
    } catch (error) {
      if (error instanceof ValidationError) return fail(error.issues[0].field, error.message);
      throw error;
    }
    // Either way the move runs on the clock's own chain: other requests (AWS calls, the API, the sandbox) are served
    // while it fires, and a second move waits for this one.
    const done = moving.then(() => idle());
    if (wait === 'true') {
      await done;
      return sendJson(res, 200, now());
    }
    done.catch((error: unknown) => log(`edge: clock move failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`));
    // One turn of the event loop: the move has started, so the answer shows its progress.
    await new Promise((resolve) => setImmediate(resolve));
    return sendJson(res, 202, { ...now(), message: 'moving: GET /_local/clock shows "advancing" {from, to, fired, pending} until every due schedule fired' });
  }

  // Work a fired schedule started (event deliveries) finishes before the clock fires the next timer.
  const previousSettle = clock.settle;
  const settle = async () => {
    await previousSettle();
    await idle();
  };
  clock.settle = settle;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => { server.off('error', reject); resolve(); });
  });
  const actualPort = (server.address() as AddressInfo).port;
  url = `http://${host}:${actualPort}`;

  async function close(): Promise<void> {
    for (const port of channels) port.close();
    channels.clear();
    bus.close();
    scheduler.close();
    releases?.close();
    jobs?.close();
    exportJobs?.close();
    queues.close();
    if (clock.settle === settle) clock.settle = previousSettle;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await dynamo.close();
    await journals?.schedules.close();
    await journals?.events.close();
    await queueStore?.close();
  }

  try {
    // Straight to dynalite: the edge answers DynamoDB 503 until this is done.
    await dynamo.createTables(await dynamo.url(), region, opts.tables, log);
    tablesReady = true;
    if (opts.targets[SWEEP_SCHEDULE.target]) {
      scheduler.create(SWEEP_SCHEDULE.name, {
        ScheduleExpression: SWEEP_SCHEDULE.expression,
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: { Arn: localFunctionArn(SWEEP_SCHEDULE.target, region, accountId), RoleArn: localSchedulerRoleArn(accountId), Input: '{}' },
        Description: 'Re-drives anything overdue or retryable',
      });
    }
  } catch (error) {
    await close();
    throw error;
  }

  const resume = () => {
    releases?.start();
    // A job step cut off by the stop is delivered again at once: its work is idempotent (see run-job-step.ts).
    if (data) for (const queue of [JOB_QUEUE, EXPORT_JOB_QUEUE]) queues.returnReceived(queues.byName(queue.name));
    jobs?.start();
    exportJobs?.start();
    return { schedules: scheduler.restore(), events: bus.restore() };
  };
  return { url, dynamodbUrl: await dynamo.url(), dynamodbChannel: () => dynamo.channel(), channel, port: actualPort, close, idle, busy, bus, scheduler, queues, releaseMapping: releases, jobMapping: jobs, exportJobMapping: exportJobs, resume };
}

/** A record store's methods bound to it, so that one of them can be replaced in a spread copy. */
function bind<T>(store: RecordStore<T>): RecordStore<T> {
  return {
    loaded: () => store.loaded(),
    put: (key, record) => store.put(key, record),
    delete: (key) => store.delete(key),
    flush: () => store.flush(),
    close: () => store.close(),
  };
}
