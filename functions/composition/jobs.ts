/** The jobs function's composition: bulk replans (schedules, queues, events), jobs and previews, export files (S3; the audit export names the key, KMS). */
import type { AwsAdapters } from './compose';
import { scheduler } from './services/scheduler';
import { publisher } from './services/eventbridge';
import { queues } from './services/sqs';
import { auditArchiveCopy, exportBucket } from './services/s3';
import { kmsAuditKey } from './services/kms';
import { workRepositories } from './services/work-repositories';
import { auditKeyFile, exportFolder } from './services/local-files';

export const adapters: AwsAdapters = { scheduler, publisher, queues, exportBucket, auditArchiveCopy, kmsAuditKey, workRepositories, exportFolder, auditKeyFile };
