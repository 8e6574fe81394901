/**
 * Each function's composition (functions/composition/<function>.ts) builds the SDK-backed adapters its use cases need
 * on AWS, and a stand-in for the others that fails naming the function and the client. Locally the export folder, the
 * key file and fixed credentials stand in for S3, KMS and Secrets Manager, so the end-to-end tests cannot see these
 * three: this test builds each composition with the AWS configuration (no call is made: clients are only constructed).
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeDependencies, lazyClient, type AwsAdapters } from '../../functions/composition/compose';
import { readRuntimeConfig } from '../../functions/composition/runtime-config';
import { S3ExportStore } from '../../functions/adapters/s3/s3-export-store';
import { S3AuditCopy } from '../../functions/adapters/s3/audit-archive-read';
import { KmsAuditKey } from '../../functions/adapters/kms/kms-audit-key';
import { EventBridgeReleaseScheduler } from '../../functions/adapters/scheduler/eventbridge-release-scheduler';
import { EventBridgePublisher } from '../../functions/adapters/eventbridge/eventbridge-publisher';
import { SqsReleaseQueue } from '../../functions/adapters/sqs/sqs-release-queue';
import { SqsJobQueue } from '../../functions/adapters/sqs/sqs-job-queue';
import { HttpGatewayOrders } from '../../functions/adapters/gateway/http-gateway-orders';
import { HttpEligibilityGateway } from '../../functions/adapters/gateway/http-eligibility-gateway';
import { DynamoJobRepository } from '../../functions/adapters/dynamodb/job-repository';
import { DynamoApprovalRepository } from '../../functions/adapters/dynamodb/approval-repository';
import { FileExportStore } from '../../functions/adapters/files/file-export-store';
import { Ed25519AuditKey } from '../../functions/adapters/audit-key/ed25519-audit-key';
import { awsEnvironment } from './aws-environment';
import { EMITTED_EVENTS } from '../../functions/definitions/routing';

import { buildDependencies } from '../../functions/composition-root';

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

/**
 * What each function's use cases need beyond DynamoDB on AWS (see each composition file): the publisher where the
 * function emits events (routing.ts EMITTED_EVENTS, which its role's PutEvents grant follows; the api republishes a
 * payment from the webhook route it also serves), the scheduler where it plans or cancels schedules (not the sweep,
 * which enqueues what is overdue), SQS where it enqueues (not the webhooks, whose role may not send to the queue).
 */
const NEEDS: Record<string, { scheduler: boolean; publisher: boolean; queues: boolean; s3: boolean; archive: boolean; kms: boolean; secrets: boolean }> = {
  'order-events': { scheduler: true, publisher: false, queues: true, s3: false, archive: false, kms: false, secrets: false },
  release: { scheduler: true, publisher: true, queues: true, s3: false, archive: false, kms: false, secrets: true },
  sweep: { scheduler: false, publisher: false, queues: true, s3: false, archive: false, kms: true, secrets: false },
  webhooks: { scheduler: true, publisher: true, queues: false, s3: false, archive: false, kms: false, secrets: true },
  jobs: { scheduler: true, publisher: false, queues: true, s3: false, archive: false, kms: false, secrets: false },
  'export-jobs': { scheduler: false, publisher: false, queues: false, s3: true, archive: true, kms: true, secrets: false },
  // The API's functions (definitions/api-routing.ts): the changes plan, enqueue and ask the gateway; the reads only
  // read; jobs and exports enqueue job steps; the audit log reads the archive and the key (and may start a job). None
  // writes export files (the export-jobs function does, and signs their links).
  api: { scheduler: true, publisher: false, queues: true, s3: false, archive: false, kms: false, secrets: true },
  'api-reads': { scheduler: false, publisher: false, queues: false, s3: false, archive: false, kms: false, secrets: false },
  'api-jobs': { scheduler: false, publisher: false, queues: true, s3: false, archive: false, kms: false, secrets: false },
  'api-audit': { scheduler: false, publisher: false, queues: false, s3: false, archive: true, kms: true, secrets: false },
};
/** Functions that enqueue job steps but no release: SendMessageBatch without the SDK's SQS client (services/sqs-job-steps.ts). */
const JOB_STEPS_ONLY = new Set(['export-jobs', 'api-audit']);

it('a function builds a publisher exactly where its role may put events on the bus', () => {
  const roleOf: Record<string, keyof typeof EMITTED_EVENTS> = { 'order-events': 'orderEvents', release: 'release', sweep: 'sweep', webhooks: 'webhooks', jobs: 'jobs', 'export-jobs': 'exportJobs', api: 'api', 'api-reads': 'api', 'api-jobs': 'api', 'api-audit': 'api' };
  for (const [name, needs] of Object.entries(NEEDS)) {
    const emits = EMITTED_EVENTS[roleOf[name]];
    expect([name, needs.publisher]).toEqual([name, emits.holdback.length + emits.order.length > 0]);
  }
});

it('the composition of every adapter (the embedded default\'s API) enqueues releases and job steps on the SDK client\'s queues, whatever a function\'s own composition lacks', () => {
  const deps = buildDependencies(readRuntimeConfig(AWS_ENV), { logger: quiet });
  expect(deps.queue).toBeInstanceOf(SqsReleaseQueue);
  expect(deps.jobQueue).toBeInstanceOf(SqsJobQueue);
});

describe.each(Object.entries(NEEDS))('the %s function', (name, needs) => {
  it('builds the scheduler, the publisher, the queues, S3, KMS and Secrets Manager exactly where it needs them', async () => {
    const adapters = await composition(name);
    const deps = composeDependencies(readRuntimeConfig(AWS_ENV), adapters, name, { logger: quiet });
    expect(deps.scheduler instanceof EventBridgeReleaseScheduler).toBe(needs.scheduler);
    expect(deps.publisher instanceof EventBridgePublisher).toBe(needs.publisher);
    if (!needs.publisher) await expect(deps.publisher.publish([])).rejects.toThrow(`the ${name} function's composition (functions/composition/${name}.ts) loads no EventBridge client`);
    if (!needs.scheduler) await expect(deps.scheduler.cancel('k')).rejects.toThrow(`the ${name} function's composition (functions/composition/${name}.ts) loads no Scheduler client`);
    expect(deps.queue instanceof SqsReleaseQueue).toBe(needs.queues);
    if (!needs.queues) await expect(deps.queue.enqueue([])).rejects.toThrow(`the ${name} function's composition (functions/composition/${name}.ts) loads no SQS client`);
    expect(deps.jobQueue instanceof SqsJobQueue).toBe(needs.queues || JOB_STEPS_ONLY.has(name));
    expect(deps.exports instanceof S3ExportStore).toBe(needs.s3);
    // Verification and export (apiAudit, the export jobs) read the audit log's write-once copy in S3.
    expect(deps.auditCopy instanceof S3AuditCopy).toBe(needs.archive);
    if (!needs.archive) await expect(deps.auditCopy!.read()).rejects.toThrow(`loads no S3 client, so it cannot read the audit log's write-once copy`);
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
/**
 * Beyond the SDK clients, what each function's use cases reach: the gateway's reads (every function but order-events),
 * its eligibility PUT (the release function alone sends), the stored work of the API and the jobs (previews,
 * approvals, policy imports, jobs; the sweep expires approvals), and locally the export folder (api-jobs, export jobs) and the
 * audit key file (sweep, export jobs, api-audit). A function without one carries none of its code (npx tsx bench/run.ts bundles).
 */
const PARTS: Record<string, { reads: boolean; sends: boolean; work: boolean; exportFolder: boolean; keyFile: boolean }> = {
  'order-events': { reads: false, sends: false, work: false, exportFolder: false, keyFile: false },
  release: { reads: true, sends: true, work: false, exportFolder: false, keyFile: false },
  sweep: { reads: false, sends: false, work: true, exportFolder: false, keyFile: true },
  webhooks: { reads: true, sends: false, work: false, exportFolder: false, keyFile: false },
  jobs: { reads: false, sends: false, work: true, exportFolder: false, keyFile: false },
  'export-jobs': { reads: false, sends: false, work: true, exportFolder: true, keyFile: true },
  api: { reads: true, sends: false, work: true, exportFolder: false, keyFile: false },
  'api-reads': { reads: false, sends: false, work: true, exportFolder: false, keyFile: false },
  'api-jobs': { reads: false, sends: false, work: true, exportFolder: true, keyFile: false },
  'api-audit': { reads: false, sends: false, work: true, exportFolder: false, keyFile: true },
};

describe.each(Object.entries(PARTS))('the %s function (the embedded default\'s configuration)', (name, parts) => {
  it('builds the gateway, the stored work, the export folder and the key file exactly where its use cases reach them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'holdback-compositions-'));
    try {
      const keyFile = join(dir, 'audit-key.pem');
      writeFileSync(keyFile, generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }));
      const { HOLDBACK_AUDIT_KMS_KEY_ID: _kms, HOLDBACK_EXPORT_BUCKET: _bucket, HOLDBACK_AUDIT_ARCHIVE_BUCKET: _archive, HOLDBACK_GATEWAY_SECRET_ID: _secret, ...rest } = AWS_ENV;
      const local = { ...rest, HOLDBACK_GATEWAY_CLIENT_ID: 'id', HOLDBACK_GATEWAY_CLIENT_SECRET: 'secret', HOLDBACK_EXPORT_DIR: dir, HOLDBACK_EXPORT_BASE_URL: 'http://127.0.0.1:1', HOLDBACK_AUDIT_KEY_FILE: keyFile };
      const deps = composeDependencies(readRuntimeConfig(local), await composition(name), name, { logger: quiet, sendsToGateway: name === 'release' });
      expect(deps.gatewayOrders instanceof HttpGatewayOrders).toBe(parts.reads);
      expect(deps.gateway instanceof HttpEligibilityGateway).toBe(parts.sends);
      expect(deps.jobs instanceof DynamoJobRepository).toBe(parts.work);
      expect(deps.approvals instanceof DynamoApprovalRepository).toBe(parts.work);
      expect(deps.exports instanceof FileExportStore).toBe(parts.exportFolder);
      expect(deps.auditKey instanceof Ed25519AuditKey).toBe(parts.keyFile);
      const lacks = (builder: string) => `the ${name} function's composition (functions/composition/${name}.ts) loads no ${builder} adapter`;
      if (!parts.reads) await expect(deps.gatewayOrders.fetchOrder('order-1')).rejects.toThrow(lacks('gatewayReads'));
      if (!parts.work) await expect(deps.jobs.get('job-1')).rejects.toThrow(lacks('workRepositories'));
      if (!parts.exportFolder) await expect(deps.exports.link('x', new Date(), 'x.csv')).rejects.toThrow(lacks('exportFolder'));
      if (!parts.keyFile) await expect(deps.auditKey!.publicKeyPem()).rejects.toThrow(lacks('auditKeyFile'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

it('the release function without its gateway builder says so when it sends', async () => {
  const { gatewaySends: _sends, ...adapters } = await composition('release');
  const deps = composeDependencies(readRuntimeConfig(AWS_ENV), adapters, 'release', { logger: quiet, sendsToGateway: true });
  await expect(deps.gateway.updateEligibility('order-1', 'vendor-1', '2026-12-01T10:00:00+05:30')).rejects.toThrow("loads no gatewaySends adapter, so it cannot send an eligibility PUT (updateEligibility); add the gatewaySends builder there");
});

it('without the archive bucket (locally) there is no write-once copy: verification and export read the table', async () => {
  const { HOLDBACK_AUDIT_ARCHIVE_BUCKET: _bucket, ...local } = AWS_ENV;
  expect(composeDependencies(readRuntimeConfig(local), await composition('api-audit'), 'api-audit', { logger: quiet }).auditCopy).toBeNull();
});

it('a port a composition does not build says which function lacks which client, and where to add it', async () => {
  const deps = composeDependencies(readRuntimeConfig(AWS_ENV), {}, 'order-events', { logger: quiet });
  await expect(deps.scheduler.cancel('k')).rejects.toThrow(
    "the order-events function's composition (functions/composition/order-events.ts) loads no Scheduler client, so it cannot schedule or cancel a release (cancel); add the Scheduler builder there if this function needs it",
  );
  await expect(deps.queue.enqueue([])).rejects.toThrow(/loads no SQS client, so it cannot enqueue a release/);
  await expect(deps.publisher.publish([])).rejects.toThrow(/loads no EventBridge client, so it cannot publish events/);
  // The API's handlers name their function as the stack does (apiReads); the file named is its composition's.
  const reads = composeDependencies(readRuntimeConfig(AWS_ENV), {}, 'apiReads', { logger: quiet });
  await expect(reads.queue.enqueue([])).rejects.toThrow("the apiReads function's composition (functions/composition/api-reads.ts) loads no SQS client");
});

describe('an SDK client other than DynamoDB is built at its first use, not at the cold start', () => {
  it('the order-events function builds DynamoDB at once, and SQS and Scheduler only when a call reaches them', async () => {
    const hooked: string[] = [];
    const deps = composeDependencies(readRuntimeConfig({ ...AWS_ENV, AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_MAX_ATTEMPTS: '1' }), await composition('order-events'), 'order-events', {
      logger: quiet, wrapClient: (_client, service) => { hooked.push(service); },
    });
    expect(hooked).toEqual(['DynamoDB']);
    // The call goes through the built client (to a closed port: refused), which the hook saw once, before the call.
    await expect(deps.queue.enqueue([{ orderId: 'order-1', vendorId: 'vendor-1', releaseKey: 'order-1-vendor-1-1' }])).rejects.toThrow();
    expect(hooked).toEqual(['DynamoDB', 'SQS']);
    await expect(deps.queue.enqueue([{ orderId: 'order-1', vendorId: 'vendor-1', releaseKey: 'order-1-vendor-1-1' }])).rejects.toThrow();
    await expect(deps.scheduler.cancel('order-1-vendor-1-1')).rejects.toThrow();
    expect(hooked).toEqual(['DynamoDB', 'SQS', 'Scheduler']);
  });

  it('reads every property through to the built client, with its methods bound to it', () => {
    let builds = 0;
    class Client {
      readonly middlewareStack = { name: 'stack' };
      constructor(readonly config: { region: string }) { builds += 1; }
      send(command: string) { return `${this.config.region}:${command}`; }
    }
    const client = lazyClient(() => new Client({ region: 'ap-south-1' }));
    expect(builds).toBe(0);
    const { send } = client;
    expect(send('GetItem')).toBe('ap-south-1:GetItem');
    expect(client.middlewareStack.name).toBe('stack');
    expect(client.config.region).toBe('ap-south-1');
    expect(builds).toBe(1);
  });
});
