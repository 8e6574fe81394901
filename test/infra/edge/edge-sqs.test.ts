/** The edge's SQS through the real @aws-sdk/client-sqs: every operation, delays and visibility on the shared clock, redrive, errors, and the release queue's event source mapping. */
import {
  BatchEntryIdsNotDistinct, ChangeMessageVisibilityCommand, CreateQueueCommand, DeleteMessageBatchCommand, DeleteMessageCommand,
  GetQueueAttributesCommand, GetQueueUrlCommand, MessageNotInflight, QueueDoesNotExist, ReceiptHandleIsInvalid, ReceiveMessageCommand,
  SendMessageBatchCommand, SendMessageCommand, SQSClient, TooManyEntriesInBatchRequest,
} from '@aws-sdk/client-sqs';
import { SchedulerClient, CreateScheduleCommand } from '@aws-sdk/client-scheduler';
import { RELEASE_QUEUE, RELEASE_SCHEDULE_GROUP } from '../../../functions/definitions/routing';
import { SharedClock } from '../../../local/clock';
import { localSchedulerRoleArn } from '../../../local/edge/edge';
import { credentials, region, startEdge, START, type TestEdge } from '../local-edge';

const DLQ_ARN = `arn:aws:sqs:us-east-1:000000000000:${RELEASE_QUEUE.deadLetterName}`;

describe('SQS operations', () => {
  const clock = new SharedClock({ start: new Date(START), frozen: true });
  let local: TestEdge;
  let sqs: SQSClient;
  let url: string;
  let scratch = 0;
  /** A queue of its own for one test, with a short visibility timeout and a redrive to the release DLQ after 2 receives. */
  const queueFor = async (attributes: Record<string, string> = {}) => {
    const created = await sqs.send(new CreateQueueCommand({
      QueueName: `scratch-${scratch++}`,
      Attributes: { VisibilityTimeout: '30', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: DLQ_ARN, maxReceiveCount: 2 }), ...attributes },
    }));
    return created.QueueUrl!;
  };

  beforeAll(async () => {
    local = await startEdge({}, clock);
    sqs = new SQSClient({ endpoint: local.edge.url, region, credentials });
    url = (await sqs.send(new GetQueueUrlCommand({ QueueName: RELEASE_QUEUE.name }))).QueueUrl!;
  });

  afterAll(async () => {
    sqs.destroy();
    await local.edge.close();
  });

  test('GetQueueUrl and GetQueueAttributes: the release queue with the shared numbers and its redrive to the DLQ', async () => {
    expect(url).toBe(`${local.edge.url}/000000000000/${RELEASE_QUEUE.name}`);
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }));
    expect(Attributes).toMatchObject({
      QueueArn: `arn:aws:sqs:us-east-1:000000000000:${RELEASE_QUEUE.name}`,
      VisibilityTimeout: String(RELEASE_QUEUE.visibilityTimeoutSeconds),
      ApproximateNumberOfMessages: '0',
    });
    expect(JSON.parse(Attributes!.RedrivePolicy!)).toEqual({ deadLetterTargetArn: DLQ_ARN, maxReceiveCount: RELEASE_QUEUE.maxReceiveCount });
    await expect(sqs.send(new GetQueueUrlCommand({ QueueName: 'no-such-queue' }))).rejects.toBeInstanceOf(QueueDoesNotExist);
  });

  test('SendMessage, ReceiveMessage and DeleteMessage, with the body checksums the SDK verifies', async () => {
    const queue = await queueFor();
    const body = JSON.stringify({ orderId: 'order_1', vendorId: 'vendor_A', releaseKey: 'rel-x-1', note: 'ünïcødé ₹' });
    const sent = await sqs.send(new SendMessageCommand({
      QueueUrl: queue, MessageBody: body, MessageAttributes: { reason: { DataType: 'String', StringValue: 'test' } },
    }));
    expect(sent.MessageId).toMatch(/^[0-9a-f-]{36}$/);
    const got = await sqs.send(new ReceiveMessageCommand({
      QueueUrl: queue, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'],
    }));
    expect(got.Messages).toHaveLength(1);
    const [message] = got.Messages!;
    expect(message).toMatchObject({ MessageId: sent.MessageId, Body: body, MessageAttributes: { reason: { DataType: 'String', StringValue: 'test' } } });
    expect(message.MD5OfMessageAttributes).toBe(sent.MD5OfMessageAttributes);
    expect(message.Attributes).toMatchObject({ ApproximateReceiveCount: '1', SentTimestamp: String(Date.parse(START)) });
    // In flight: nobody else receives it.
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue }))).Messages).toBeUndefined();
    await sqs.send(new DeleteMessageCommand({ QueueUrl: queue, ReceiptHandle: message.ReceiptHandle }));
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queue, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
    expect(Attributes).toEqual({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '0' });
  });

  test('SendMessageBatch and DeleteMessageBatch: one bad entry fails alone; the batch rules are enforced', async () => {
    const queue = await queueFor();
    const entries = Array.from({ length: 9 }, (_, i) => ({ Id: `e${i}`, MessageBody: `message ${i}` }));
    const sent = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queue, Entries: [...entries, { Id: 'late', MessageBody: 'x', DelaySeconds: 901 }] }));
    expect(sent.Successful?.map((s) => s.Id)).toEqual(entries.map((e) => e.Id));
    expect(sent.Failed).toEqual([expect.objectContaining({ Id: 'late', SenderFault: true, Code: 'InvalidParameterValue', Message: expect.stringContaining('DelaySeconds') })]);
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue, MaxNumberOfMessages: 10 }));
    expect(got.Messages?.map((m) => m.Body)).toEqual(entries.map((e) => e.MessageBody));
    const deleted = await sqs.send(new DeleteMessageBatchCommand({
      QueueUrl: queue, Entries: [...got.Messages!.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle })), { Id: 'bad', ReceiptHandle: 'not-a-handle' }],
    }));
    expect(deleted.Successful).toHaveLength(9);
    expect(deleted.Failed).toEqual([expect.objectContaining({ Id: 'bad', Code: 'ReceiptHandleIsInvalid' })]);

    const eleven = Array.from({ length: 11 }, (_, i) => ({ Id: `e${i}`, MessageBody: 'x' }));
    await expect(sqs.send(new SendMessageBatchCommand({ QueueUrl: queue, Entries: eleven }))).rejects.toBeInstanceOf(TooManyEntriesInBatchRequest);
    await expect(sqs.send(new SendMessageBatchCommand({ QueueUrl: queue, Entries: [{ Id: 'a', MessageBody: 'x' }, { Id: 'a', MessageBody: 'y' }] })))
      .rejects.toBeInstanceOf(BatchEntryIdsNotDistinct);
  });

  test('a delayed message becomes visible when the shared clock reaches its delay', async () => {
    const queue = await queueFor();
    await sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: 'later', DelaySeconds: 60 }));
    const attributes = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queue, AttributeNames: ['ApproximateNumberOfMessagesDelayed'] }));
    expect(attributes.Attributes).toEqual({ ApproximateNumberOfMessagesDelayed: '1' });
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue }))).Messages).toBeUndefined();
    await local.setClock({ advance: 'PT59S' });
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue }))).Messages).toBeUndefined();
    await local.setClock({ advance: 'PT1S' });
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue }))).Messages?.map((m) => m.Body)).toEqual(['later']);
  });

  test('visibility: an undeleted message comes back after its timeout; ChangeMessageVisibility moves it', async () => {
    const queue = await queueFor({ RedrivePolicy: JSON.stringify({ deadLetterTargetArn: DLQ_ARN, maxReceiveCount: 10 }) });
    await sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: 'again' }));
    const first = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue, VisibilityTimeout: 45 }))).Messages![0];
    await local.setClock({ advance: 'PT44S' });
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue }))).Messages).toBeUndefined();
    await local.setClock({ advance: 'PT1S' });
    const second = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue, MessageSystemAttributeNames: ['ApproximateReceiveCount'] }))).Messages![0];
    expect(second).toMatchObject({ MessageId: first.MessageId, Attributes: { ApproximateReceiveCount: '2' } });
    expect(second.ReceiptHandle).not.toBe(first.ReceiptHandle);
    // The older receive's handle no longer names the message in flight.
    await expect(sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queue, ReceiptHandle: first.ReceiptHandle, VisibilityTimeout: 0 })))
      .rejects.toBeInstanceOf(MessageNotInflight);
    await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queue, ReceiptHandle: second.ReceiptHandle, VisibilityTimeout: 0 }));
    const third = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue }))).Messages![0];
    expect(third.MessageId).toBe(first.MessageId);
    await expect(sqs.send(new DeleteMessageCommand({ QueueUrl: queue, ReceiptHandle: 'garbage' }))).rejects.toBeInstanceOf(ReceiptHandleIsInvalid);
  });

  test('redrive: after maxReceiveCount receives the message moves to the dead-letter queue, naming its source', async () => {
    const queue = await queueFor();
    const dlq = (await sqs.send(new GetQueueUrlCommand({ QueueName: RELEASE_QUEUE.deadLetterName }))).QueueUrl!;
    const sent = await sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: 'poison' }));
    // Received twice (maxReceiveCount 2); the third receive moves it instead, and the DLQ's receive is its third.
    for (let receive = 1; receive <= 2; receive += 1) {
      expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue }))).Messages?.[0].MessageId).toBe(sent.MessageId);
      await local.setClock({ advance: 'PT30S' });
    }
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue }))).Messages).toBeUndefined();
    const dead = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] }))).Messages!;
    const moved = dead.find((m) => m.MessageId === sent.MessageId)!;
    expect(moved).toMatchObject({ Body: 'poison', Attributes: { DeadLetterQueueSourceArn: expect.stringMatching(/:scratch-\d+$/), ApproximateReceiveCount: '3' } });
    await sqs.send(new DeleteMessageCommand({ QueueUrl: dlq, ReceiptHandle: moved.ReceiptHandle }));
  });

  test('a long poll answers as soon as a message arrives', async () => {
    const queue = await queueFor();
    const polling = sqs.send(new ReceiveMessageCommand({ QueueUrl: queue, WaitTimeSeconds: 20 }));
    await new Promise((resolve) => setImmediate(resolve));
    await sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: 'awaited' }));
    // Woken by the send: a poll that waited out its 20 s would answer no message (and outlast the test's timeout).
    expect((await polling).Messages?.map((m) => m.Body)).toEqual(['awaited']);
  });

  test('errors carry __type and x-amzn-query-error, and bad parameters name the field', async () => {
    const post = (operation: string, body: object) => fetch(local.edge.url, {
      method: 'POST', body: JSON.stringify(body),
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${operation}`, 'x-amzn-query-mode': 'true' },
    });
    const missing = await post('SendMessage', { QueueUrl: `${local.edge.url}/000000000000/nope`, MessageBody: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.headers.get('x-amzn-query-error')).toBe('AWS.SimpleQueueService.NonExistentQueue;Sender');
    expect(await missing.json()).toEqual({ __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: expect.stringContaining('nope') });
    await expect(sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x', DelaySeconds: 901 })))
      .rejects.toMatchObject({ name: 'InvalidParameterValue', message: expect.stringContaining('DelaySeconds') });
    await expect(sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 11 })))
      .rejects.toMatchObject({ message: expect.stringContaining('MaxNumberOfMessages') });
    const unknown = await post('PurgeQueue', { QueueUrl: url });
    expect(unknown.headers.get('x-amzn-query-error')).toBe('AWS.SimpleQueueService.UnsupportedOperation;Sender');
  });
});

describe('the release queue drives the release function (event source mapping)', () => {
  test('batches of at most batchSize, at most maximumConcurrency at once, each environment one invocation at a time', async () => {
    const clock = new SharedClock({ start: new Date(START), frozen: true });
    const invocations: Array<{ environment: number | undefined; bodies: string[]; finish: () => void }> = [];
    let running = 0;
    let mostAtOnce = 0;
    const busyEnvironments = new Set<number | undefined>();
    const release = (event: unknown, environment?: number) => new Promise<unknown>((resolve) => {
      expect(busyEnvironments.has(environment)).toBe(false);
      busyEnvironments.add(environment);
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      const records = (event as { Records: Array<{ body: string; eventSource: string; eventSourceARN: string }> }).Records;
      for (const r of records) expect(r).toMatchObject({ eventSource: 'aws:sqs', eventSourceARN: expect.stringMatching(/:holdback-releases$/) });
      invocations.push({
        environment, bodies: records.map((r) => r.body),
        finish: () => { running -= 1; busyEnvironments.delete(environment); resolve(undefined); },
      });
    });
    const local = await startEdge({ release }, clock);
    const sqs = new SQSClient({ endpoint: local.edge.url, region, credentials });
    try {
      const url = local.edge.queues.queueUrl(RELEASE_QUEUE.name);
      // Two batches more than the mapping may run at once, and a last short one.
      const bodies = Array.from({ length: (RELEASE_QUEUE.maximumConcurrency + 2) * RELEASE_QUEUE.batchSize + 3 }, (_, i) => `command ${i}`);
      for (let i = 0; i < bodies.length; i += 10) {
        await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: bodies.slice(i, i + 10).map((MessageBody, n) => ({ Id: `m${n}`, MessageBody })) }));
      }
      await new Promise((resolve) => setImmediate(resolve));
      // Full batches, and no more invocations than the maximum concurrency while none has finished.
      expect(invocations.map((i) => i.bodies.length)).toEqual(Array(RELEASE_QUEUE.maximumConcurrency).fill(RELEASE_QUEUE.batchSize));
      while (invocations.some((i) => i.finish)) {
        const next = invocations.find((i) => i.finish)!;
        const finish = next.finish;
        (next as { finish?: () => void }).finish = undefined;
        finish();
        await new Promise((resolve) => setImmediate(resolve));
      }
      await local.edge.idle();
      expect(mostAtOnce).toBe(RELEASE_QUEUE.maximumConcurrency);
      expect(invocations.flatMap((i) => i.bodies).sort()).toEqual([...bodies].sort());
      expect(new Set(invocations.map((i) => i.environment))).toEqual(new Set(Array.from({ length: RELEASE_QUEUE.maximumConcurrency }, (_, i) => i)));
      // Every message succeeded, so every one was deleted.
      expect(local.edge.queues.counts(local.edge.queues.byName(RELEASE_QUEUE.name))).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
    } finally {
      sqs.destroy();
      await local.edge.close();
    }
  });

  test('batchItemFailures keep only those messages; a failing invocation returns its batch; a poison message ends on the DLQ', async () => {
    const clock = new SharedClock({ start: new Date(START), frozen: true });
    const seen: Array<{ body: string; count: string }> = [];
    const release = async (event: unknown) => {
      const records = (event as { Records: Array<{ messageId: string; body: string; attributes: { ApproximateReceiveCount: string } }> }).Records;
      for (const r of records) seen.push({ body: r.body, count: r.attributes.ApproximateReceiveCount });
      if (records.some((r) => r.body === 'crash')) throw new Error('function error');
      return { batchItemFailures: records.filter((r) => r.body === 'poison').map((r) => ({ itemIdentifier: r.messageId })) };
    };
    const local = await startEdge({ release }, clock);
    const sqs = new SQSClient({ endpoint: local.edge.url, region, credentials });
    try {
      const url = local.edge.queues.queueUrl(RELEASE_QUEUE.name);
      await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: 'a', MessageBody: 'good' }, { Id: 'b', MessageBody: 'poison' }] }));
      await local.edge.idle();
      const queue = local.edge.queues.byName(RELEASE_QUEUE.name);
      expect(local.edge.queues.counts(queue)).toEqual({ visible: 0, inFlight: 1, delayed: 0 });
      // The poison message comes back after each visibility timeout until its receives run out, then goes to the DLQ.
      for (let receive = 2; receive <= RELEASE_QUEUE.maxReceiveCount + 1; receive += 1) {
        await local.setClock({ advance: `PT${RELEASE_QUEUE.visibilityTimeoutSeconds}S` });
      }
      expect(seen.filter((s) => s.body === 'poison').map((s) => s.count)).toEqual(Array.from({ length: RELEASE_QUEUE.maxReceiveCount }, (_, i) => String(i + 1)));
      expect(seen.filter((s) => s.body === 'good')).toHaveLength(1);
      expect(local.edge.queues.counts(queue)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
      const dlq = (await sqs.send(new GetQueueUrlCommand({ QueueName: RELEASE_QUEUE.deadLetterName }))).QueueUrl!;
      expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq }))).Messages?.map((m) => m.Body)).toEqual(['poison']);

      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'crash' }));
      await local.edge.idle();
      expect(local.edge.queues.counts(queue)).toEqual({ visible: 0, inFlight: 1, delayed: 0 });
      expect(local.logs.join('\n')).toContain('function failed on 1 messages: function error');
    } finally {
      sqs.destroy();
      await local.edge.close();
    }
  });

  test('a schedule whose target is the queue ARN sends its Input as the message body when it fires', async () => {
    const clock = new SharedClock({ start: new Date(START), frozen: true });
    const bodies: string[] = [];
    const release = async (event: unknown) => {
      for (const r of (event as { Records: Array<{ body: string }> }).Records) bodies.push(r.body);
    };
    const local = await startEdge({ release }, clock);
    const scheduler = new SchedulerClient({ endpoint: local.edge.url, region, credentials });
    try {
      const command = { orderId: 'order_1', vendorId: 'vendor_A', releaseKey: 'rel-q-1' };
      await scheduler.send(new CreateScheduleCommand({
        Name: 'rel-q-1', GroupName: RELEASE_SCHEDULE_GROUP, ScheduleExpression: 'at(2022-12-02T16:10:00)', ScheduleExpressionTimezone: 'Asia/Kolkata',
        FlexibleTimeWindow: { Mode: 'OFF' }, ActionAfterCompletion: 'DELETE',
        Target: { Arn: local.edge.queues.arn(RELEASE_QUEUE.name), RoleArn: localSchedulerRoleArn(), Input: JSON.stringify(command) },
      }));
      const listed = (await (await fetch(`${local.edge.url}/_local/schedules`)).json()) as { schedules: Array<{ name: string; target: string }> };
      expect(listed.schedules).toContainEqual(expect.objectContaining({ name: 'rel-q-1', target: RELEASE_QUEUE.name }));
      await local.setClock({ now: '2022-12-02T16:09:59+05:30' });
      expect(bodies).toEqual([]);
      await local.setClock({ now: '2022-12-02T16:10:00+05:30' });
      expect(bodies).toEqual([JSON.stringify(command)]);
      await expect(scheduler.send(new CreateScheduleCommand({
        Name: 'rel-q-2', ScheduleExpression: 'at(2022-12-02T16:10:00)', FlexibleTimeWindow: { Mode: 'OFF' },
        Target: { Arn: 'arn:aws:sqs:us-east-1:000000000000:missing', RoleArn: localSchedulerRoleArn(), Input: '{}' },
      }))).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringContaining('is not a local queue') });
    } finally {
      scheduler.destroy();
      await local.edge.close();
    }
  });
});
