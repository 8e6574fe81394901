/**
 * Builds a function's Dependencies from the configuration: DynamoDB and the repositories every function's use cases
 * read always, and each other adapter (the SDK-backed ones, the gateway over HTTP, the API's and the jobs' stored work,
 * the embedded default's export folder and key file) through the builder its composition
 * (functions/composition/<function>.ts) hands in. A function's bundle carries only the code of its composition; a port
 * it lacks is a stand-in that says so when used.
 */
import { Instant } from '../domain/instant';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { AUDIT_VERIFY_INLINE_RECORDS, EXPORT_PART_ROWS, PREVIEW_INLINE_RELEASES } from '../application/ports';
import type {
  AuditCopy, AuditKey, Clock, Dependencies, EligibilityGateway, EventPublisher, ExportStore, GatewayOrders, JobQueue, Logger, ReleaseQueue,
  ReleaseScheduler,
} from '../application/ports';
import { DynamoAuditStore } from '../adapters/dynamodb/audit-store';
import { DynamoSettingsRepository } from '../adapters/dynamodb/settings-repository';
import { DynamoPolicyRepository } from '../adapters/dynamodb/policy-repository';
import { DynamoHoldRepository } from '../adapters/dynamodb/hold-repository';
import { DynamoExposureLedger } from '../adapters/dynamodb/exposure-ledger';
import { DynamoConfigReader } from '../adapters/dynamodb/config-reader';
import { DocumentClient, documentClientConfig } from '../adapters/dynamodb/document-client';
import { DynamoOrderRepository } from '../adapters/dynamodb/order-repository';
import { DynamoRejectedEventRepository } from '../adapters/dynamodb/rejected-event-repository';
import { LambdaLogger } from '../adapters/logging/powertools-logger';
import { DynamoOpenOrderPolicyRepository } from '../adapters/dynamodb/open-order-policy-repository';
import { fixedCredentials, SecretScrubber, type GatewayCredentialSource } from '../adapters/secrets/gateway-credentials';
import { RUNTIME_ENV, type RuntimeConfig } from './runtime-config';
import { LOCAL_FUNCTIONS_ACCESS_KEY } from '../definitions/routing';
import { leanClient } from './lean-client';

/**
 * A hook given each SDK client as it is built, with its service name ("DynamoDB", "SQS"...), before its first call:
 * the bench's call meter (bench/aws-call-meter.ts) plugs in here. Production passes none.
 */
export type ClientHook = (client: { middlewareStack: unknown }, service: string, config: RuntimeConfig) => void;

/** What a builder of an SDK-backed adapter is given. */
export interface ServiceContext {
  config: RuntimeConfig;
  /** The configuration every SDK client of the function shares (region, endpoint, logger, credentials locally). */
  aws: { region: string; logger: DynamoDBClientConfig['logger']; cacheMiddleware: boolean; endpoint?: string; credentials?: { accessKeyId: string; secretAccessKey: string } };
  clock: Clock;
  /** Makes a client lean (lean-client.ts: its signer and user agent kept) and hands it to the client hook (if any) before its first call; returns it. */
  hooked<T extends { middlewareStack: unknown; config: unknown }>(client: T, service: string): T;
  /**
   * The client `build` makes, built (and hooked) at its first use rather than at the cold start: a function whose
   * invocation never calls a service (an order due later enqueues nothing; a release that succeeds schedules no retry)
   * does not pay for constructing its client. Every property reads through to the built client.
   */
  lazy<T extends { middlewareStack: unknown; config: unknown }>(service: string, build: () => T): T;
  /**
   * A sender without an SDK client (its `middlewareStack` is adapters/aws-http/call-stack.ts), built at its first use
   * as `lazy` builds a client, and then handed to the client hook as `hooked` hands a client, so that the bench's
   * meter counts its calls.
   */
  metered<T extends { middlewareStack: unknown }>(service: string, build: () => T): T;
}

/** What a gateway adapter is given: the credentials (with the scrubber that learns them). */
export interface GatewayClient {
  credentials: GatewayCredentialSource;
  scrubber: SecretScrubber;
}

/**
 * The adapters a function uses beyond DynamoDB and the repositories every function reads, each a builder that loads
 * its code (functions/composition/services/): the SDK clients, the gateway over HTTP, the stored work of the API and
 * the jobs, and the embedded default's stand-ins for S3 and KMS.
 */
export interface AwsAdapters {
  scheduler?(c: ServiceContext): ReleaseScheduler;
  publisher?(c: ServiceContext, lingerMs: number | undefined): EventPublisher;
  /** The release queue (none where the function sends job steps only) and, where configured, the job queue: one SQS client. */
  queues?(c: ServiceContext): { queue?: ReleaseQueue; jobQueue: JobQueue | null };
  /** Export files in the stack's S3 bucket (pre-signed links). */
  exportBucket?(c: ServiceContext, bucket: string): ExportStore;
  /** The audit checkpoints' KMS key. */
  kmsAuditKey?(c: ServiceContext, key: { kms: string; writer: boolean; previous: string[] }): AuditKey;
  /** The audit log's write-once copy in S3 (verification and export read it). */
  auditArchiveCopy?(c: ServiceContext, bucket: string): AuditCopy;
  /** The gateway credentials from Secrets Manager. */
  secretsManager?(secretId: string, scrubber: SecretScrubber): GatewayCredentialSource;
  /** The gateway's order, vendor and recon reads (every function but order-events). */
  gatewayReads?(c: ServiceContext, client: GatewayClient): GatewayOrders;
  /** The gateway's eligibility PUT at `ratePerMinute` a container: built only where the function sends (release). */
  gatewaySends?(c: ServiceContext, client: GatewayClient, ratePerMinute: number): EligibilityGateway;
  /** Previews, four-eyes approvals, policy imports and jobs in the config table (api, jobs, sweep). */
  workRepositories?(doc: DocumentClient, table: string): Pick<Dependencies, 'previews' | 'approvals' | 'policyImports' | 'jobs'>;
  /** Export files in a folder the API serves (the embedded default's stand-in for S3). */
  exportFolder?(dir: string, baseUrl: string): ExportStore;
  /** The audit checkpoints' key in a key file (the embedded default's stand-in for KMS). */
  auditKeyFile?(file: string): AuditKey;
}

export interface BuildOptions {
  clock?: Clock; logger?: Logger; publishLingerMs?: number;
  /** False for every function but the release function: only it sends, so the deployment stays under the gateway's limit. */
  sendsToGateway?: boolean;
  /** Given every SDK client as it is built (the bench's call meter); none in production. */
  wrapClient?: ClientHook;
}

/**
 * The SDK clients' logger. For every call, the SDK builds a redacted copy of the request and the answer to hand to
 * `logger.info`, even for its default logger that throws it away; a logger without `info` skips that work (a tenth of
 * a DynamoDB call's CPU). Holdback logs its own outcomes, and the SDK's errors reach it as thrown errors.
 */
const SDK_LOGGER = { debug: () => undefined, warn: () => undefined, error: () => undefined } as unknown as DynamoDBClientConfig['logger'];

/**
 * The sends a minute one container may make: the gateway's limit is for the whole deployment, and at most
 * `releaseMaxConcurrency` release containers run at once (the queue's event source mapping), so each takes its share.
 */
export function containerRatePerMinute(config: RuntimeConfig): number {
  return Math.floor(config.gateway.ratePerMinute / config.releaseMaxConcurrency);
}

/** The gateway of a function that must not send: a due release goes on the release queue instead. */
const noGatewaySends: EligibilityGateway = {
  updateEligibility: async () => {
    throw new Error('only the release function sends to the gateway (its limit is shared by the release containers); enqueue the release command instead');
  },
};

/** Stand-ins where a part is not configured: each use says which variable is missing. */
const unconfigured = (variable: string): Error => new Error(`${variable} is not set in this runtime, so it cannot do this; set it (the CDK stack and the embedded default do)`);
const noJobQueue: JobQueue = { enqueue: async () => { throw unconfigured(RUNTIME_ENV.jobQueueUrl); } };
const noExports: ExportStore = {
  write: async () => { throw unconfigured(`${RUNTIME_ENV.exportBucket} (or ${RUNTIME_ENV.exportDir})`); },
  link: async () => { throw unconfigured(`${RUNTIME_ENV.exportBucket} (or ${RUNTIME_ENV.exportDir})`); },
  writePart: async () => { throw unconfigured(`${RUNTIME_ENV.exportBucket} (or ${RUNTIME_ENV.exportDir})`); },
  combine: async () => { throw unconfigured(`${RUNTIME_ENV.exportBucket} (or ${RUNTIME_ENV.exportDir})`); },
};

/** A use of a port whose SDK client the function's composition does not load: names both, and where to add it. */
function absent(functionName: string, client: string, what: string, kind = 'client'): Error {
  // The handlers name a function as the stack does (apiReads); its composition's file is kebab-case (api-reads.ts).
  const file = functionName.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  return new Error(`the ${functionName} function's composition (functions/composition/${file}.ts) loads no ${client} ${kind}, so it cannot ${what}; add the ${client} builder there if this function needs it`);
}

/** A port object whose every method fails with `absent(...)` (no method is called on the way to the first use). */
function absentPort<T extends object>(functionName: string, client: string, what: string, kind = 'client'): T {
  return new Proxy({} as T, {
    get: (_target, method) => (method === 'then' ? undefined : async () => { throw absent(functionName, client, `${what} (${String(method)})`, kind); }),
  });
}

/** An object standing for `build()`'s, which is built on the first property read; methods are bound to it. */
export function lazyClient<T extends object>(build: () => T): T {
  let built: T | null = null;
  return new Proxy({} as T, {
    get: (_target, property) => {
      built ??= build();
      const value = Reflect.get(built, property, built) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(built) : value;
    },
  });
}

/** The system clock (AWS); the embedded default passes its shared clock instead. */
export const systemClock: Clock = { now: () => Instant.now() };

/** Builds every adapter of `functionName` once, with one SDK client per service its `adapters` load. */
export function composeDependencies(config: RuntimeConfig, adapters: AwsAdapters, functionName: string, overrides: BuildOptions = {}): Dependencies {
  const clock = overrides.clock ?? systemClock;
  const aws: ServiceContext['aws'] = {
    region: config.aws.region,
    logger: SDK_LOGGER,
    // Each client resolves an operation's middleware stack once, not on every call (no call passes per-call options).
    cacheMiddleware: true,
    ...(config.aws.endpoint ? { endpoint: config.aws.endpoint } : {}),
    ...(config.aws.placeholderCredentials ? { credentials: { accessKeyId: LOCAL_FUNCTIONS_ACCESS_KEY, secretAccessKey: 'local' } } : {}),
  };
  const c: ServiceContext = {
    config, aws, clock,
    hooked: (client, service) => {
      leanClient(client);
      overrides.wrapClient?.(client, service, config);
      return client;
    },
    lazy: (service, build) => lazyClient(() => c.hooked(build(), service)),
    metered: (service, build) => lazyClient(() => {
      const sender = build();
      overrides.wrapClient?.(sender, service, config);
      return sender;
    }),
  };
  const dynamodb = { ...aws, ...(config.aws.dynamodbEndpoint ? { endpoint: config.aws.dynamodbEndpoint } : {}) };
  const doc = new DocumentClient(c.hooked(new DynamoDBClient(documentClientConfig(dynamodb)), 'DynamoDB'));
  const scrubber = new SecretScrubber();
  const source = config.gateway.credentials;
  const credentials: GatewayCredentialSource = !('secretId' in source)
    ? fixedCredentials(source, scrubber)
    : adapters.secretsManager?.(source.secretId, scrubber) ?? (() => Promise.reject(absent(functionName, 'Secrets Manager', 'read the gateway credentials')));
  // Lambda: Powertools (request ids, level by POWERTOOLS_LOG_LEVEL); the embedded default passes its own logger.
  const logger = overrides.logger ?? new LambdaLogger(scrubber);
  const retention = config.retentionDays ?? {};
  const orders = new DynamoOrderRepository(doc, config.tables.orders, retention);
  const auditStore = new DynamoAuditStore(doc, config.audit.table, clock, logger);
  const queues = adapters.queues?.(c);
  const gatewayClient: GatewayClient = { credentials, scrubber };
  const work = adapters.workRepositories?.(doc, config.tables.config);
  const noWork = (what: string) => absentPort<never>(functionName, 'workRepositories', what, 'adapter');
  return {
    clock,
    logger,
    settings: new DynamoSettingsRepository(doc, config.tables.config, clock),
    policies: new DynamoPolicyRepository(doc, config.tables.config, orders.reads.directory),
    holds: new DynamoHoldRepository(doc, config.tables.config),
    exposure: new DynamoExposureLedger(doc, config.tables.orders),
    config: new DynamoConfigReader(doc, config.tables.config, clock),
    orders,
    reads: orders.reads,
    rejected: new DynamoRejectedEventRepository(doc, config.tables.rejected, retention),
    previews: work?.previews ?? noWork('keep previews'),
    approvals: work?.approvals ?? noWork('keep four-eyes approvals'),
    policyImports: work?.policyImports ?? noWork('keep policy imports'),
    scheduler: adapters.scheduler?.(c) ?? absentPort(functionName, 'Scheduler', 'schedule or cancel a release'),
    gateway: overrides.sendsToGateway === false
      ? noGatewaySends
      : adapters.gatewaySends?.(c, gatewayClient, containerRatePerMinute(config)) ?? absentPort(functionName, 'gatewaySends', 'send an eligibility PUT', 'adapter'),
    gatewayOrders: adapters.gatewayReads?.(c, gatewayClient) ?? absentPort(functionName, 'gatewayReads', 'read an order, vendor or recon at the gateway', 'adapter'),
    publisher: adapters.publisher?.(c, overrides.publishLingerMs) ?? absentPort(functionName, 'EventBridge', 'publish events'),
    queue: queues?.queue ?? absentPort(functionName, 'SQS', 'enqueue a release'),
    jobQueue: !config.jobQueueUrl ? noJobQueue : queues?.jobQueue ?? absentPort(functionName, 'SQS', 'enqueue a job step'),
    jobs: work?.jobs ?? noWork('keep jobs'),
    openOrderPolicies: new DynamoOpenOrderPolicyRepository(doc, config.tables.config),
    exports: exportStoreOf(config, adapters, c, functionName),
    audit: auditStore,
    auditArchive: auditStore,
    auditKey: auditKeyOf(config, adapters, c, functionName),
    auditCopy: auditCopyOf(config, adapters, c, functionName),
    // The gateway signs its webhooks with the client secret.
    secrets: { webhookSecret: async () => (await credentials()).clientSecret },
    previewInlineReleases: config.previewInlineReleases ?? PREVIEW_INLINE_RELEASES,
    exportPartRows: config.exportPartRows ?? EXPORT_PART_ROWS,
    auditVerifyInlineRecords: config.auditVerifyInlineRecords ?? AUDIT_VERIFY_INLINE_RECORDS,
    ...('secretId' in source ? { gatewayReady: () => credentials().then(() => true, () => false) } : {}),
  };
}

/** The export store as configured; the S3 client is built only where a bucket is. */
function exportStoreOf(config: RuntimeConfig, adapters: AwsAdapters, c: ServiceContext, functionName: string): ExportStore {
  const exports = config.exports;
  if (!exports) return noExports;
  if ('dir' in exports) return adapters.exportFolder?.(exports.dir, exports.baseUrl) ?? absentPort(functionName, 'exportFolder', 'write or link an export file', 'adapter');
  return adapters.exportBucket?.(c, exports.bucket) ?? absentPort(functionName, 'S3', 'write or link an export file');
}

/** The write-once copy where its bucket is configured (AWS); null locally, where the table is the only store. */
function auditCopyOf(config: RuntimeConfig, adapters: AwsAdapters, c: ServiceContext, functionName: string): AuditCopy | null {
  const bucket = config.audit.archiveBucket;
  if (!bucket) return null;
  return adapters.auditArchiveCopy?.(c, bucket) ?? absentPort<AuditCopy>(functionName, 'S3', 'read the audit log\'s write-once copy');
}

/** The audit checkpoints' key as configured; the KMS client is built only where a KMS key is. */
function auditKeyOf(config: RuntimeConfig, adapters: AwsAdapters, c: ServiceContext, functionName: string): Dependencies['auditKey'] {
  const key = config.audit.key;
  if (!key) return null;
  const built = 'kms' in key ? adapters.kmsAuditKey?.(c, key) : adapters.auditKeyFile?.(key.file);
  if (built) return built;
  const fail = () => Promise.reject('kms' in key
    ? absent(functionName, 'KMS', 'sign or verify audit checkpoints')
    : absent(functionName, 'auditKeyFile', 'sign or verify audit checkpoints', 'adapter'));
  return { canSign: false, identity: fail, publicKeyPem: fail, publicKeys: fail, sign: fail };
}
