/** S3: export files in the stack's bucket, served by pre-signed links. */
import { S3Client } from '@aws-sdk/client-s3';
import { S3ExportStore } from '../../adapters/s3/s3-export-store';
import type { AwsAdapters } from '../compose';

export const exportBucket: NonNullable<AwsAdapters['exportBucket']> = (c, bucket) =>
  new S3ExportStore(c.hooked(new S3Client(c.aws), 'S3'), bucket, () => new Date(c.clock.now().ms));
