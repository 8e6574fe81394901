/**
 * The audit log's composition (the apiAudit function): its write-once copy read (S3), its checkpoints' public keys
 * (KMS), a verification too large for one answer started as a job (SQS, the stored jobs); locally the key file. S3, KMS
 * and SQS are called without SDK clients (adapters/aws-http/signed-request.ts), and it enqueues no release.
 */
import type { AwsAdapters } from './compose';
import { jobStepQueues as queues } from './services/sqs-job-steps';
import { auditArchiveCopy } from './services/s3';
import { kmsAuditKey } from './services/kms';
import { workRepositories } from './services/work-repositories';
import { auditKeyFile } from './services/local-files';

export const adapters: AwsAdapters = { queues, auditArchiveCopy, kmsAuditKey, workRepositories, auditKeyFile };
