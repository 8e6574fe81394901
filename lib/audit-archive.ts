/**
 * The audit log's write-once side on AWS (issue 16): a long-term copy in S3 with Object Lock in compliance mode, fed
 * by DynamoDB Streams of the audit table through a small function; and the table's own guard rails: no role deletes
 * or rewrites a record or a checkpoint, and only the checkpoint writer writes checkpoints and its signed-head pointers.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { AUDIT_ARCHIVE_BUCKET_ENV } from '../functions/handlers/audit-archive';
import { CHECKPOINT_PK, PENDING_PK, SIGNED_PK } from '../functions/definitions/tables';
import { HoldbackFunction } from './holdback-function';
import type { HoldbackTable } from './holdback-table';

/**
 * Object Lock retention of the archive: the README's retention table keeps the audit log for ever; S3 needs a finite
 * period, so the longest one kept in practice: 100 years (compliance mode: nobody, root included, can shorten it).
 */
export const AUDIT_ARCHIVE_RETENTION_YEARS = 100;

export interface AuditArchiveProps {
  readonly table: HoldbackTable;
  /** Functions that append records (they may put records and pending entries, nothing else). */
  readonly appenders: HoldbackFunction[];
  /** The checkpoint writer (the sweep): it also writes checkpoints and its pointers, and deletes pending entries. */
  readonly writer: HoldbackFunction;
  /** Functions that verify and export the log (the API, the jobs): they read the copy (list and get, nothing else). */
  readonly readers: HoldbackFunction[];
}

/** The copier's stream batches: up to this many records, or what a minute brings (one S3 object each). */
export const AUDIT_ARCHIVE_BATCH = { records: 1000, windowSeconds: 60 } as const;

export class AuditArchive extends Construct {
  readonly bucket: s3.Bucket;
  readonly copier: HoldbackFunction;
  /** The stream mapping's on-failure queue: batches the copier could not write after every retry (the stack alarms on it). */
  readonly failures: sqs.Queue;

  constructor(scope: Construct, id: string, props: AuditArchiveProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      objectLockEnabled: true,
      objectLockDefaultRetention: s3.ObjectLockRetention.compliance(Duration.days(365 * AUDIT_ARCHIVE_RETENTION_YEARS)),
      versioned: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'Every object is written once by the archive function (its CloudTrail data events and the function logs say when); server access logs would need a second bucket that is not write-once.',
    });

    // The audit table's change stream (new and old images: a rewrite is kept as evidence too).
    const cfnTable = props.table.table.node.defaultChild as dynamodb.CfnTable;
    cfnTable.streamSpecification = { streamViewType: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES };

    // Write-once keys: any PutObject without If-None-Match: * is denied, whoever sends it, so a key once written is
    // never given a newer version (Object Lock keeps old versions; this keeps the one readers see the first one).
    this.bucket.addToResourcePolicy(new iam.PolicyStatement({
      sid: 'WriteOnceKeys',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['s3:PutObject'],
      resources: [this.bucket.arnForObjects('*')],
      conditions: { Null: { 's3:if-none-match': 'true' } },
    }));

    const failures = new sqs.Queue(this, 'CopyFailures', { enforceSSL: true, retentionPeriod: Duration.days(14), encryption: sqs.QueueEncryption.SQS_MANAGED });
    Validations.of(failures).acknowledge({ id: 'AwsSolutions-SQS3', reason: 'It is the dead-letter queue of the archive copy (records the stream could not copy after its retries).' });
    Validations.of(failures).acknowledge({ id: 'Serverless-SQSRedrivePolicy', reason: 'It is itself the on-failure destination of the archive copy: what lands here is read by an operator, not redriven.' });
    this.copier = new HoldbackFunction(this, 'Copier', {
      handlerFile: 'audit-archive',
      description: 'Holdback: the audit table\'s stream to the write-once archive (S3 Object Lock, compliance mode)',
      timeout: Duration.seconds(60),
      memorySize: 256,
      environment: { [AUDIT_ARCHIVE_BUCKET_ENV]: this.bucket.bucketName },
      failuresGoTo: 'the stream mapping\'s on-failure queue (CopyFailures); the stream keeps records 24 hours and is retried until then',
    });
    // PutObject only: no delete, no retention change, no governance bypass (compliance mode allows none anyway).
    this.copier.role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [this.bucket.arnForObjects('*')] }));
    this.copier.role.addToPolicy(new iam.PolicyStatement({
      actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
      resources: [cfnTable.attrStreamArn],
    }));
    this.copier.role.addToPolicy(new iam.PolicyStatement({ actions: ['dynamodb:ListStreams'], resources: [props.table.table.tableArn, `${props.table.table.tableArn}/stream/*`] }));
    failures.grantSendMessages(this.copier.role);
    this.failures = failures;
    // Verification and export read the copy (GET /audit/verify, the audit export): list and get, nothing else.
    for (const reader of props.readers) {
      reader.function.addEnvironment(AUDIT_ARCHIVE_BUCKET_ENV, this.bucket.bucketName);
      reader.role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [this.bucket.arnForObjects('*')] }));
      reader.role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }));
      Validations.of(reader.role).acknowledge({ id: 'AwsSolutions-IAM5[Resource::<AuditArchiveBucketDB93AD31.Arn>/*]', reason: 'Every object of the audit archive: verification and export read the whole write-once copy (GetObject only).' });
    }
    Validations.of(this.copier.role).acknowledge({ id: 'AwsSolutions-IAM5[Resource::<AuditArchiveBucketDB93AD31.Arn>/*]', reason: 'Every object of the archive bucket: the copier writes one object per stream batch of records and checkpoints (PutObject only; Object Lock keeps the first version).' });
    Validations.of(this.copier.role).acknowledge({ id: 'AwsSolutions-IAM5[Resource::<AuditTable6B25623D.Arn>/stream/*]', reason: "ListStreams on the audit table's streams (the stream's label changes if the stream is re-enabled)." });
    new lambda.CfnEventSourceMapping(this, 'FromAuditStream', {
      functionName: this.copier.function.functionName,
      eventSourceArn: cfnTable.attrStreamArn,
      startingPosition: 'TRIM_HORIZON',
      // Up to a minute of records in one object: one S3 PUT a minute per shard instead of one per record (the bill).
      batchSize: AUDIT_ARCHIVE_BATCH.records,
      maximumBatchingWindowInSeconds: AUDIT_ARCHIVE_BATCH.windowSeconds,
      maximumRetryAttempts: -1,
      bisectBatchOnFunctionError: true,
      destinationConfig: { onFailure: { destination: failures.queueArn } },
    });

    // Guard rails in IAM, whatever a role is granted elsewhere: no role of the stack deletes or updates an audit item
    // (the writer deletes only the pending entries it appended), and only the writer puts checkpoints and pointers.
    const table = props.table.table.tableArn;
    for (const fn of [...props.appenders, props.writer]) {
      fn.role.addToPolicy(new iam.PolicyStatement({
        sid: 'AuditLogIsAppendOnly',
        effect: iam.Effect.DENY,
        actions: ['dynamodb:UpdateItem', 'dynamodb:BatchWriteItem', 'dynamodb:PartiQLUpdate', 'dynamodb:PartiQLDelete', 'dynamodb:DeleteTable', 'dynamodb:UpdateTable'],
        resources: [table],
      }));
      fn.role.addToPolicy(new iam.PolicyStatement({
        sid: 'AuditRecordsAreNeverDeleted',
        effect: iam.Effect.DENY,
        actions: ['dynamodb:DeleteItem'],
        resources: [table],
        ...(fn === props.writer ? { conditions: { 'ForAnyValue:StringNotEquals': { 'dynamodb:LeadingKeys': [PENDING_PK] } } } : {}),
      }));
    }
    for (const fn of props.appenders.filter((f) => f !== props.writer)) {
      fn.role.addToPolicy(new iam.PolicyStatement({
        sid: 'OnlyTheWriterPutsCheckpoints',
        effect: iam.Effect.DENY,
        actions: ['dynamodb:PutItem'],
        resources: [table],
        conditions: { 'ForAnyValue:StringEquals': { 'dynamodb:LeadingKeys': [CHECKPOINT_PK, SIGNED_PK] } },
      }));
    }
  }
}
