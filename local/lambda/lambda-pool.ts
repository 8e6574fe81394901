/**
 * Holdback's handlers on a few worker threads, as Lambda runs them in containers: the edge's targets invoke them here,
 * so that the SDK clients' work uses the other core instead of competing with the edge and the sandbox for this one.
 */
import { join } from 'node:path';
import { Worker, type MessagePort } from 'node:worker_threads';
import { MAX_NESTING_DEPTH, nestingDepth, pruneNesting } from '../../kit/nesting-depth';
import type { HandlerName } from '../../functions/definitions/routing';
import type { RuntimeConfig } from '../../functions/composition-root';
import type { EventPublisher, Logger } from '../../functions/application/ports';
import type { SharedClock } from '../clock';
import type { ContainerData, FromContainer, ToContainer } from './lambda-messages';
import { TargetNotReady } from '../edge/in-flight';

export interface LambdaPoolOptions {
  /** How many containers; each runs any number of invocations at once. */
  size: number;
  config: RuntimeConfig;
  clock: SharedClock;
  /** The runtime's publisher, which the containers' events go out through. */
  publisher: () => EventPublisher;
  logger?: Logger;
  /** Handlers loaded from deployed bundles instead of the sources, run with `environment` (see ContainerData). */
  bundles?: ContainerData['bundles'];
  environment?: ContainerData['environment'];
  clientHook?: ContainerData['clientHook'];
  /** A new port to the local DynamoDB for each container (see dynamo-channel.ts); none: the containers use HTTP. */
  dynamodbChannel?: () => MessagePort;
  /** A new port to the local edge for each container (see edge-channel.ts); none: the containers use HTTP. */
  edgeChannel?: () => MessagePort;
}

/** A function's invocations and their wall-clock durations in ms, summed, as Lambda bills them. */
export interface InvocationUsage {
  invocations: number;
  milliseconds: number;
  billedMilliseconds: number;
}

export function noUsage(): InvocationUsage {
  return { invocations: 0, milliseconds: 0, billedMilliseconds: 0 };
}

/** Adds one invocation that began at `startedAt` (performance.now()) and has just ended. */
export function countInvocation(usage: InvocationUsage, startedAt: number): void {
  const ms = performance.now() - startedAt;
  usage.invocations += 1;
  usage.milliseconds += ms;
  // Lambda bills each invocation's duration rounded up to the millisecond.
  usage.billedMilliseconds += Math.ceil(ms);
}

interface Invocation {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** One worker thread and the invocations it has not answered yet. */
class Container {
  readonly worker: Worker;
  readonly running = new Map<number, Invocation>();
  readonly ready: Promise<void>;
  /** Whether it loaded its handlers: one that cannot is not restarted over and over. */
  loaded = false;

  constructor(data: ContainerData, private readonly opts: LambdaPoolOptions, onExit: (container: Container) => void, private readonly closing: () => boolean) {
    this.worker = new Worker(join(__dirname, 'lambda-container.js'), { workerData: data, transferList: [data.dynamodbChannel, data.edgeChannel].filter((port): port is MessagePort => port !== undefined) });
    this.ready = new Promise((resolve, reject) => {
      this.worker.on('message', (message: FromContainer) => {
        if (message.kind === 'ready') {
          this.loaded = true;
          resolve();
        }
        else this.receive(message);
      });
      this.worker.once('error', (error) => {
        reject(error);
        this.failAll(error);
      });
      this.worker.once('exit', (code) => {
        reject(new Error(`a Lambda container exited with code ${code} before it started`));
        // Stopped by a close: the invocations did not fail, they were handed back (their events and messages are kept).
        this.failAll(this.closing() ? new TargetNotReady('the local runtime is closing') : new Error(`the Lambda container exited (code ${code})`));
        onExit(this);
      });
    });
    // A container that never starts fails its invocations through failAll; the rejection itself is for `started`.
    this.ready.catch(() => undefined);
  }

  invoke(id: number, name: HandlerName, event: unknown, environment?: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.running.set(id, { resolve, reject });
      this.send({ kind: 'invoke', id, name, event: postable(event), environment });
    });
  }

  private send(message: ToContainer): void {
    this.worker.postMessage(message);
  }

  private receive(message: Exclude<FromContainer, { kind: 'ready' }>): void {
    switch (message.kind) {
      case 'result':
      case 'failed': {
        const invocation = this.running.get(message.id);
        this.running.delete(message.id);
        if (!invocation) return;
        if (message.kind === 'result') return invocation.resolve(message.value);
        const error = new Error(message.message);
        if (message.stack) error.stack = message.stack;
        return invocation.reject(error);
      }
      case 'publish': {
        const publisher = this.opts.publisher();
        const publishing = message.method === 'publish'
          ? publisher.publish(...(message.args as Parameters<EventPublisher['publish']>))
          : publisher.publishOrderEvent(...(message.args as Parameters<EventPublisher['publishOrderEvent']>));
        publishing.then(
          () => this.send({ kind: 'published', id: message.id }),
          (error: unknown) => this.send({ kind: 'published', id: message.id, error: error instanceof Error ? error.message : String(error) }),
        );
        return;
      }
      case 'log':
        this.opts.logger?.[message.level](message.message, message.fields);
    }
  }

  private failAll(error: Error): void {
    for (const invocation of this.running.values()) invocation.reject(error);
    this.running.clear();
  }
}

export class LambdaPool {
  private readonly containers: Container[] = [];
  private nextId = 0;
  private closing = false;

  constructor(private readonly opts: LambdaPoolOptions) {
    for (let i = 0; i < opts.size; i += 1) this.containers.push(this.startContainer());
  }

  /** Resolves once every container has loaded its handlers; rejects if one cannot start. */
  async ready(): Promise<void> {
    await Promise.all(this.containers.map((c) => c.ready));
  }

  /**
   * Runs one invocation; resolves with the handler's answer or rejects with its error. An invocation pinned to an
   * execution environment (the release queue's concurrency slot) runs in that environment's container, with that
   * environment's own dependencies (its own share of the gateway limit); others go to the least busy container.
   */
  invoke(name: HandlerName, event: unknown, environment?: number): Promise<unknown> {
    if (this.closing) return Promise.reject(new TargetNotReady('the local runtime is closing'));
    let chosen = this.containers[0];
    if (environment !== undefined) chosen = this.containers[environment % this.containers.length];
    else for (const container of this.containers) if (container.running.size < chosen.running.size) chosen = container;
    // A container that replaces a dead one is not up yet: not the function's failure, so the caller waits for it.
    if (!chosen.loaded) return Promise.reject(new TargetNotReady('a Lambda container is starting'));
    const started = performance.now();
    const invocation = chosen.invoke(this.nextId++, name, event, environment);
    const record = () => {
      const usage = this.usage.get(name) ?? noUsage();
      countInvocation(usage, started);
      this.usage.set(name, usage);
    };
    invocation.then(record, record);
    return invocation;
  }

  /** Invocations per handler and their wall-clock durations in ms, summed (the bench prices Lambda from them). */
  readonly usage = new Map<HandlerName, InvocationUsage>();

  /** Invocations started and not yet answered, across the containers (a stop waits for them). */
  get running(): number {
    return this.containers.reduce((sum, container) => sum + container.running.size, 0);
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.containers.splice(0).map((c) => c.worker.terminate()));
  }

  private startContainer(): Container {
    const data: ContainerData = {
      config: this.opts.config, clock: this.opts.clock.shared, log: this.opts.logger !== undefined,
      bundles: this.opts.bundles, environment: this.opts.environment, clientHook: this.opts.clientHook,
      dynamodbChannel: this.opts.dynamodbChannel?.(),
      edgeChannel: this.opts.edgeChannel?.(),
    };
    // A container that dies is replaced, as Lambda starts a new one; its unanswered invocations fail (and are retried).
    return new Container(data, this.opts, (dead) => {
      const index = this.containers.indexOf(dead);
      if (index >= 0 && !this.closing && dead.loaded) this.containers[index] = this.startContainer();
    }, () => this.closing);
  }
}

/** Envelope levels above an event's detail (the bus's envelope, a schedule's input): a detail keeps its own depth. */
const ENVELOPE_LEVELS = 2;

/**
 * Posting clones the event recursively: one nested deeper than any handler reads (a schedule's Input, say) is posted
 * cut to a level past the limit, so that the handler refuses it, rather than the post overflowing the stack.
 */
function postable(event: unknown): unknown {
  const keep = MAX_NESTING_DEPTH + ENVELOPE_LEVELS;
  return nestingDepth(event, keep) > keep ? pruneNesting(event, keep) : event;
}
