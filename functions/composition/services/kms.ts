/** KMS: the audit checkpoints' key (every verifier reads its public half; only the checkpoint writer signs). */
import { KMSClient } from '@aws-sdk/client-kms';
import { KmsAuditKey } from '../../adapters/kms/kms-audit-key';
import type { AwsAdapters } from '../compose';

export const kmsAuditKey: NonNullable<AwsAdapters['kmsAuditKey']> = (c, key) =>
  new KmsAuditKey(c.lazy('KMS', () => new KMSClient(c.aws)), key.kms, key.writer, key.previous);
