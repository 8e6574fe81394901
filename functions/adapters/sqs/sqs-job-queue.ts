/**
 * The job queues on SQS: one message per step of a job, each step on the queue of the function that runs its job's
 * kind (the export job queue for EXPORT_JOB_KINDS, where one is configured; the job queue for every other kind).
 */
import type { JobQueue, JobStep } from '../../application/ports';
import { EXPORT_JOB_KINDS } from '../../definitions/routing';
import { sendJsonMessages, type SendBatch } from './sqs-batches';

const EXPORT_KINDS: ReadonlySet<string> = new Set(EXPORT_JOB_KINDS);

export class SqsJobQueue implements JobQueue {
  /** `send`: the SDK client's (sdkSendBatch) or one without it (sqs-requests.ts); `exportQueueUrl` null: every step goes to `queueUrl`. */
  constructor(private readonly send: SendBatch, private readonly queueUrl: string, private readonly exportQueueUrl: string | null = null) {}

  async enqueue(steps: JobStep[]): Promise<void> {
    const toExports = this.exportQueueUrl === null ? [] : steps.filter((step) => step.kind !== undefined && EXPORT_KINDS.has(step.kind));
    const rest = toExports.length === 0 ? steps : steps.filter((step) => !toExports.includes(step));
    if (rest.length > 0) await sendJsonMessages(this.send, this.queueUrl, rest, 'job steps');
    if (toExports.length > 0) await sendJsonMessages(this.send, this.exportQueueUrl!, toExports, 'export job steps');
  }
}
