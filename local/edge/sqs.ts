/** The SQS JSON protocol (AmazonSQS.<Operation>) over the local queues, as the pinned @aws-sdk/client-sqs sends it. */
import { invalidParameter, systemAttributes, MAX_BATCH, MAX_MESSAGE_BYTES, MAX_VISIBILITY_SECONDS, MAX_WAIT_SECONDS, SqsError, type LocalQueues, type QueueDefinition, type ReceivedMessage, type StoredMessage } from './queue';

type Body = Record<string, unknown>;

const BATCH_ID = /^[A-Za-z0-9_-]{1,80}$/;
const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;

const batchError = (name: string, message: string) =>
  new SqsError(`com.amazonaws.sqs#${name}`, `AWS.SimpleQueueService.${name}`, message);

/** Serves one SQS operation; answers the JSON body, or throws SqsError. */
export async function serveSqs(queues: LocalQueues, operation: string, body: Body): Promise<Body> {
  switch (operation) {
    case 'GetQueueUrl': {
      if (typeof body.QueueName !== 'string' || body.QueueName === '') throw invalidParameter('QueueName is required: send the queue name, e.g. holdback-releases.');
      return { QueueUrl: queues.queueUrl(queues.byName(body.QueueName).name) };
    }
    case 'CreateQueue': return createQueue(queues, body);
    case 'ListQueues': {
      const prefix = typeof body.QueueNamePrefix === 'string' ? body.QueueNamePrefix : '';
      return { QueueUrls: queues.store.queues().filter((q) => q.name.startsWith(prefix)).map((q) => queues.queueUrl(q.name)) };
    }
    case 'GetQueueAttributes': return { Attributes: queueAttributes(queues, queues.byUrl(body.QueueUrl), body.AttributeNames) };
    case 'SendMessage': {
      return sentAnswer(queues.send(queues.byUrl(body.QueueUrl), body.MessageBody, body.DelaySeconds, body.MessageAttributes));
    }
    case 'SendMessageBatch': {
      const queue = queues.byUrl(body.QueueUrl);
      const entries = batchEntries(body.Entries);
      const bytes = entries.reduce((sum, e) => sum + (typeof e.MessageBody === 'string' ? Buffer.byteLength(e.MessageBody) : 0), 0);
      if (bytes > MAX_MESSAGE_BYTES) throw batchError('BatchRequestTooLong', `Batch requests cannot be longer than ${MAX_MESSAGE_BYTES} bytes (got ${bytes}).`);
      return eachEntry(entries, (entry) => sentAnswer(queues.send(queue, entry.MessageBody, entry.DelaySeconds, entry.MessageAttributes)));
    }
    case 'ReceiveMessage': return receiveMessage(queues, body);
    case 'DeleteMessage': {
      queues.delete(queues.byUrl(body.QueueUrl), body.ReceiptHandle);
      return {};
    }
    case 'DeleteMessageBatch': {
      const queue = queues.byUrl(body.QueueUrl);
      return eachEntry(batchEntries(body.Entries), (entry) => {
        queues.delete(queue, entry.ReceiptHandle);
        return {};
      });
    }
    case 'ChangeMessageVisibility': {
      queues.changeVisibility(queues.byUrl(body.QueueUrl), body.ReceiptHandle, body.VisibilityTimeout);
      return {};
    }
    case 'ChangeMessageVisibilityBatch': {
      const queue = queues.byUrl(body.QueueUrl);
      return eachEntry(batchEntries(body.Entries), (entry) => {
        queues.changeVisibility(queue, entry.ReceiptHandle, entry.VisibilityTimeout);
        return {};
      });
    }
    default:
      throw new SqsError('com.amazonaws.sqs#UnsupportedOperation', 'AWS.SimpleQueueService.UnsupportedOperation',
        `The local edge does not implement AmazonSQS.${operation}; it serves GetQueueUrl, CreateQueue, ListQueues, GetQueueAttributes, SendMessage(Batch), ReceiveMessage, DeleteMessage(Batch), ChangeMessageVisibility(Batch).`);
  }
}

/** A batch's entries: 1 to 10, each with a distinct valid Id. */
/** What SendMessage answers for a message, and SendMessageBatch for each entry sent. */
function sentAnswer(message: StoredMessage): Body {
  return { MessageId: message.messageId, MD5OfMessageBody: message.md5OfBody, ...(message.md5OfAttributes ? { MD5OfMessageAttributes: message.md5OfAttributes } : {}) };
}

function batchEntries(value: unknown): Body[] {
  if (!Array.isArray(value) || value.length === 0) throw batchError('EmptyBatchRequest', 'There should be at least one entry in the request: send Entries with 1 to 10 items.');
  if (value.length > MAX_BATCH) throw batchError('TooManyEntriesInBatchRequest', `Maximum number of entries per request are ${MAX_BATCH}. You have sent ${value.length}.`);
  const ids = new Set<string>();
  for (const entry of value as Body[]) {
    const id = entry?.Id;
    if (typeof id !== 'string' || !BATCH_ID.test(id)) {
      throw batchError('InvalidBatchEntryId', `A batch entry id can only contain alphanumeric characters, hyphens and underscores, 1 to 80 of them (got ${JSON.stringify(id)}).`);
    }
    if (ids.has(id)) throw batchError('BatchEntryIdsNotDistinct', `Id ${id} repeated: every entry of a batch needs its own Id.`);
    ids.add(id);
  }
  return value as Body[];
}

/** Runs each entry; one that fails is listed under Failed while the others succeed, as SQS answers batches. */
function eachEntry(entries: Body[], run: (entry: Body) => Body): Body {
  const Successful: Body[] = [];
  const Failed: Body[] = [];
  for (const entry of entries) {
    try {
      Successful.push({ Id: entry.Id, ...run(entry) });
    } catch (error) {
      if (!(error instanceof SqsError)) throw error;
      Failed.push({ Id: entry.Id, SenderFault: true, Code: error.queryCode.replace('AWS.SimpleQueueService.', ''), Message: error.message });
    }
  }
  return { Successful, Failed };
}

function seconds(field: string, value: unknown, max: number): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > max) {
    throw invalidParameter(`${field} is ${JSON.stringify(value)}: send a whole number of seconds from 0 to ${max}.`);
  }
  return value as number;
}

async function receiveMessage(queues: LocalQueues, body: Body): Promise<Body> {
  const queue = queues.byUrl(body.QueueUrl);
  const max = body.MaxNumberOfMessages ?? 1;
  if (!Number.isInteger(max) || (max as number) < 1 || (max as number) > MAX_BATCH) {
    throw invalidParameter(`MaxNumberOfMessages is ${JSON.stringify(body.MaxNumberOfMessages)}: send a whole number from 1 to ${MAX_BATCH}.`);
  }
  const wait = seconds('WaitTimeSeconds', body.WaitTimeSeconds, MAX_WAIT_SECONDS) ?? queue.receiveMessageWaitTimeSeconds;
  const visibility = seconds('VisibilityTimeout', body.VisibilityTimeout, MAX_VISIBILITY_SECONDS);
  let received = queues.receive(queue, max as number, visibility);
  if (received.length === 0 && wait > 0) received = await longPoll(queues, queue, max as number, visibility, wait);
  if (received.length === 0) return {};
  const system = [...asList(body.AttributeNames), ...asList(body.MessageSystemAttributeNames)];
  const custom = asList(body.MessageAttributeNames);
  return { Messages: received.map((r) => messageOf(r, system, custom)) };
}

/** Waits (real time) until a message of the queue becomes visible, the wait ends, or the edge closes. */
function longPoll(queues: LocalQueues, queue: QueueDefinition, max: number, visibility: number | null, wait: number): Promise<ReceivedMessage[]> {
  return new Promise((resolve) => {
    const finish = (received: ReceivedMessage[]) => {
      clearTimeout(timer);
      stop();
      resolve(received);
    };
    const timer = setTimeout(() => finish([]), wait * 1000);
    const stop = queues.onVisible((name) => {
      if (queues.isClosed) return finish([]);
      if (name !== queue.name) return;
      const received = queues.receive(queue, max, visibility);
      if (received.length > 0) finish(received);
    });
  });
}

function asList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function messageOf({ message, receiptHandle }: ReceivedMessage, system: string[], custom: string[]): Body {
  const Attributes = Object.fromEntries(Object.entries(systemAttributes(message)).filter(([name]) => system.includes('All') || system.includes(name)));
  const wanted = (name: string) => custom.some((c) => c === 'All' || c === '.*' || c === name || (c.endsWith('.*') && name.startsWith(c.slice(0, -1))));
  const picked = Object.entries(message.attributes ?? {}).filter(([name]) => wanted(name));
  return {
    MessageId: message.messageId,
    ReceiptHandle: receiptHandle,
    MD5OfBody: message.md5OfBody,
    Body: message.body,
    ...(Object.keys(Attributes).length > 0 ? { Attributes } : {}),
    ...(picked.length > 0 ? { MessageAttributes: Object.fromEntries(picked), MD5OfMessageAttributes: message.md5OfAttributes } : {}),
  };
}

function queueAttributes(queues: LocalQueues, queue: QueueDefinition, names: unknown): Record<string, string> {
  const counts = queues.counts(queue);
  const all: Record<string, string> = {
    QueueArn: queues.arn(queue.name),
    ApproximateNumberOfMessages: String(counts.visible),
    ApproximateNumberOfMessagesNotVisible: String(counts.inFlight),
    ApproximateNumberOfMessagesDelayed: String(counts.delayed),
    VisibilityTimeout: String(queue.visibilityTimeout),
    DelaySeconds: String(queue.delaySeconds),
    ReceiveMessageWaitTimeSeconds: String(queue.receiveMessageWaitTimeSeconds),
    MessageRetentionPeriod: String(queue.messageRetentionPeriod),
    MaximumMessageSize: String(MAX_MESSAGE_BYTES),
    CreatedTimestamp: String(Math.floor(queue.createdAt / 1000)),
    LastModifiedTimestamp: String(Math.floor(queue.createdAt / 1000)),
    ...(queue.redrivePolicy ? { RedrivePolicy: JSON.stringify(queue.redrivePolicy) } : {}),
  };
  const wanted = asList(names);
  if (wanted.includes('All')) return all;
  const answer: Record<string, string> = {};
  for (const name of wanted) {
    if (!(name in all) && name !== 'RedrivePolicy') {
      throw new SqsError('com.amazonaws.sqs#InvalidAttributeName', 'InvalidAttributeName', `Unknown Attribute ${name}: send All or one of ${Object.keys(all).join(', ')}.`);
    }
    if (all[name] !== undefined) answer[name] = all[name];
  }
  return answer;
}

/** CreateQueue with the attributes Holdback uses; the same name with the same attributes answers its URL again. */
function createQueue(queues: LocalQueues, body: Body): Body {
  const name = body.QueueName;
  if (typeof name !== 'string' || !QUEUE_NAME.test(name)) {
    throw invalidParameter(`QueueName ${JSON.stringify(name)} is not valid: send 1 to 80 of A-Z, a-z, 0-9, - and _.`);
  }
  const attributes = (body.Attributes ?? {}) as Record<string, unknown>;
  const number = (field: string, max: number): number | undefined => {
    const text = attributes[field];
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 0 || value > max) {
      throw new SqsError('com.amazonaws.sqs#InvalidAttributeValue', 'InvalidAttributeValue', `Attributes.${field} is ${JSON.stringify(text)}: send a whole number from 0 to ${max}.`);
    }
    return value;
  };
  let redrivePolicy;
  if (attributes.RedrivePolicy !== undefined) {
    try {
      const parsed = JSON.parse(String(attributes.RedrivePolicy)) as { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown };
      const count = Number(parsed.maxReceiveCount);
      if (typeof parsed.deadLetterTargetArn !== 'string' || !Number.isInteger(count) || count < 1 || count > 1000) throw new Error('shape');
      redrivePolicy = { deadLetterTargetArn: parsed.deadLetterTargetArn, maxReceiveCount: count };
    } catch {
      throw new SqsError('com.amazonaws.sqs#InvalidAttributeValue', 'InvalidAttributeValue',
        'Attributes.RedrivePolicy must be JSON {"deadLetterTargetArn": "<queue ARN>", "maxReceiveCount": 1..1000}.');
    }
  }
  const queue = queues.define(name, {
    visibilityTimeout: number('VisibilityTimeout', MAX_VISIBILITY_SECONDS),
    delaySeconds: number('DelaySeconds', 900),
    receiveMessageWaitTimeSeconds: number('ReceiveMessageWaitTimeSeconds', MAX_WAIT_SECONDS),
    messageRetentionPeriod: number('MessageRetentionPeriod', 1_209_600),
    redrivePolicy,
  });
  return { QueueUrl: queues.queueUrl(queue.name) };
}
