/** The bucket of export files (contract 6.3): encrypted, never public, TLS only, each file expiring after EXPORT_RETENTION_DAYS. */
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/** Days an export file is kept: its link lasts hours, the days leave time to download it again by a new link. */
export const EXPORT_RETENTION_DAYS = 7;

export class ExportBucket extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(EXPORT_RETENTION_DAYS), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      // Exports are copies of what the tables and the audit log keep; they expire anyway.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: false,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'Export files are short-lived copies (expiring) read only through pre-signed links the jobs function signs; CloudTrail data events, not server access logs, are the place to audit their reads.',
    });
  }

  /**
   * The writer of the files: it puts them (a multipart upload, aborted on failure) and reads them, so that the links it
   * pre-signs work (a pre-signed URL carries its signer's permissions). Exactly these actions, on the objects alone.
   */
  grantWriter(fn: lambda.Function): void {
    fn.addToRolePolicy(new iam.PolicyStatement({
      actions: ['s3:PutObject', 's3:GetObject', 's3:AbortMultipartUpload'],
      resources: [this.bucket.arnForObjects('*')],
    }));
    Validations.of(fn.role ?? fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket)}.Arn>/*]`,
      reason: 'Each export is an object named by its job id, written once: the writer needs every object of its own bucket, and only those three actions.',
    });
  }
}
