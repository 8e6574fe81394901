/**
 * The jobs function's composition: bulk replans (schedules, queues), jobs and previews; it publishes nothing (routing.ts
 * EMITTED_EVENTS), so it loads no EventBridge client, and writes no export file (the export-jobs function does: S3, KMS).
 */
import type { AwsAdapters } from './compose';
import { scheduler } from './services/scheduler';
import { signedQueues as queues } from './services/sqs-job-steps';
import { workRepositories } from './services/work-repositories';

export const adapters: AwsAdapters = { scheduler, queues, workRepositories };
