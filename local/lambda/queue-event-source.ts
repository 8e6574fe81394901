/**
 * The local Lambda event source mapping for SQS: takes batches from a queue and invokes the function with them, at most
 * `maximumConcurrency` at once, deleting what succeeded (ReportBatchItemFailures), as Lambda's poller does.
 */
import type { LambdaTarget } from '../edge/bus';
import { InFlight, Waiting, backoffMs, isTargetNotReady } from '../edge/in-flight';
import { systemAttributes, type LocalQueues, type MessageAttribute, type ReceivedMessage } from '../edge/queue';

export interface QueueEventSourceOptions {
  queues: LocalQueues;
  /** The queue's name. */
  queue: string;
  /** The function; the second argument is the execution environment (0 to maximumConcurrency - 1) that runs it. */
  target: LambdaTarget;
  batchSize: number;
  maximumConcurrency: number;
  region: string;
  log: (line: string) => void;
}

/** One record of the event, as Lambda builds it from a received message. */
export interface SqsRecord {
  messageId: string;
  receiptHandle: string;
  body: string;
  attributes: Record<string, string>;
  messageAttributes: Record<string, { dataType: string; stringValue?: string; binaryValue?: string; stringListValues: []; binaryListValues: [] }>;
  md5OfBody: string;
  eventSource: 'aws:sqs';
  eventSourceARN: string;
  awsRegion: string;
}

export class QueueEventSource {
  readonly inFlight = new InFlight();
  /** The mapping's SQS requests as Lambda's poller makes them (ReceiveMessage per batch, DeleteMessageBatch per batch done): the bench's bill. */
  readonly requests = { receives: 0, messagesReceived: 0, deleteBatches: 0, messagesDeleted: 0 };
  /** Execution environments not running an invocation: each holds one invocation at a time, as on Lambda. */
  private readonly free: number[];
  private readonly stop: () => void;
  private pumping = false;
  private pumpQueued = false;
  private closed = false;
  /** Set while the function is not ready (starting, closing): no batch is taken until it is, or the wait ends. */
  private readonly waiting = new Waiting();
  private paused = false;
  private notReadyWaits = 0;

  constructor(private readonly opts: QueueEventSourceOptions) {
    if (!Number.isInteger(opts.batchSize) || opts.batchSize < 1 || opts.batchSize > 10) {
      throw new Error(`batchSize ${opts.batchSize}: a standard queue's mapping takes 1 to 10 without a batching window`);
    }
    if (!Number.isInteger(opts.maximumConcurrency) || opts.maximumConcurrency < 2) {
      throw new Error(`maximumConcurrency ${opts.maximumConcurrency}: Lambda's ScalingConfig takes at least 2`);
    }
    opts.queues.byName(opts.queue);
    this.free = Array.from({ length: opts.maximumConcurrency }, (_, i) => i);
    this.stop = opts.queues.onVisible((name) => {
      if (name !== opts.queue || this.pumpQueued) return;
      // After the current call: the messages of one SendMessageBatch make one batch, as the poller would receive them.
      this.pumpQueued = true;
      queueMicrotask(() => {
        this.pumpQueued = false;
        this.pump();
      });
    });
  }

  /** Takes the messages already waiting (kept across a restart), once the function can run; new ones start it anyway. */
  start(): void {
    this.paused = false;
    this.waiting.wake();
    this.pump();
  }

  /** Whether an invocation runs or is about to start: the edge is not idle until it is done. */
  busy(): boolean {
    return this.pumpQueued || this.inFlight.size > 0;
  }

  close(): void {
    this.closed = true;
    this.waiting.close();
    this.stop();
  }

  /** Starts an invocation for each free environment while the queue has visible messages. */
  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    try {
      const queue = this.opts.queues.byName(this.opts.queue);
      while (!this.closed && !this.paused && this.free.length > 0) {
        const batch = this.opts.queues.receive(queue, this.opts.batchSize, null);
        if (batch.length === 0) return;
        this.requests.receives += 1;
        this.requests.messagesReceived += batch.length;
        const environment = this.free.shift()!;
        void this.inFlight.run(async () => {
          try {
            await this.invoke(batch, environment);
          } finally {
            this.free.push(environment);
            // Before this run ends, so that `inFlight` never reads empty while messages wait.
            this.pump();
          }
        });
      }
    } finally {
      this.pumping = false;
    }
  }

  private async invoke(batch: ReceivedMessage[], environment: number): Promise<void> {
    const arn = this.opts.queues.arn(this.opts.queue);
    const records = batch.map((received) => recordOf(received, arn, this.opts.region));
    let answer: unknown;
    try {
      answer = await this.opts.target({ Records: records }, environment);
    } catch (error) {
      if (isTargetNotReady(error)) return this.giveBack(batch);
      // The whole batch comes back after its visibility timeout; the redrive policy ends a message that always fails.
      this.opts.log(`sqs mapping: ${this.opts.queue} → function failed on ${batch.length} messages: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    this.notReadyWaits = 0;
    const failed = failedIds(answer, records);
    if (failed === 'all') {
      this.opts.log(`sqs mapping: ${this.opts.queue} → the function answered batchItemFailures that name no message of the batch; the whole batch returns to the queue`);
      return;
    }
    const queue = this.opts.queues.byName(this.opts.queue);
    let deleted = 0;
    for (const { message, receiptHandle } of batch) {
      if (!failed.has(message.messageId)) {
        this.opts.queues.delete(queue, receiptHandle);
        deleted += 1;
      }
    }
    if (deleted > 0) {
      this.requests.deleteBatches += 1;
      this.requests.messagesDeleted += deleted;
    }
  }

  /**
   * The function was not ready (starting or closing): the batch goes back as if never received, not counted towards
   * the dead-letter queue, and the mapping takes nothing until the wait ends (or `start` says the function is ready).
   */
  private giveBack(batch: ReceivedMessage[]): void {
    const queue = this.opts.queues.byName(this.opts.queue);
    for (const { receiptHandle } of batch) this.opts.queues.giveBack(queue, receiptHandle);
    this.notReadyWaits += 1;
    if (this.notReadyWaits === 1) {
      this.opts.log(`sqs mapping: ${this.opts.queue} → the function is not ready; ${batch.length} messages kept and tried again when it is`);
    }
    this.paused = true;
    this.waiting.after(backoffMs(this.notReadyWaits, 50, 1_000), () => {
      this.paused = false;
      this.pump();
    }, true);
  }
}

/**
 * The messages to keep, from a ReportBatchItemFailures answer: none when it lists none (or is no such answer), and
 * the whole batch when an entry is not one of its messages, as Lambda treats a malformed answer.
 */
function failedIds(answer: unknown, records: SqsRecord[]): Set<string> | 'all' {
  const failures = (answer as { batchItemFailures?: unknown } | null)?.batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return 'all';
  const ids = new Set(records.map((r) => r.messageId));
  const failed = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !ids.has(id)) return 'all';
    failed.add(id);
  }
  return failed;
}

function recordOf({ message, receiptHandle }: ReceivedMessage, arn: string, region: string): SqsRecord {
  return {
    messageId: message.messageId,
    receiptHandle,
    body: message.body,
    attributes: systemAttributes(message),
    messageAttributes: Object.fromEntries(Object.entries(message.attributes ?? {}).map(([name, a]: [string, MessageAttribute]) => [name, {
      dataType: a.DataType, ...(a.StringValue !== undefined ? { stringValue: a.StringValue } : { binaryValue: a.BinaryValue }),
      stringListValues: [] as [], binaryListValues: [] as [],
    }])),
    md5OfBody: message.md5OfBody,
    eventSource: 'aws:sqs',
    eventSourceARN: arn,
    awsRegion: region,
  };
}
