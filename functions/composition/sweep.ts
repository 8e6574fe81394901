/** The sweep's composition: re-drives overdue releases (queue, schedules), publishes, signs the audit log's checkpoints (KMS), expires approvals. */
import type { AwsAdapters } from './compose';
import { scheduler } from './services/scheduler';
import { publisher } from './services/eventbridge';
import { queues } from './services/sqs';
import { kmsAuditKey } from './services/kms';
import { workRepositories } from './services/work-repositories';
import { auditKeyFile } from './services/local-files';

export const adapters: AwsAdapters = { scheduler, publisher, queues, kmsAuditKey, workRepositories, auditKeyFile };
