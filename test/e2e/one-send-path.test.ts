/** End to end: every due release takes the release queue to the release function; a poison message ends on the DLQ. */
import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { RELEASE_QUEUE } from '../../functions/definitions/routing';
import { startHarness, vendorOf, type Harness } from './harness';

describe('the one send path: event → release queue → release function → gateway', () => {
  let h: Harness;
  let sqs: SQSClient;
  const queueUrl = () => h.runtime.edge.queues.queueUrl(RELEASE_QUEUE.name);
  const dlqUrl = () => h.runtime.edge.queues.queueUrl(RELEASE_QUEUE.deadLetterName);
  const waiting = async (url: string) => {
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
    return Number(Attributes!.ApproximateNumberOfMessages) + Number(Attributes!.ApproximateNumberOfMessagesNotVisible);
  };

  beforeAll(async () => {
    h = await startHarness();
    sqs = new SQSClient({ endpoint: h.runtime.edge.url, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    await h.createVendors([{ id: 'v-now', scheduleOption: 1 }, { id: 'v-later', scheduleOption: 1 }]);
    await h.setPolicy('v-now', { kind: 'immediate' });
    await h.setPolicy('v-later', { kind: 'after_payment', delay: 'P3D' });
  });
  afterAll(async () => {
    sqs.destroy();
    await h.close();
  });

  it('sends a due release and a scheduled one through the queue, each once; a poison message never blocks it and lands on the DLQ', async () => {
    // A message that is not a release command arrives first: the releases behind it still go out.
    const poison = await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl(), MessageBody: '{"hello": "not a release command"}' }));

    const orderId = 'order-queue-1';
    const paidAt = await h.createPaidOrder(orderId, [{ vendorId: 'v-now', amount: 700 }, { vendorId: 'v-later', amount: 300 }]);
    await h.send('order.paid', { orderId, transactionTime: paidAt, vendors: [{ vendorId: 'v-now', amount: 700 }, { vendorId: 'v-later', amount: 300 }] });

    let order = (await h.api('GET', `/orders/${orderId}`)).body;
    // Order events do not send (their functions have no gateway): the APPLIED release went through the queue.
    expect(vendorOf(order, 'v-now')).toMatchObject({ state: 'APPLIED', attempts: [expect.objectContaining({ status: 'OK' })] });
    expect(vendorOf(order, 'v-later').state).toBe('SCHEDULED');
    // The later release's schedule targets the queue, not the function.
    const { schedules } = (await (await fetch(`${h.runtime.edge.url}/_local/schedules`)).json()) as { schedules: Array<{ target: string; expression: string }> };
    // Its name is a digest; the listing reads the order and vendor back from the release command it carries.
    expect(schedules.filter((s) => s.expression.startsWith('at('))).toEqual([expect.objectContaining({ target: RELEASE_QUEUE.name, orderId, vendorId: 'v-later' })]);

    await h.advance('P3D');
    order = (await h.api('GET', `/orders/${orderId}`)).body;
    expect(vendorOf(order, 'v-later')).toMatchObject({ state: 'APPLIED', appliedEligibility: '2022-12-05T16:05:00+05:30' });
    const applied = await h.appliedAtGateway();
    expect([applied.get(`${orderId}/v-now`), applied.get(`${orderId}/v-later`)]).toEqual([1, 1]);

    // P3D passed every visibility timeout: the poison message was received maxReceiveCount times, then moved.
    expect(await waiting(queueUrl())).toBe(0);
    const dead = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl(), MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] }));
    expect(dead.Messages).toEqual([expect.objectContaining({
      MessageId: poison.MessageId,
      Body: '{"hello": "not a release command"}',
      Attributes: expect.objectContaining({ ApproximateReceiveCount: String(RELEASE_QUEUE.maxReceiveCount + 1) }),
    })]);
  });
});
