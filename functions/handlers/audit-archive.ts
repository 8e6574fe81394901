/** Flow: DynamoDB Streams of the audit table → the write-once archive (S3, Object Lock in compliance mode). */
import { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { archiveAuditRecords, type AuditStreamRecord } from '../adapters/s3/audit-archive-copy';
import { LambdaLogger } from '../adapters/logging/powertools-logger';
import { SecretScrubber } from '../adapters/secrets/gateway-credentials';
import type { Logger } from '../application/ports';

import { AUDIT_ARCHIVE_BUCKET_ENV } from '../definitions/tables';

/** The bucket's name (the stack sets it). */
export { AUDIT_ARCHIVE_BUCKET_ENV };

export function makeAuditArchiveHandler(s3: S3Client, bucket: string, logger: Logger) {
  return async (event: DynamoDBStreamEvent): Promise<{ written: number }> => ({
    written: await archiveAuditRecords(s3, bucket, (event.Records ?? []) as AuditStreamRecord[], logger),
  });
}

const bucket = process.env[AUDIT_ARCHIVE_BUCKET_ENV]?.trim() ?? '';
/** Built once per container, on the first batch (its connections and credentials serve every later batch). */
let handle: ReturnType<typeof makeAuditArchiveHandler> | null = null;
export const handler = async (event: DynamoDBStreamEvent): Promise<{ written: number }> => {
  if (!bucket) throw new Error(`${AUDIT_ARCHIVE_BUCKET_ENV} is not set; the stack sets it to the audit archive bucket`);
  handle ??= makeAuditArchiveHandler(new S3Client({}), bucket, new LambdaLogger(new SecretScrubber()));
  return handle(event);
};
