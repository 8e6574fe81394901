/**
 * Each function's composition (functions/composition/<function>.ts) builds the SDK-backed adapters its use cases need
 * on AWS, and a stand-in for the others that fails naming the function and the client. Locally the export folder, the
 * key file and fixed credentials stand in for S3, KMS and Secrets Manager, so the end-to-end tests cannot see these
 * three: this test builds each composition with the AWS configuration (no call is made: clients are only constructed).
 */
import { composeDependencies, type AwsAdapters } from '../../functions/composition/compose';
import { readRuntimeConfig } from '../../functions/composition/runtime-config';
import { S3ExportStore } from '../../functions/adapters/s3/s3-export-store';
import { S3AuditCopy } from '../../functions/adapters/s3/audit-archive-read';
import { KmsAuditKey } from '../../functions/adapters/kms/kms-audit-key';
import { EventBridgeReleaseScheduler } from '../../functions/adapters/scheduler/eventbridge-release-scheduler';
import { EventBridgePublisher } from '../../functions/adapters/eventbridge/eventbridge-publisher';
import { SqsReleaseQueue } from '../../functions/adapters/sqs/sqs-release-queue';
import { awsEnvironment } from './aws-environment';

const { HOLDBACK_GATEWAY_CLIENT_ID: _id, HOLDBACK_GATEWAY_CLIENT_SECRET: _secret, ...base } = awsEnvironment('unused');
/** As the stack configures a function: the gateway secret by id, the audit key in KMS, exports in a bucket. */
const AWS_ENV = {
  ...base,
  HOLDBACK_GATEWAY_SECRET_ID: 'arn:aws:secretsmanager:ap-south-1:123456789012:secret:holdback/gateway',
  HOLDBACK_AUDIT_KMS_KEY_ID: 'arn:aws:kms:ap-south-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
  HOLDBACK_EXPORT_BUCKET: 'holdback-exports',
  HOLDBACK_AUDIT_ARCHIVE_BUCKET: 'holdback-audit-archive',
  HOLDBACK_JOB_QUEUE_URL: 'https://sqs.ap-south-1.amazonaws.com/123456789012/holdback-jobs',
};

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function composition(name: string): Promise<AwsAdapters> {
  return (await import(`../../functions/composition/${name}`) as { adapters: AwsAdapters }).adapters;
}

/** What each function's use cases need beyond DynamoDB on AWS (see each composition file). */
const NEEDS: Record<string, { s3: boolean; kms: boolean; secrets: boolean }> = {
  'order-events': { s3: false, kms: false, secrets: false },
  release: { s3: false, kms: false, secrets: true },
  sweep: { s3: false, kms: true, secrets: false },
  webhooks: { s3: false, kms: false, secrets: true },
  jobs: { s3: true, kms: true, secrets: false },
  api: { s3: true, kms: true, secrets: true },
};

describe.each(Object.entries(NEEDS))('the %s function', (name, needs) => {
  it('builds the scheduler, the publisher and the queues, and S3, KMS and Secrets Manager exactly where it needs them', async () => {
    const adapters = await composition(name);
    const deps = composeDependencies(readRuntimeConfig(AWS_ENV), adapters, name, { logger: quiet });
    expect(deps.scheduler).toBeInstanceOf(EventBridgeReleaseScheduler);
    expect(deps.publisher).toBeInstanceOf(EventBridgePublisher);
    expect(deps.queue).toBeInstanceOf(SqsReleaseQueue);
    expect(deps.exports instanceof S3ExportStore).toBe(needs.s3);
    // Verification and export (the api, the jobs) read the audit log's write-once copy in S3.
    expect(deps.auditCopy instanceof S3AuditCopy).toBe(needs.s3);
    if (!needs.s3) await expect(deps.auditCopy!.read()).rejects.toThrow(`loads no S3 client, so it cannot read the audit log's write-once copy`);
    expect(deps.auditKey instanceof KmsAuditKey).toBe(needs.kms);
    expect(adapters.secretsManager !== undefined).toBe(needs.secrets);
    if (!needs.s3) {
      await expect(deps.exports.link('x', new Date(), 'x.csv')).rejects.toThrow(`the ${name} function's composition (functions/composition/${name}.ts) loads no S3 client`);
    }
    if (!needs.kms) await expect(deps.auditKey!.publicKeyPem()).rejects.toThrow(`loads no KMS client, so it cannot sign or verify audit checkpoints`);
    if (!needs.secrets) {
      await expect(deps.secrets.webhookSecret()).rejects.toThrow(`the ${name} function's composition (functions/composition/${name}.ts) loads no Secrets Manager client`);
      expect(await deps.gatewayReady!()).toBe(false);
    }
  });
});

it('without the archive bucket (locally) there is no write-once copy: verification and export read the table', async () => {
  const { HOLDBACK_AUDIT_ARCHIVE_BUCKET: _bucket, ...local } = AWS_ENV;
  expect(composeDependencies(readRuntimeConfig(local), await composition('api'), 'api', { logger: quiet }).auditCopy).toBeNull();
});

it('a port a composition does not build says which function lacks which client, and where to add it', async () => {
  const deps = composeDependencies(readRuntimeConfig(AWS_ENV), {}, 'order-events', { logger: quiet });
  await expect(deps.scheduler.cancel('k')).rejects.toThrow(
    "the order-events function's composition (functions/composition/order-events.ts) loads no Scheduler client, so it cannot schedule or cancel a release (cancel); add the Scheduler builder there if this function needs it",
  );
  await expect(deps.queue.enqueue([])).rejects.toThrow(/loads no SQS client, so it cannot enqueue a release/);
  await expect(deps.publisher.publish([])).rejects.toThrow(/loads no EventBridge client, so it cannot publish events/);
});
