/**
 * The sweep's composition: re-drives overdue releases (the release queue), signs the audit log's checkpoints (KMS),
 * expires approvals. It neither publishes (routing.ts EMITTED_EVENTS) nor plans or cancels a schedule (a re-driven
 * release is enqueued, and the release function sends or reschedules it), so it loads no EventBridge nor Scheduler client.
 */
import type { AwsAdapters } from './compose';
import { queues } from './services/sqs';
import { kmsAuditKey } from './services/kms';
import { workRepositories } from './services/work-repositories';
import { auditKeyFile } from './services/local-files';

export const adapters: AwsAdapters = { queues, kmsAuditKey, workRepositories, auditKeyFile };
