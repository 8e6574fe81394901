/** S3: export files in the stack's bucket, served by pre-signed links; the audit log's write-once copy, read back. */
import { S3Client } from '@aws-sdk/client-s3';
import { S3ExportStore } from '../../adapters/s3/s3-export-store';
import { S3AuditCopy } from '../../adapters/s3/audit-archive-read';
import type { AwsAdapters, ServiceContext } from '../compose';

/** One S3 client per function (both builders share it). */
const clients = new WeakMap<ServiceContext, S3Client>();
const clientOf = (c: ServiceContext): S3Client => {
  let client = clients.get(c);
  if (!client) {
    client = c.lazy('S3', () => new S3Client(c.aws));
    clients.set(c, client);
  }
  return client;
};

export const exportBucket: NonNullable<AwsAdapters['exportBucket']> = (c, bucket) =>
  new S3ExportStore(clientOf(c), bucket, () => new Date(c.clock.now().ms));

export const auditArchiveCopy: NonNullable<AwsAdapters['auditArchiveCopy']> = (c, bucket) => new S3AuditCopy(clientOf(c), bucket);
