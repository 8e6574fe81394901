/** The local SQS: standard queues with delays, visibility timeouts on the shared clock, receive counts and redrive. */
import { createHash, randomUUID } from 'node:crypto';
import type { SharedClock, TimerHandle } from '../clock';

/** A message attribute as the JSON protocol carries it. */
export interface MessageAttribute {
  DataType: string;
  StringValue?: string;
  BinaryValue?: string;
}

/** One message as kept: what SQS remembers about it between calls. */
export interface StoredMessage {
  messageId: string;
  body: string;
  md5OfBody: string;
  attributes?: Record<string, MessageAttribute>;
  md5OfAttributes?: string;
  /** Epoch ms on the shared clock. */
  sentAt: number;
  /** It can be received from this instant on (after its delay, or when its visibility timeout ends). */
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt: number | null;
  /** The receipt handle of its latest receive: only that one deletes it or changes its visibility. */
  receipt: string | null;
  /** Set when a redrive moved it here: the ARN of the queue it came from. */
  deadLetterSourceArn?: string;
}

export interface RedrivePolicy {
  deadLetterTargetArn: string;
  maxReceiveCount: number;
}

export interface QueueDefinition {
  name: string;
  /** Seconds. */
  visibilityTimeout: number;
  delaySeconds: number;
  receiveMessageWaitTimeSeconds: number;
  messageRetentionPeriod: number;
  redrivePolicy: RedrivePolicy | null;
  /** Epoch ms. */
  createdAt: number;
}

/**
 * Where queue state lives. In memory here; the durable embedded default keeps it in its data folder. Every change of a
 * message is written back with `put` (messages are stored in send order) or dropped with `remove`.
 */
export interface QueueStore {
  queues(): QueueDefinition[];
  defineQueue(queue: QueueDefinition): void;
  /** The queue's messages, oldest first. */
  messages(queue: string): Iterable<StoredMessage>;
  count(queue: string): number;
  get(queue: string, messageId: string): StoredMessage | undefined;
  put(queue: string, message: StoredMessage): void;
  remove(queue: string, messageId: string): void;
}

export class InMemoryQueueStore implements QueueStore {
  private readonly definitions = new Map<string, QueueDefinition>();
  private readonly held = new Map<string, Map<string, StoredMessage>>();

  queues(): QueueDefinition[] {
    return [...this.definitions.values()];
  }

  defineQueue(queue: QueueDefinition): void {
    this.definitions.set(queue.name, queue);
    if (!this.held.has(queue.name)) this.held.set(queue.name, new Map());
  }

  messages(queue: string): Iterable<StoredMessage> {
    return this.held.get(queue)?.values() ?? [];
  }

  count(queue: string): number {
    return this.held.get(queue)?.size ?? 0;
  }

  get(queue: string, messageId: string): StoredMessage | undefined {
    return this.held.get(queue)?.get(messageId);
  }

  put(queue: string, message: StoredMessage): void {
    this.held.get(queue)?.set(message.messageId, message);
  }

  remove(queue: string, messageId: string): void {
    this.held.get(queue)?.delete(messageId);
  }
}

/** A service error as the JSON protocol answers it: `__type`, and the query error code the SDK maps to its class. */
export class SqsError extends Error {
  constructor(readonly type: string, readonly queryCode: string, message: string, readonly status = 400) {
    super(message);
  }
}

const nonExistentQueue = (what: string) =>
  new SqsError('com.amazonaws.sqs#QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue', `The specified queue does not exist: ${what}`);
export const invalidParameter = (message: string) =>
  new SqsError('com.amazonaws.sqs#InvalidParameterValue', 'InvalidParameterValue', message);
const invalidReceipt = (handle: string) =>
  new SqsError('com.amazonaws.sqs#ReceiptHandleIsInvalid', 'ReceiptHandleIsInvalid', `The input receipt handle "${handle.slice(0, 80)}" is not a valid receipt handle.`, 404);

/** SQS's limits. */
export const MAX_MESSAGE_BYTES = 256 * 1024;
export const MAX_DELAY_SECONDS = 900;
export const MAX_VISIBILITY_SECONDS = 43_200;
export const MAX_WAIT_SECONDS = 20;
export const MAX_BATCH = 10;

/** A received message, as ReceiveMessage answers it and the event source mapping hands it on. */
export interface ReceivedMessage {
  message: StoredMessage;
  receiptHandle: string;
}

export interface LocalQueuesOptions {
  clock: SharedClock;
  region: string;
  accountId: string;
  /** The edge's own URL, the host of every queue URL. */
  url: () => string;
  store?: QueueStore;
  log: (line: string) => void;
}

/** The SenderId every local message carries (an IAM user id on AWS). */
const LOCAL_SENDER_ID = 'AIDAHOLDBACKLOCAL';

/** A message's system attributes as ReceiveMessage and Lambda's SQS records show them (times in epoch ms, as text). */
export function systemAttributes(message: StoredMessage): Record<string, string> {
  return {
    SenderId: LOCAL_SENDER_ID,
    SentTimestamp: String(message.sentAt),
    ApproximateReceiveCount: String(message.receiveCount),
    ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? message.sentAt),
    ...(message.deadLetterSourceArn ? { DeadLetterQueueSourceArn: message.deadLetterSourceArn } : {}),
  };
}

export function md5Hex(text: string | Buffer): string {
  return createHash('md5').update(text).digest('hex');
}

/** MD5OfMessageAttributes as SQS computes it: each attribute, sorted by name, length-prefixed name, type, value. */
export function md5OfAttributes(attributes: Record<string, MessageAttribute>): string {
  const hash = createHash('md5');
  const field = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length).update(bytes);
  };
  for (const name of Object.keys(attributes).sort()) {
    const { DataType, StringValue, BinaryValue } = attributes[name];
    field(Buffer.from(name, 'utf8'));
    field(Buffer.from(DataType, 'utf8'));
    if (BinaryValue !== undefined) {
      hash.update(Buffer.from([2]));
      field(Buffer.from(BinaryValue, 'base64'));
    } else {
      hash.update(Buffer.from([1]));
      field(Buffer.from(StringValue ?? '', 'utf8'));
    }
  }
  return hash.digest('hex');
}

/**
 * Every queue of the edge. Times (delays, visibility) run on the shared clock, so advancing it makes messages visible
 * again; a long poll waits in real time, woken early when a message becomes visible.
 */
export class LocalQueues {
  readonly store: QueueStore;
  /** Called whenever a queue may have a message to receive (sent, or its delay or visibility timeout ended). */
  private readonly listeners = new Set<(queue: string) => void>();
  private readonly timers = new Map<string, TimerHandle>();
  private closed = false;

  constructor(private readonly opts: LocalQueuesOptions) {
    this.store = opts.store ?? new InMemoryQueueStore();
    // A store that kept messages (the durable default) re-arms their timers. A message in flight when the last process
    // stopped had a consumer that is gone: it is given back at once, its receive not counted (a kill is not the
    // function's failure, and the shared clock may stand still, so its visibility timeout might never end).
    const now = this.opts.clock.nowMs();
    for (const queue of this.store.queues()) {
      for (const message of this.store.messages(queue.name)) {
        if (message.receipt !== null && message.visibleAt > now) this.unreceive(queue.name, message);
        this.armVisibility(queue.name, message);
      }
    }
  }

  arn(name: string): string {
    return `arn:aws:sqs:${this.opts.region}:${this.opts.accountId}:${name}`;
  }

  queueUrl(name: string): string {
    return `${this.opts.url()}/${this.opts.accountId}/${name}`;
  }

  /** Creates a queue (or keeps the one of that name); a redrive target must exist first. */
  define(name: string, settings: Partial<Omit<QueueDefinition, 'name' | 'createdAt'>> = {}): QueueDefinition {
    const existing = this.store.queues().find((q) => q.name === name);
    if (existing) return existing;
    const definition: QueueDefinition = {
      name,
      visibilityTimeout: settings.visibilityTimeout ?? 30,
      delaySeconds: settings.delaySeconds ?? 0,
      receiveMessageWaitTimeSeconds: settings.receiveMessageWaitTimeSeconds ?? 0,
      messageRetentionPeriod: settings.messageRetentionPeriod ?? 345_600,
      redrivePolicy: settings.redrivePolicy ?? null,
      createdAt: this.opts.clock.nowMs(),
    };
    if (definition.redrivePolicy) this.byArn(definition.redrivePolicy.deadLetterTargetArn);
    this.store.defineQueue(definition);
    return definition;
  }

  /** The queue a QueueUrl names: its last path segment, as SQS reads it (any host, so a URL from GetQueueUrl works). */
  byUrl(url: unknown): QueueDefinition {
    if (typeof url !== 'string' || url === '') throw invalidParameter('QueueUrl is required: send the URL GetQueueUrl answers.');
    const name = url.replace(/\/+$/, '').split('/').pop() ?? '';
    return this.byName(name, url);
  }

  byName(name: string, shown = name): QueueDefinition {
    const queue = this.store.queues().find((q) => q.name === name);
    if (!queue) throw nonExistentQueue(shown);
    return queue;
  }

  byArn(arn: string): QueueDefinition {
    const queue = this.store.queues().find((q) => this.arn(q.name) === arn);
    if (!queue) throw nonExistentQueue(arn);
    return queue;
  }

  onVisible(listener: (queue: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Accepts one message; `delaySeconds` null takes the queue's delay. */
  send(queue: QueueDefinition, body: unknown, delaySeconds: unknown, attributes?: unknown): StoredMessage {
    if (typeof body !== 'string' || body === '') throw invalidParameter('MessageBody is required: send the message text (at least 1 character).');
    const bytes = Buffer.byteLength(body);
    if (bytes > MAX_MESSAGE_BYTES) {
      throw invalidParameter(`One or more parameters are invalid. Reason: Message must be shorter than ${MAX_MESSAGE_BYTES} bytes (got ${bytes}).`);
    }
    // SQS refuses characters outside XML's: #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF.
    if (/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\uD800-\uDFFF]/.test(body)) {
      throw new SqsError('com.amazonaws.sqs#InvalidMessageContents', 'InvalidMessageContents', 'Invalid characters found in MessageBody: only #x9, #xA, #xD and #x20 to #x10FFFF (without #xFFFE, #xFFFF) are allowed.');
    }
    const delay = delaySeconds === undefined || delaySeconds === null ? queue.delaySeconds : delaySeconds;
    if (!Number.isInteger(delay) || (delay as number) < 0 || (delay as number) > MAX_DELAY_SECONDS) {
      throw invalidParameter(`DelaySeconds is ${JSON.stringify(delaySeconds)}: send a whole number of seconds from 0 to ${MAX_DELAY_SECONDS}.`);
    }
    const checked = checkAttributes(attributes);
    const now = this.opts.clock.nowMs();
    const message: StoredMessage = {
      messageId: randomUUID(),
      body,
      md5OfBody: md5Hex(body),
      ...(checked ? { attributes: checked, md5OfAttributes: md5OfAttributes(checked) } : {}),
      sentAt: now,
      visibleAt: now + (delay as number) * 1000,
      receiveCount: 0,
      firstReceivedAt: null,
      receipt: null,
    };
    this.store.put(queue.name, message);
    this.armVisibility(queue.name, message);
    return message;
  }

  /**
   * Takes up to `max` visible messages, each hidden for `visibilitySeconds` (null: the queue's). A message received
   * `maxReceiveCount` times already goes to the dead-letter queue instead, as the redrive policy says.
   */
  receive(queue: QueueDefinition, max: number, visibilitySeconds: number | null): ReceivedMessage[] {
    const now = this.opts.clock.nowMs();
    const taken: ReceivedMessage[] = [];
    const redriven: StoredMessage[] = [];
    for (const message of this.store.messages(queue.name)) {
      if (taken.length >= max) break;
      if (message.visibleAt > now) continue;
      if (now - message.sentAt > queue.messageRetentionPeriod * 1000) {
        redriven.push(message); // expired: dropped below, as SQS deletes messages older than the retention period
        continue;
      }
      if (queue.redrivePolicy && message.receiveCount >= queue.redrivePolicy.maxReceiveCount) {
        redriven.push(message);
        continue;
      }
      const receiptHandle = `${Buffer.from(JSON.stringify([queue.name, message.messageId])).toString('base64url')}.${randomUUID()}`;
      message.receiveCount += 1;
      message.firstReceivedAt ??= now;
      message.receipt = receiptHandle;
      message.visibleAt = now + (visibilitySeconds ?? queue.visibilityTimeout) * 1000;
      this.store.put(queue.name, message);
      this.armVisibility(queue.name, message);
      taken.push({ message, receiptHandle });
    }
    for (const message of redriven) this.redrive(queue, message, now);
    return taken;
  }

  /** Deletes a received message; a handle of an older receive deletes nothing (the message was received again). */
  delete(queue: QueueDefinition, receiptHandle: unknown): void {
    const message = this.byReceipt(queue, receiptHandle);
    if (message && message.receipt === receiptHandle) this.drop(queue.name, message);
  }

  /**
   * Gives back a message that was received for a consumer that turned out not to be ready (starting or closing): as
   * if it had not been received, visible now and its receive not counted (so it never moves to the dead-letter queue
   * for it). Listeners are not woken: the consumer tries again when it is ready.
   */
  giveBack(queue: QueueDefinition, receiptHandle: string): void {
    const message = this.byReceipt(queue, receiptHandle);
    if (!message || message.receipt !== receiptHandle) return;
    this.unreceive(queue.name, message);
    this.timers.get(message.messageId)?.cancel();
    this.timers.delete(message.messageId);
  }

  changeVisibility(queue: QueueDefinition, receiptHandle: unknown, seconds: unknown): void {
    if (!Number.isInteger(seconds) || (seconds as number) < 0 || (seconds as number) > MAX_VISIBILITY_SECONDS) {
      throw invalidParameter(`VisibilityTimeout is ${JSON.stringify(seconds)}: send a whole number of seconds from 0 to ${MAX_VISIBILITY_SECONDS}.`);
    }
    const message = this.byReceipt(queue, receiptHandle);
    const now = this.opts.clock.nowMs();
    if (!message || message.receipt !== receiptHandle || message.visibleAt <= now) {
      throw new SqsError('com.amazonaws.sqs#MessageNotInflight', 'AWS.SimpleQueueService.MessageNotInflight', 'The message referred to is not in flight.');
    }
    message.visibleAt = now + (seconds as number) * 1000;
    this.store.put(queue.name, message);
    this.armVisibility(queue.name, message);
  }

  /** ApproximateNumberOfMessages (visible), ...NotVisible (in flight) and ...Delayed (never received, not yet due). */
  /**
   * Makes every message received before a restart visible again at once: the local Lambda that received it ended with
   * the process, so nothing will delete it, and waiting out a long visibility timeout would only stall its work (on
   * AWS a function's timeout ends it sooner). For queues whose work is idempotent, such as the job queue.
   */
  returnReceived(queue: QueueDefinition): number {
    const now = this.opts.clock.nowMs();
    let returned = 0;
    for (const message of [...this.store.messages(queue.name)]) {
      if (message.receipt === null || message.visibleAt <= now) continue;
      const back: StoredMessage = { ...message, visibleAt: now, receipt: null };
      this.store.put(queue.name, back);
      this.armVisibility(queue.name, back);
      returned += 1;
    }
    return returned;
  }

  counts(queue: QueueDefinition): { visible: number; inFlight: number; delayed: number } {
    const now = this.opts.clock.nowMs();
    const counts = { visible: 0, inFlight: 0, delayed: 0 };
    for (const message of this.store.messages(queue.name)) {
      if (message.visibleAt <= now) counts.visible += 1;
      else if (message.receipt === null) counts.delayed += 1;
      else counts.inFlight += 1;
    }
    return counts;
  }

  /** Cancels every timer and ends long polls (the edge is closing). */
  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
    for (const queue of this.store.queues()) this.notify(queue.name);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** As if the message had not been received: visible now, its receive not counted. */
  private unreceive(queue: string, message: StoredMessage): void {
    message.receiveCount = Math.max(0, message.receiveCount - 1);
    if (message.receiveCount === 0) message.firstReceivedAt = null;
    message.receipt = null;
    message.visibleAt = this.opts.clock.nowMs();
    this.store.put(queue, message);
  }

  private byReceipt(queue: QueueDefinition, receiptHandle: unknown): StoredMessage | undefined {
    if (typeof receiptHandle !== 'string' || receiptHandle === '') throw invalidParameter('ReceiptHandle is required: send the handle ReceiveMessage answered.');
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(receiptHandle.split('.')[0], 'base64url').toString('utf8'));
    } catch {
      throw invalidReceipt(receiptHandle);
    }
    if (!Array.isArray(parsed) || parsed[0] !== queue.name || typeof parsed[1] !== 'string') throw invalidReceipt(receiptHandle);
    return this.store.get(queue.name, parsed[1]);
  }

  private redrive(queue: QueueDefinition, message: StoredMessage, now: number): void {
    this.drop(queue.name, message);
    if (now - message.sentAt > queue.messageRetentionPeriod * 1000 || !queue.redrivePolicy) {
      this.opts.log(`sqs: message ${message.messageId} expired in ${queue.name} after ${queue.messageRetentionPeriod} s`);
      return;
    }
    const target = this.byArn(queue.redrivePolicy.deadLetterTargetArn);
    this.opts.log(`sqs: message ${message.messageId} moved from ${queue.name} to ${target.name} after ${message.receiveCount} receives (maxReceiveCount ${queue.redrivePolicy.maxReceiveCount})`);
    const moved: StoredMessage = { ...message, visibleAt: now, receipt: null, deadLetterSourceArn: this.arn(queue.name) };
    this.store.put(target.name, moved);
    this.notify(target.name);
  }

  private drop(queue: string, message: StoredMessage): void {
    this.store.remove(queue, message.messageId);
    this.timers.get(message.messageId)?.cancel();
    this.timers.delete(message.messageId);
  }

  /** Wakes listeners now if the message is visible, else when the clock reaches its visibility. */
  private armVisibility(queue: string, message: StoredMessage): void {
    this.timers.get(message.messageId)?.cancel();
    this.timers.delete(message.messageId);
    if (this.closed) return;
    if (message.visibleAt <= this.opts.clock.nowMs()) {
      this.notify(queue);
      return;
    }
    this.timers.set(message.messageId, this.opts.clock.at(message.visibleAt, () => {
      this.timers.delete(message.messageId);
      this.notify(queue);
    }));
  }

  private notify(queue: string): void {
    for (const listener of [...this.listeners]) listener(queue);
  }
}

/** MessageAttributes of a send: up to 10, each with a DataType and a value of that kind. */
function checkAttributes(value: unknown): Record<string, MessageAttribute> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParameter('MessageAttributes must be a map of name to {DataType, StringValue | BinaryValue}.');
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return undefined;
  if (entries.length > 10) throw invalidParameter(`MessageAttributes has ${entries.length} attributes; send at most 10.`);
  const checked: Record<string, MessageAttribute> = {};
  for (const [name, raw] of entries) {
    const attribute = raw as Partial<MessageAttribute> | null;
    if (!/^[A-Za-z0-9_.-]{1,256}$/.test(name) || name.startsWith('AWS.') || name.startsWith('Amazon.')) {
      throw invalidParameter(`MessageAttributes name '${name}' is not valid: use 1 to 256 of A-Z, a-z, 0-9, _, -, . not starting with AWS. or Amazon.`);
    }
    if (!attribute || typeof attribute.DataType !== 'string' || !/^(String|Number|Binary)(\..+)?$/.test(attribute.DataType)) {
      throw invalidParameter(`MessageAttributes.${name}.DataType must be String, Number or Binary (optionally with a .label).`);
    }
    const binary = attribute.DataType.startsWith('Binary');
    const text = binary ? attribute.BinaryValue : attribute.StringValue;
    if (typeof text !== 'string' || text === '') {
      throw invalidParameter(`MessageAttributes.${name} needs a non-empty ${binary ? 'BinaryValue' : 'StringValue'} for DataType ${attribute.DataType}.`);
    }
    checked[name] = binary ? { DataType: attribute.DataType, BinaryValue: text } : { DataType: attribute.DataType, StringValue: text };
  }
  return checked;
}
