/**
 * The composition of jobs, exports and the audit log (the apiAudit function): job steps enqueued (SQS), the audit
 * log's write-once copy read (S3) and its checkpoints' public keys (KMS), the stored jobs (the jobs function writes the
 * export files and signs their links); locally the export folder and the key file.
 */
import type { AwsAdapters } from './compose';
import { queues } from './services/sqs';
import { auditArchiveCopy } from './services/s3';
import { kmsAuditKey } from './services/kms';
import { workRepositories } from './services/work-repositories';
import { auditKeyFile, exportFolder } from './services/local-files';

export const adapters: AwsAdapters = { queues, auditArchiveCopy, kmsAuditKey, workRepositories, exportFolder, auditKeyFile };
