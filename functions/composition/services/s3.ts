/** S3: export files in the stack's bucket, served by pre-signed links; the audit log's write-once copy, read back. */
import { S3Requests } from '../../adapters/s3/s3-requests';
import { S3ExportStore } from '../../adapters/s3/s3-export-store';
import { S3AuditCopy } from '../../adapters/s3/audit-archive-read';
import type { AwsAdapters, ServiceContext } from '../compose';

/** One S3 caller per function (both builders share it and its connections); making one sends nothing. */
const callers = new WeakMap<ServiceContext, S3Requests>();
const s3Of = (c: ServiceContext): S3Requests => {
  let s3 = callers.get(c);
  if (!s3) {
    s3 = new S3Requests(c.aws);
    callers.set(c, s3);
  }
  return s3;
};

export const exportBucket: NonNullable<AwsAdapters['exportBucket']> = (c, bucket) =>
  new S3ExportStore(s3Of(c), bucket, () => new Date(c.clock.now().ms));

export const auditArchiveCopy: NonNullable<AwsAdapters['auditArchiveCopy']> = (c, bucket) => new S3AuditCopy(s3Of(c), bucket);
