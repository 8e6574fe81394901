/** The API's composition: every route, so every adapter (export links on S3, audit keys on KMS, the gateway's vendor API). */
import type { AwsAdapters } from './compose';
import { scheduler } from './services/scheduler';
import { publisher } from './services/eventbridge';
import { queues } from './services/sqs';
import { auditArchiveCopy, exportBucket } from './services/s3';
import { kmsAuditKey } from './services/kms';
import { secretsManager } from './services/secrets-manager';
import { gatewayReads, gatewaySends } from './services/gateway';
import { workRepositories } from './services/work-repositories';
import { auditKeyFile, exportFolder } from './services/local-files';

export const adapters: AwsAdapters = {
  scheduler, publisher, queues, exportBucket, auditArchiveCopy, kmsAuditKey, secretsManager, gatewayReads, gatewaySends, workRepositories, exportFolder, auditKeyFile,
};
