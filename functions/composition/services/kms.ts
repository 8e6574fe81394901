/** KMS: the audit checkpoints' key (every verifier reads its public half; only the checkpoint writer signs). */
import { KmsRequests } from '../../adapters/kms/kms-requests';
import { KmsAuditKey } from '../../adapters/kms/kms-audit-key';
import type { AwsAdapters } from '../compose';

export const kmsAuditKey: NonNullable<AwsAdapters['kmsAuditKey']> = (c, key) =>
  new KmsAuditKey(new KmsRequests(c.aws), key.kms, key.writer, key.previous);
