/**
 * The job queues on SQS (contract 6.3, issue 17.7): the production adapter against the local edge, whose event source
 * mappings deliver each queue to its own function. A step goes to the queue of the function that runs its job's kind:
 * exports and verifications to the export job queue (the export-jobs function), every other kind to the job queue
 * (the jobs function); without an export job queue configured, everything goes to the job queue. Each case runs with
 * both senders: the SDK client's SendMessageBatch and the one without a client (sqs-requests.ts: export-jobs, apiAudit).
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { JobStep } from '../../functions/application/ports';
import { SqsJobQueue } from '../../functions/adapters/sqs/sqs-job-queue';
import { sdkSendBatch } from '../../functions/adapters/sqs/sqs-batches';
import { SqsRequests } from '../../functions/adapters/sqs/sqs-requests';
import { EXPORT_JOB_KINDS, EXPORT_JOB_QUEUE, JOB_QUEUE } from '../../functions/definitions/routing';
import { JOB_KINDS } from '../../functions/application/ports';
import { credentials, region, startEdge, type TestEdge } from '../infra/local-edge';

let local: TestEdge;
let sqs: SQSClient;
/** The two senders a job queue is built with: the SDK client's, and SendMessageBatch signed without the client. */
const SENDERS = [
  ['the SDK client', () => sdkSendBatch(sqs)],
  ['SqsRequests (no SDK client)', () => new SqsRequests({ endpoint: local.edge.url, region, credentials }).sendMessageBatch],
] as const;
const delivered: Record<'jobs' | 'exportJobs', JobStep[]> = { jobs: [], exportJobs: [] };
const recorder = (name: keyof typeof delivered) => async (event: unknown) => {
  for (const record of (event as { Records: { body: string }[] }).Records) delivered[name].push(JSON.parse(record.body) as JobStep);
  return { batchItemFailures: [] };
};

beforeAll(async () => {
  local = await startEdge({ jobs: recorder('jobs'), exportJobs: recorder('exportJobs') });
  local.edge.resume();
  sqs = new SQSClient({ endpoint: local.edge.url, region, credentials });
});

afterAll(async () => {
  sqs.destroy();
  await local.edge.close();
});

beforeEach(() => {
  delivered.jobs.length = 0;
  delivered.exportJobs.length = 0;
});

/** Waits (polling) until `count` steps were delivered in all. */
async function deliveredCount(count: number): Promise<void> {
  for (let round = 0; round < 600 && delivered.jobs.length + delivered.exportJobs.length < count; round += 1) {
    await local.edge.idle();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const stepOf = (kind: JobStep['kind'], n: number): JobStep => ({ jobId: `job_${n}`, step: `${kind}:${n}`, kind, after: null });

describe.each(SENDERS)('sent by %s', (_name, sender) => {
  it('sends each step to the queue of the function that runs its kind, whatever the mix of one call', async () => {
    const queue = new SqsJobQueue(sender(), local.edge.queues.queueUrl(JOB_QUEUE.name), local.edge.queues.queueUrl(EXPORT_JOB_QUEUE.name));
    // Every kind twice, interleaved, and more than one SendMessageBatch (ten a batch) of each.
    const steps = [...JOB_KINDS, ...JOB_KINDS, ...JOB_KINDS].map((kind, n) => stepOf(kind, n));
    await queue.enqueue(steps);
    await deliveredCount(steps.length);
    const exports = new Set<string>(EXPORT_JOB_KINDS);
    expect(delivered.exportJobs.map((s) => s.step).sort()).toEqual(steps.filter((s) => exports.has(s.kind!)).map((s) => s.step).sort());
    expect(delivered.jobs.map((s) => s.step).sort()).toEqual(steps.filter((s) => !exports.has(s.kind!)).map((s) => s.step).sort());
    // The message is the step itself, its kind included.
    expect(delivered.exportJobs[0]).toEqual(steps.find((s) => s.step === delivered.exportJobs[0].step));
  });

  it('without an export job queue, and for a step without its kind, sends to the job queue', async () => {
    const one = new SqsJobQueue(sender(), local.edge.queues.queueUrl(JOB_QUEUE.name));
    await one.enqueue([stepOf('outcomes_export', 1), stepOf('vendor_hold', 2)]);
    const split = new SqsJobQueue(sender(), local.edge.queues.queueUrl(JOB_QUEUE.name), local.edge.queues.queueUrl(EXPORT_JOB_QUEUE.name));
    await split.enqueue([{ jobId: 'job_3', step: 'old:3' }]);
    await deliveredCount(3);
    expect(delivered.jobs.map((s) => s.step).sort()).toEqual(['old:3', 'outcomes_export:1', 'vendor_hold:2']);
    expect(delivered.exportJobs).toEqual([]);
  });
});
