/**
 * The local Lambda containers' signed Scheduler, EventBridge and SQS requests over a MessagePort to the local edge
 * (local/lambda/edge-channel.ts, signed-request.ts' transport): every call answers exactly as over loopback HTTP (a
 * schedule made, refusals with their codes and messages, events put and refused, messages sent), the edge's state
 * after it is the same, a call in flight when the edge closes or drops it fails as a reset connection, and the
 * runtime's containers send that way while its own thread keeps HTTP.
 */
import { join } from 'node:path';
import { BroadcastChannel, MessageChannel } from 'node:worker_threads';
import type { CreateScheduleCommandInput } from '@aws-sdk/client-scheduler';
import { SchedulerRequests } from '../../../functions/adapters/scheduler/scheduler-requests';
import { EventBridgeRequests } from '../../../functions/adapters/eventbridge/eventbridge-requests';
import { SqsRequests } from '../../../functions/adapters/sqs/sqs-requests';
import { LOCAL_FUNCTIONS_ACCESS_KEY, RELEASE_QUEUE } from '../../../functions/definitions/routing';
import { localSchedulerRoleArn } from '../../../local/edge/edge';
import { EdgeChannelTransport, type EdgeRequestMessage } from '../../../local/lambda/edge-channel';
import { region, startEdge, type TestEdge } from '../local-edge';
import { startHarness } from '../../e2e/harness';
import { PROBE_CHANNEL, type HandlerSeen } from './request-handler-probe';

const credentials = { accessKeyId: LOCAL_FUNCTIONS_ACCESS_KEY, secretAccessKey: 'local' };

/** What a call answered, or how it failed, with the ids that differ on every call written as ID. */
async function outcome(call: Promise<unknown>): Promise<unknown> {
  try {
    return { answer: JSON.parse(JSON.stringify(await call).replace(/"(MessageId|EventId)":"[^"]+"/g, '"$1":"ID"')) };
  } catch (error) {
    const e = error as { name: string; message: string; $metadata?: { httpStatusCode?: number } };
    return { status: e.$metadata?.httpStatusCode, error: e.name, message: e.message };
  }
}

/** The same calls on `local`'s edge, over HTTP or over a channel; what each answered, and what the edge then holds. */
async function walk(local: TestEdge, over: 'http' | 'channel'): Promise<{ outcomes: unknown[]; schedules: unknown; queued: number; events: unknown }> {
  const target = { endpoint: local.edge.url, region, credentials };
  const scheduler = new SchedulerRequests(target);
  const events = new EventBridgeRequests(target);
  const sqs = new SqsRequests(target);
  if (over === 'channel') {
    const transport = new EdgeChannelTransport(local.edge.channel(), local.edge.url);
    for (const sender of [scheduler, events, sqs]) sender.http.transport = transport;
  }
  const queueUrl = local.edge.queues.queueUrl(RELEASE_QUEUE.name);
  const schedule = (Name: string, at: string): CreateScheduleCommandInput => ({
    Name, ScheduleExpression: `at(${at})`, ScheduleExpressionTimezone: 'Asia/Kolkata', FlexibleTimeWindow: { Mode: 'OFF' }, ActionAfterCompletion: 'DELETE',
    ClientToken: `token-${Name}`,
    Target: { Arn: local.edge.queues.arn(RELEASE_QUEUE.name), RoleArn: localSchedulerRoleArn(), Input: JSON.stringify({ orderId: 'order_1', vendorId: 'vendor_A', releaseKey: Name }) },
  });
  const calls: Array<() => Promise<unknown>> = [
    () => scheduler.createSchedule(schedule('rel-order-1-vendor-a-1', '2022-12-05T15:30:00')),
    // Refused: the name is taken; the expression is not a date.
    () => scheduler.createSchedule(schedule('rel-order-1-vendor-a-1', '2022-12-05T15:30:00')),
    () => scheduler.createSchedule(schedule('rel-order-2-vendor-a-1', 'next tuesday')),
    () => scheduler.deleteSchedule({ Name: 'rel-order-9-vendor-a-1' }),
    () => scheduler.deleteSchedule({ Name: 'rel-order-1-vendor-a-1' }),
    () => events.putEvents({ Entries: [{ Source: 'holdback', DetailType: 'vendor.release_applied', Detail: JSON.stringify({ orderId: 'order_1', note: 'Café ₹' }), EventBusName: 'default' }] }),
    // Refused: Holdback's functions put only the detail types they emit (the bus policy, read from the signature).
    () => events.putEvents({ Entries: [{ Source: 'holdback', DetailType: 'vendor.made_up', Detail: '{}', EventBusName: 'default' }] }),
    () => sqs.sendMessageBatch({ QueueUrl: queueUrl, Entries: [{ Id: 'a', MessageBody: '{"orderId":"order_1"}' }, { Id: 'b', MessageBody: '{"orderId":"order_2","note":"₹"}' }] }),
    // Refused: no such queue; a batch of no entries.
    () => sqs.sendMessageBatch({ QueueUrl: `${local.edge.url}/000000000000/no-such-queue`, Entries: [{ Id: 'a', MessageBody: 'x' }] }),
    () => sqs.sendMessageBatch({ QueueUrl: queueUrl, Entries: [] }),
  ];
  const outcomes: unknown[] = [];
  for (const call of calls) outcomes.push(JSON.parse(JSON.stringify(await outcome(call())).split(local.edge.url).join('EDGE')));
  const queue = local.edge.queues.byName(RELEASE_QUEUE.name);
  return {
    outcomes,
    schedules: local.edge.scheduler.list().map((s) => ({ ...s, CreationDate: undefined, LastModificationDate: undefined })),
    queued: local.edge.queues.counts(queue).visible,
    events: local.edge.bus.find({}).map((e) => ({ source: e.source, type: e['detail-type'], detail: e.detail })),
  };
}

test('every call answers over the channel exactly as over HTTP, and leaves the edge as HTTP does', async () => {
  const overHttp = await startEdge({});
  const overChannel = await startEdge({});
  try {
    const http = await walk(overHttp, 'http');
    const channel = await walk(overChannel, 'channel');
    expect(channel).toEqual(http);
    // The walk met what it was written to meet: a schedule made, refusals of each service, messages and an event kept.
    expect(http.outcomes[0]).toMatchObject({ answer: { ScheduleArn: expect.stringContaining('rel-order-1-vendor-a-1') } });
    expect(http.outcomes[1]).toMatchObject({ status: 409, error: 'ConflictException' });
    expect(http.outcomes[2]).toMatchObject({ status: 400, error: 'ValidationException' });
    expect(http.outcomes[3]).toMatchObject({ status: 404, error: 'ResourceNotFoundException' });
    expect(http.outcomes[6]).toMatchObject({ status: 400, error: 'AccessDeniedException' });
    expect(http.outcomes[7]).toMatchObject({ answer: { Successful: [expect.objectContaining({ Id: 'a' }), expect.objectContaining({ Id: 'b' })] } });
    expect(http.outcomes[8]).toMatchObject({ error: 'QueueDoesNotExist' });
    expect(http.outcomes[9]).toMatchObject({ status: 400 });
    expect(http.queued).toBe(2);
    expect(http.events).toEqual([{ source: 'holdback', type: 'vendor.release_applied', detail: { orderId: 'order_1', note: 'Café ₹' } }]);
  } finally {
    await overHttp.edge.close();
    await overChannel.edge.close();
  }
});

test('a request goes over the channel only to the edge\'s origin; the edge\'s answer is its HTTP server\'s (loopback check included)', async () => {
  const { port1, port2 } = new MessageChannel();
  const seen: EdgeRequestMessage[] = [];
  port2.on('message', (message: EdgeRequestMessage) => {
    seen.push(message);
    port2.postMessage({ id: message.id, status: 200, headers: { 'content-type': 'application/x-amz-json-1.1' }, body: '{"FailedEntryCount":0,"Entries":[{"EventId":"e-1"}]}' });
  });
  const transport = new EdgeChannelTransport(port1, 'http://127.0.0.1:4566');
  expect(transport.carries(new URL('http://127.0.0.1:4566/'))).toBe(true);
  expect(transport.carries(new URL('http://127.0.0.1:4567/'))).toBe(false);
  expect(transport.carries(new URL('https://events.ap-south-1.amazonaws.com/'))).toBe(false);
  const events = new EventBridgeRequests({ endpoint: 'http://127.0.0.1:4566', region, credentials });
  events.http.transport = transport;
  expect(await events.putEvents({ Entries: [{ Source: 'holdback', DetailType: 'x', Detail: '{}' }] })).toEqual({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
  // Signed as over HTTP: the signature's headers, lower case, and the body as signed.
  expect(seen[0]).toMatchObject({ method: 'POST', url: '/', headers: { host: '127.0.0.1:4566', 'x-amz-target': 'AWSEvents.PutEvents', authorization: expect.stringMatching(/^AWS4-HMAC-SHA256 Credential=/) } });
  expect(JSON.parse(Buffer.from(seen[0].body).toString('utf8'))).toMatchObject({ Entries: [{ Source: 'holdback' }] });
  port1.close();

  // A foreign Host is refused by the edge's own listener over the channel too.
  const local = await startEdge({});
  try {
    const edgePort = local.edge.channel();
    const foreign = new EdgeChannelTransport(edgePort, local.edge.url);
    const answer = await foreign.send({ method: 'POST', target: '/', headers: { host: 'evil.example:80', 'x-amz-target': 'AWSEvents.PutEvents', 'content-type': 'application/x-amz-json-1.1' }, body: Buffer.from('{}') });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body.toString('utf8'))).toMatchObject({ __type: 'AccessDeniedException' });
  } finally {
    await local.edge.close();
  }
});

test('a call in flight when the edge closes, or that the edge drops, fails as a reset connection; later calls too', async () => {
  const { port1, port2 } = new MessageChannel();
  const requests: EdgeRequestMessage[] = [];
  port2.on('message', (message: EdgeRequestMessage) => requests.push(message));
  const transport = new EdgeChannelTransport(port1, 'http://127.0.0.1:4566');
  const request = { method: 'POST', target: '/', headers: { 'X-Amz-Target': 'AmazonSQS.SendMessageBatch' }, body: Buffer.from('{}') };
  const dropped = transport.send(request);
  while (requests.length < 1) await new Promise((r) => setTimeout(r, 5));
  expect(requests[0].headers).toEqual({ 'x-amz-target': 'AmazonSQS.SendMessageBatch' });
  port2.postMessage({ id: requests[0].id, status: 0, headers: {}, body: '', reset: true });
  await expect(dropped).rejects.toMatchObject({ code: 'ECONNRESET' });
  const inFlight = transport.send(request);
  while (requests.length < 2) await new Promise((r) => setTimeout(r, 5));
  port2.close();
  await expect(inFlight).rejects.toMatchObject({ code: 'ECONNRESET' });
  await expect(transport.send(request)).rejects.toMatchObject({ code: 'ECONNRESET' });

  // The edge closing closes its channels: a sender on one then fails (after its retries) as on a refused connection.
  const local = await startEdge({});
  const sqs = new SqsRequests({ endpoint: local.edge.url, region, credentials });
  sqs.http.transport = new EdgeChannelTransport(local.edge.channel(), local.edge.url);
  const queueUrl = local.edge.queues.queueUrl(RELEASE_QUEUE.name);
  await expect(sqs.sendMessageBatch({ QueueUrl: queueUrl, Entries: [{ Id: 'a', MessageBody: 'before' }] })).resolves.toMatchObject({ Successful: [{ Id: 'a' }] });
  await local.edge.close();
  await expect(sqs.sendMessageBatch({ QueueUrl: queueUrl, Entries: [{ Id: 'a', MessageBody: 'after' }] })).rejects.toMatchObject({ code: 'ECONNRESET' });
});

test('the runtime\'s Lambda containers send Scheduler and SQS calls over the channel; the runtime\'s own thread over HTTP', async () => {
  const seen: HandlerSeen[] = [];
  const listener = new BroadcastChannel(PROBE_CHANNEL);
  listener.onmessage = (event) => seen.push((event as { data: HandlerSeen }).data);
  const harness = await startHarness({ clientHook: join(__dirname, 'request-handler-probe.ts') });
  const containerSent = (service: string) => seen.some((s) => !s.mainThread && s.service === service && s.calls > 0);
  try {
    await harness.createVendors([{ id: 'vendor_channel', scheduleOption: 1 }]);
    await harness.setPolicy('vendor_channel', { kind: 'after_payment', delay: 'P1D' });
    // One order due a day after now (CreateSchedule), one paid two days ago, so due already (SendMessageBatch to the release queue).
    const early = await harness.createPaidOrder('order-edge-channel-early', [{ vendorId: 'vendor_channel', amount: 100 }]);
    await harness.advance('P2D');
    const paid = await harness.createPaidOrder('order-edge-channel-late', [{ vendorId: 'vendor_channel', amount: 200 }]);
    await harness.send('order.paid', { orderId: 'order-edge-channel-late', transactionTime: paid, vendors: [{ vendorId: 'vendor_channel', amount: 200 }] });
    await harness.send('order.paid', { orderId: 'order-edge-channel-early', transactionTime: early, vendors: [{ vendorId: 'vendor_channel', amount: 100 }] });
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && !(containerSent('Scheduler') && containerSent('SQS'))) await new Promise((r) => setTimeout(r, 50));
  } finally {
    await harness.close();
    listener.close();
  }
  const containers = seen.filter((s) => !s.mainThread && ['Scheduler', 'SQS'].includes(s.service) && s.calls > 0);
  expect(new Set(containers.map((s) => s.service))).toEqual(new Set(['Scheduler', 'SQS']));
  expect(new Set(containers.map((s) => s.handler))).toEqual(new Set(['EdgeChannelTransport']));
  // The runtime's thread (the API, and the publisher the containers' events go out through) keeps HTTP.
  const runtime = seen.filter((s) => s.mainThread && ['Scheduler', 'SQS', 'EventBridge'].includes(s.service) && s.calls > 0);
  expect(runtime.length).toBeGreaterThan(0);
  expect(runtime.every((s) => s.handler === 'none')).toBe(true);
});
