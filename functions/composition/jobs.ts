/**
 * The jobs function's composition: bulk replans (schedules, queues), jobs and previews, export files (S3; the audit
 * export names the key, KMS); it publishes nothing (routing.ts EMITTED_EVENTS), so it loads no EventBridge client.
 */
import type { AwsAdapters } from './compose';
import { scheduler } from './services/scheduler';
import { queues } from './services/sqs';
import { auditArchiveCopy, exportBucket } from './services/s3';
import { kmsAuditKey } from './services/kms';
import { workRepositories } from './services/work-repositories';
import { auditKeyFile, exportFolder } from './services/local-files';

export const adapters: AwsAdapters = { scheduler, queues, exportBucket, auditArchiveCopy, kmsAuditKey, workRepositories, exportFolder, auditKeyFile };
