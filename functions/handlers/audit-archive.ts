/** Flow: DynamoDB Streams of the audit table → the write-once archive (S3, Object Lock in compliance mode). */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { archiveAuditRecords, type AuditStreamRecord } from '../adapters/s3/audit-archive-copy';
import { S3Requests } from '../adapters/s3/s3-requests';
import { LambdaLogger } from '../adapters/logging/powertools-logger';
import { SecretScrubber } from '../adapters/secrets/gateway-credentials';
import type { Logger } from '../application/ports';

import { AUDIT_ARCHIVE_BUCKET_ENV } from '../definitions/tables';

/** The bucket's name (the stack sets it). */
export { AUDIT_ARCHIVE_BUCKET_ENV };

export function makeAuditArchiveHandler(s3: S3Requests, bucket: string, logger: Logger) {
  return async (event: DynamoDBStreamEvent): Promise<{ written: number }> => ({
    written: await archiveAuditRecords(s3, bucket, (event.Records ?? []) as AuditStreamRecord[], logger),
  });
}

const bucket = process.env[AUDIT_ARCHIVE_BUCKET_ENV]?.trim() ?? '';
/** Lambda's region, and an endpoint of its own where `AWS_ENDPOINT_URL` names one (as the SDK's clients read them). */
const awsTarget = () => {
  const region = process.env.AWS_REGION?.trim() || process.env.AWS_DEFAULT_REGION?.trim();
  if (!region) throw new Error('AWS_REGION is not set; Lambda sets it to the function\'s region');
  const endpoint = process.env.AWS_ENDPOINT_URL?.trim();
  return { region, ...(endpoint ? { endpoint } : {}) };
};
/** Built once per container, on the first batch (its connections and credentials serve every later batch). */
let handle: ReturnType<typeof makeAuditArchiveHandler> | null = null;
export const handler = async (event: DynamoDBStreamEvent): Promise<{ written: number }> => {
  if (!bucket) throw new Error(`${AUDIT_ARCHIVE_BUCKET_ENV} is not set; the stack sets it to the audit archive bucket`);
  handle ??= makeAuditArchiveHandler(new S3Requests(awsTarget()), bucket, new LambdaLogger(new SecretScrubber()));
  return handle(event);
};
