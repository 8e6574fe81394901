/**
 * The export-jobs function's composition: export files (S3; the audit export and verification read the write-once
 * copy and the audit key's public half, KMS) and the job queues for its continuing steps. It plans no schedule and
 * publishes nothing (routing.ts EMITTED_EVENTS), so it loads no Scheduler nor EventBridge client; S3, KMS and its job
 * steps' SQS are called without SDK clients (adapters/aws-http/signed-request.ts: a third of the bundle less), and it
 * enqueues no release.
 */
import type { AwsAdapters } from './compose';
import { jobStepQueues as queues } from './services/sqs-job-steps';
import { auditArchiveCopy, exportBucket } from './services/s3';
import { kmsAuditKey } from './services/kms';
import { workRepositories } from './services/work-repositories';
import { auditKeyFile, exportFolder } from './services/local-files';

export const adapters: AwsAdapters = { queues, exportBucket, auditArchiveCopy, kmsAuditKey, workRepositories, exportFolder, auditKeyFile };
