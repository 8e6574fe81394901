/**
 * The contracts of the ReleaseScheduler and ReleaseQueue ports, run alike against the recording fakes the use-case tests
 * rely on and the production adapters (EventBridge Scheduler, SQS) on the local edge, whose schedules really fire on its
 * clock into its release queue: a fake that drifts from its adapter fails here.
 */
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { ReleaseQueue, ReleaseScheduler } from '../../functions/application/ports';
import { EventBridgeReleaseScheduler } from '../../functions/adapters/scheduler/eventbridge-release-scheduler';
import { SqsReleaseQueue } from '../../functions/adapters/sqs/sqs-release-queue';
import { sdkSendBatch } from '../../functions/adapters/sqs/sqs-batches';
import { SqsRequests } from '../../functions/adapters/sqs/sqs-requests';
import { SchedulerRequests } from '../../functions/adapters/scheduler/scheduler-requests';
import { RELEASE_QUEUE } from '../../functions/definitions/routing';
import type { ReleaseCommand } from '../../functions/domain/types';
import { Instant } from '../../functions/domain/instant';
import { localSchedulerRoleArn } from '../../local/edge/edge';
import { EdgeChannelTransport } from '../../local/lambda/edge-channel';
import { RecordingQueue, RecordingScheduler } from '../fakes/outside-world';
import { credentials, region, startEdge } from '../infra/local-edge';
import { describeEachSubject, type Subject, type Subjects } from './subjects';

interface Sending {
  scheduler: ReleaseScheduler;
  queue: ReleaseQueue;
  /** Moves time to `to` and lets every schedule due by then fire into the release queue. */
  passTime(to: string): Promise<void>;
  /** The commands on the release queue, taken off it (the release function's part), in the order they came. */
  received(): Promise<ReleaseCommand[]>;
}

async function recordingFakes(): Promise<Subject<Sending>> {
  const scheduler = new RecordingScheduler();
  const queue = new RecordingQueue();
  return {
    scheduler,
    queue,
    // Schedules target the release queue (as fakeWorld's fireDueSchedules hands their commands to the release function).
    passTime: async (to) => queue.enqueue(scheduler.takeDue(Instant.parse(to, 'to')).map((due) => due.command)),
    received: async () => queue.take(),
    close: async () => undefined,
  };
}

async function onTheLocalEdge(sender: 'sdk' | 'signed' | 'channel' = 'sdk'): Promise<Subject<Sending>> {
  // No release target: what fires stays on the release queue for the test to read. Its clock starts at START
  // (2022-12-02 16:05 India time), before every time the tests pass.
  const local = await startEdge({});
  const sqs = new SQSClient({ endpoint: local.edge.url, region, credentials });
  const queueUrl = local.edge.queues.queueUrl(RELEASE_QUEUE.name);
  const schedules = new SchedulerRequests({ endpoint: local.edge.url, region, credentials });
  const messages = new SqsRequests({ endpoint: local.edge.url, region, credentials });
  if (sender === 'channel') {
    // As a local Lambda container sends them: the same signed requests over a MessagePort to the edge (edge-channel.ts).
    const transport = new EdgeChannelTransport(local.edge.channel(), local.edge.url);
    schedules.http.transport = transport;
    messages.http.transport = transport;
  }
  return {
    // Scheduler without its SDK client, as every function calls it (scheduler-requests.ts).
    scheduler: new EventBridgeReleaseScheduler(schedules, {
      releaseQueueArn: local.edge.queues.arn(RELEASE_QUEUE.name), schedulerRoleArn: localSchedulerRoleArn(), sleep: async () => undefined,
    }),
    // The functions send without the SDK's client (sqs-requests.ts); the SDK's client sends the same messages.
    queue: new SqsReleaseQueue(sender === 'sdk' ? sdkSendBatch(sqs) : messages.sendMessageBatch, queueUrl),
    passTime: async (to) => {
      await local.clock.set(new Date(Instant.parse(to, 'to').ms));
      await local.edge.idle();
    },
    received: async () => {
      const commands: ReleaseCommand[] = [];
      for (;;) {
        const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
        if (Messages.length === 0) return commands;
        for (const message of Messages) {
          commands.push(JSON.parse(message.Body!) as ReleaseCommand);
          await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle! }));
        }
      }
    },
    close: async () => {
      sqs.destroy();
      await local.edge.close();
    },
  };
}

const SUBJECTS: Subjects<Sending> = [
  ['the recording fakes', recordingFakes],
  ['the Scheduler and SQS adapters without SDK clients (as the functions send) on the local edge', () => onTheLocalEdge('signed')],
  ['the Scheduler adapter and SQS through the SDK\'s client on the local edge', () => onTheLocalEdge('sdk')],
  ['the Scheduler and SQS adapters without SDK clients over a local container\'s channel to the edge', () => onTheLocalEdge('channel')],
];

const command = (n: number): ReleaseCommand => ({ orderId: `order_${n}`, vendorId: 'vendor_A', releaseKey: `rel-order-${n}-vendor-a-1` });
const sorted = (commands: ReleaseCommand[]) => [...commands].sort((a, b) => a.orderId.localeCompare(b.orderId));

describeEachSubject(SUBJECTS, (subject) => {

  describe('ReleaseQueue', () => {
    test('every command enqueued is delivered whole, duplicates included (the release key and the claim decide who sends)', async () => {
      await subject().queue.enqueue([command(1), command(2)]);
      await subject().queue.enqueue([command(1)]);
      expect(sorted(await subject().received())).toEqual([command(1), command(1), command(2)]);
      expect(await subject().received()).toEqual([]);
      await subject().queue.enqueue([]);
      expect(await subject().received()).toEqual([]);
    });
  });

  describe('ReleaseScheduler', () => {
    const schedule = (n: number, time: string) => subject().scheduler.schedule(command(n), Instant.parse(time, 'test time'));
    /** What fired into the release queue by each of `times`, as time passes to each in turn. */
    const firedBy = async (...times: string[]): Promise<ReleaseCommand[][]> => {
      const fired: ReleaseCommand[][] = [];
      for (const to of times) {
        await subject().passTime(to);
        fired.push(await subject().received());
      }
      return fired;
    };

    test('a schedule fires its command into the release queue once its time has come, never before, and once only', async () => {
      await schedule(1, '2022-12-02T17:00:00+05:30');
      await schedule(2, '2022-12-03T10:00:00+05:30');
      expect(await firedBy('2022-12-02T16:59:00+05:30', '2022-12-02T17:00:00+05:30', '2022-12-03T11:00:00+05:30', '2022-12-04T11:00:00+05:30'))
        .toEqual([[], [command(1)], [command(2)], []]);
    });

    test('a schedule of a name that exists is success, and the first one stands: it fires once, at its own time', async () => {
      await schedule(1, '2022-12-02T17:00:00+05:30');
      await schedule(1, '2022-12-05T17:00:00+05:30');
      expect(await firedBy('2022-12-02T17:00:00+05:30', '2022-12-06T00:00:00+05:30')).toEqual([[command(1)], []]);
    });

    test('a cancelled schedule never fires; cancelling one that is gone (or never was) is success', async () => {
      await schedule(1, '2022-12-02T17:00:00+05:30');
      await schedule(2, '2022-12-02T17:00:00+05:30');
      await subject().scheduler.cancel(command(1).releaseKey);
      await subject().scheduler.cancel(command(1).releaseKey);
      await subject().scheduler.cancel('rel-never-scheduled-1');
      expect(await firedBy('2022-12-02T18:00:00+05:30')).toEqual([[command(2)]]);
      await subject().scheduler.cancel(command(2).releaseKey);
    });

    test('a time given in any offset is the same instant; a time within a minute fires no earlier than it', async () => {
      // 11:30Z is 17:00 India time; 17:00:20 is not a whole minute (Scheduler's at() is in minutes: it rounds up).
      await schedule(1, '2022-12-02T11:30:00Z');
      await schedule(2, '2022-12-02T17:00:20+05:30');
      expect(await firedBy('2022-12-02T16:59:59+05:30', '2022-12-02T17:00:00+05:30', '2022-12-02T17:01:00+05:30')).toEqual([[], [command(1)], [command(2)]]);
    });
  });
});
