/** The AWS runtime's configuration: every environment variable read once, failing fast with what to set. */
import { AUDIT_VERIFY_INLINE_RECORDS, EXPORT_PART_ROWS, PREVIEW_INLINE_RELEASES } from '../application/ports';
import { DEFAULT_EVENT_SOURCE, RELEASE_QUEUE, RELEASE_SCHEDULE_GROUP } from '../definitions/routing';
import { AUDIT_ARCHIVE_BUCKET_ENV, AUDIT_TABLE_ENV, DEFAULT_AUDIT_TABLE_NAME, TABLE_ENV, type TableNames } from '../definitions/tables';
import { RETENTION_KINDS, type RetentionDays } from '../definitions/retention-kinds';
import { DEFAULT_ROLE_PROPAGATION_WAIT_MS } from '../adapters/scheduler/eventbridge-release-scheduler';

/**
 * Every environment variable the runtime reads. On AWS the CDK stack sets them, and the gateway credentials are NOT
 * among them: `HOLDBACK_GATEWAY_SECRET_ID` names the Secrets Manager secret, read at run time with a cache (a rotation
 * applies within SECRET_MAX_AGE_SECONDS, without a deploy). The embedded default passes the sandbox's public test
 * credentials in `HOLDBACK_GATEWAY_CLIENT_ID` / `HOLDBACK_GATEWAY_CLIENT_SECRET` instead.
 */
export const RUNTIME_ENV = {
  ordersTable: TABLE_ENV.orders,
  configTable: TABLE_ENV.config,
  rejectedTable: TABLE_ENV.rejected,
  eventBus: 'HOLDBACK_EVENT_BUS',
  eventSource: 'HOLDBACK_EVENT_SOURCE',
  gatewayBaseUrl: 'HOLDBACK_GATEWAY_BASE_URL',
  /** Optional: the PG API base (order lookup); defaults to the vendor base URL + "/pg". */
  gatewayPgBaseUrl: 'HOLDBACK_GATEWAY_PG_BASE_URL',
  gatewaySecretId: 'HOLDBACK_GATEWAY_SECRET_ID',
  gatewayClientId: 'HOLDBACK_GATEWAY_CLIENT_ID',
  gatewayClientSecret: 'HOLDBACK_GATEWAY_CLIENT_SECRET',
  gatewayRatePerMinute: 'HOLDBACK_GATEWAY_RATE_PER_MINUTE',
  gatewayTimeoutMs: 'HOLDBACK_GATEWAY_TIMEOUT_MS',
  gatewayMaxTries: 'HOLDBACK_GATEWAY_MAX_TRIES',
  gatewayMaxWaitMs: 'HOLDBACK_GATEWAY_MAX_WAIT_MS',
  /** The release queue's ARN: the target of every release schedule. */
  releaseQueueArn: 'HOLDBACK_RELEASE_QUEUE_ARN',
  schedulerRoleArn: 'HOLDBACK_SCHEDULER_ROLE_ARN',
  /** Optional: the SQS queue every release schedule parks a command in when Scheduler could not deliver it (the stack sets it). */
  scheduleDeadLetterArn: 'HOLDBACK_SCHEDULE_DEAD_LETTER_ARN',
  scheduleGroup: 'HOLDBACK_SCHEDULE_GROUP',
  /**
   * Optional: how long CreateSchedule waits in all for a newly created scheduler role to propagate (default 30000 ms).
   * A function with a shorter timeout sets less: the release is stored with its send time, and the sweep sends it
   * when due if this wait runs out.
   */
  scheduleRoleWaitMs: 'HOLDBACK_SCHEDULE_ROLE_WAIT_MS',
  /** The URL of the release queue (SQS): the one send path. */
  releaseQueueUrl: 'HOLDBACK_RELEASE_QUEUE_URL',
  /** Optional: JSON days per kind of record that may expire (`{"orders", "events", "rejected"}`); unset: nothing expires. */
  retentionDays: 'HOLDBACK_RETENTION_DAYS',
  /** The release queue consumer's maximum concurrency: each container's share of the gateway rate is rate / this. */
  releaseMaxConcurrency: 'HOLDBACK_RELEASE_MAX_CONCURRENCY',
  /**
   * Optional: open releases a preview covers in its own answer at most (default 20,000); a larger one answers 202 and
   * runs as a job (contract 6.3).
   */
  previewInlineReleases: 'HOLDBACK_PREVIEW_INLINE_RELEASES',
  /** Optional: rows an outcomes export writes a step, one part each (default 5,000; contract 6.3). */
  exportPartRows: 'HOLDBACK_EXPORT_PART_ROWS',
  /** Optional: signed audit records GET /audit/verify checks in its own answer at most (default 5,000); above, a job. */
  auditVerifyInlineRecords: 'HOLDBACK_AUDIT_VERIFY_INLINE_RECORDS',
  /** The URL of the job queue (SQS): the steps of bulk changes and exports (contract 6.3). Unset: no job can start. */
  jobQueueUrl: 'HOLDBACK_JOB_QUEUE_URL',
  /**
   * The URL of the export job queue (SQS): the steps of exports and audit verifications (routing.ts EXPORT_JOB_KINDS).
   * Unset: they go to the job queue too (one function runs every kind).
   */
  exportJobQueueUrl: 'HOLDBACK_EXPORT_JOB_QUEUE_URL',
  /** AWS: the S3 bucket of export files (pre-signed links). */
  exportBucket: 'HOLDBACK_EXPORT_BUCKET',
  /** Local: the folder of export files, and the API address that serves them (`/exports/{file}?token=`). */
  exportDir: 'HOLDBACK_EXPORT_DIR',
  exportBaseUrl: 'HOLDBACK_EXPORT_BASE_URL',
  /** The audit log's table (default "holdback-audit"; the stack sets it). */
  auditTable: AUDIT_TABLE_ENV,
  /** AWS: the write-once copy's bucket, which the API and the jobs function read to verify and export the log. */
  auditArchiveBucket: AUDIT_ARCHIVE_BUCKET_ENV,
  /** AWS: the ARN of the audit checkpoints' KMS key (ECC_NIST_P256, SIGN_VERIFY); every function reads its public key. */
  auditKmsKeyId: 'HOLDBACK_AUDIT_KMS_KEY_ID',
  /** AWS: ARNs of audit keys that signed before the current one (comma-separated, oldest first), still listed and verified. */
  auditPreviousKmsKeyIds: 'HOLDBACK_AUDIT_PREVIOUS_KMS_KEY_IDS',
  /** AWS: "true" on the one function whose role the key policy lets sign (the checkpoint writer). */
  auditCheckpointWriter: 'HOLDBACK_AUDIT_CHECKPOINT_WRITER',
  /** Local: the Ed25519 key file (PEM), created on first use; the embedded default keeps it in its data folder. */
  auditKeyFile: 'HOLDBACK_AUDIT_KEY_FILE',
  /** Set by Lambda; locally by the embedded default. */
  region: 'AWS_REGION',
  /** Optional: every SDK client talks to this endpoint (the local edge). */
  endpoint: 'AWS_ENDPOINT_URL',
  /** Optional, the SDK's own service-specific variable: DynamoDB alone talks to this endpoint instead. */
  dynamodbEndpoint: 'AWS_ENDPOINT_URL_DYNAMODB',
} as const;

export interface RuntimeConfig {
  aws: {
    region: string;
    endpoint: string | null;
    /** Where DynamoDB is served when it is not `endpoint` (locally, dynalite's own port, one hop shorter). */
    dynamodbEndpoint: string | null;
    /** A local endpoint ignores signatures, so without credentials in the environment placeholders are used. */
    placeholderCredentials: boolean;
  };
  tables: TableNames;
  eventBus: string;
  orderEventSource: string;
  gateway: {
    vendorBaseUrl: string;
    /** `{base_url}` of the PG API, e.g. "https://api.example.com/pg". */
    pgBaseUrl: string;
    /** Where the credentials come from: a secret read at run time (AWS), or fixed values (local only). */
    credentials: { secretId: string } | { clientId: string; clientSecret: string };
    ratePerMinute: number;
    timeoutMs: number;
    maxTries: number;
    maxWaitMs: number;
  };
  scheduler: { releaseQueueArn: string; schedulerRoleArn: string; groupName: string; rolePropagationWaitMs: number; deadLetterArn?: string };
  releaseQueueUrl: string;
  /** The job queue's URL; null where none is configured (a job cannot start there: it ends failed, saying so). */
  jobQueueUrl: string | null;
  /** The export job queue's URL; null: export and verification steps go to the job queue. */
  exportJobQueueUrl: string | null;
  /** Where export files go: an S3 bucket (AWS), a folder served by the API (local), or nowhere. */
  exports: { bucket: string } | { dir: string; baseUrl: string } | null;
  /** The release queue consumer's maximum concurrency: at most this many release containers send at once. */
  releaseMaxConcurrency: number;
  /** Open releases a preview covers in its own answer at most (HOLDBACK_PREVIEW_INLINE_RELEASES). */
  previewInlineReleases?: number;
  /** Rows an outcomes export writes a step (HOLDBACK_EXPORT_PART_ROWS). */
  exportPartRows?: number;
  /** Signed audit records GET /audit/verify checks in its own answer at most (HOLDBACK_AUDIT_VERIFY_INLINE_RECORDS). */
  auditVerifyInlineRecords?: number;
  audit: {
    table: string;
    /** Where checkpoints are signed: a KMS key (AWS), a local key file, or nowhere (no checkpoints are written). */
    key: { kms: string; writer: boolean; previous: string[] } | { file: string } | null;
    /** The write-once copy's S3 bucket (AWS); absent locally, where verification and export read the table. */
    archiveBucket?: string;
  };
  /** Days each kind of record that may expire is kept (HOLDBACK_RETENTION_DAYS); absent or empty: nothing expires. */
  retentionDays?: RetentionDays;
}

type Env = Record<string, string | undefined>;

/** Thrown at cold start when the environment is incomplete or wrong; names every variable at fault. */
export class RuntimeConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Holdback cannot start: ${problems.join('; ')}`);
    this.name = 'RuntimeConfigError';
  }
}

/** Reads every variable once; collects all problems so one failed start names everything to fix. */
export function readRuntimeConfig(env: Env = process.env): RuntimeConfig {
  const problems: string[] = [];
  const required = (name: string, what: string): string => {
    const value = env[name]?.trim();
    if (!value) problems.push(`${name} is not set; set it to ${what}`);
    return value ?? '';
  };
  const optional = (name: string, fallback: string): string => env[name]?.trim() || fallback;
  const count = (name: string, fallback: number, min: number): number => {
    const text = env[name]?.trim();
    if (!text) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) {
      problems.push(`${name} is "${text}"; set it to an integer of at least ${min} (default ${fallback})`);
      return fallback;
    }
    return value;
  };

  const region = env[RUNTIME_ENV.region]?.trim() || env.AWS_DEFAULT_REGION?.trim() || '';
  if (!region) problems.push(`${RUNTIME_ENV.region} is not set; set it to the AWS region, e.g. "ap-south-1"`);
  const endpoint = env[RUNTIME_ENV.endpoint]?.trim() || null;
  const dynamodbEndpoint = env[RUNTIME_ENV.dynamodbEndpoint]?.trim() || endpoint;
  for (const [name, value] of [[RUNTIME_ENV.endpoint, endpoint], [RUNTIME_ENV.dynamodbEndpoint, dynamodbEndpoint]] as const) {
    if (value && !/^https?:\/\/[^\s]+$/.test(value)) problems.push(`${name} is "${value}"; set it to an http(s) URL such as "http://127.0.0.1:4566", or leave it unset`);
  }
  const vendorBaseUrl = required(RUNTIME_ENV.gatewayBaseUrl, "the gateway's vendor base URL, e.g. \"https://api.example.com\"");
  if (vendorBaseUrl && !/^https?:\/\/[^\s]+$/.test(vendorBaseUrl)) {
    problems.push(`${RUNTIME_ENV.gatewayBaseUrl} is "${vendorBaseUrl}"; set it to an http(s) URL`);
  }
  const pgBaseUrl = optional(RUNTIME_ENV.gatewayPgBaseUrl, `${vendorBaseUrl.replace(/\/+$/, '')}/pg`);
  if (env[RUNTIME_ENV.gatewayPgBaseUrl]?.trim() && !/^https?:\/\/[^\s]+$/.test(pgBaseUrl)) {
    problems.push(`${RUNTIME_ENV.gatewayPgBaseUrl} is "${pgBaseUrl}"; set it to an http(s) URL, e.g. "https://api.example.com/pg", or leave it unset`);
  }
  const config: RuntimeConfig = {
    aws: { region, endpoint, dynamodbEndpoint, placeholderCredentials: (endpoint ?? dynamodbEndpoint) !== null && !env.AWS_ACCESS_KEY_ID },
    tables: {
      orders: required(RUNTIME_ENV.ordersTable, 'the orders table name'),
      config: required(RUNTIME_ENV.configTable, 'the config table name'),
      rejected: required(RUNTIME_ENV.rejectedTable, 'the rejected-events table name'),
    },
    eventBus: required(RUNTIME_ENV.eventBus, 'the EventBridge bus name ("default" locally)'),
    orderEventSource: optional(RUNTIME_ENV.eventSource, DEFAULT_EVENT_SOURCE),
    gateway: {
      vendorBaseUrl,
      pgBaseUrl,
      credentials: credentialsConfig(env, problems),
      ratePerMinute: count(RUNTIME_ENV.gatewayRatePerMinute, 600, 1),
      timeoutMs: count(RUNTIME_ENV.gatewayTimeoutMs, 5_000, 1),
      maxTries: count(RUNTIME_ENV.gatewayMaxTries, 4, 1),
      maxWaitMs: count(RUNTIME_ENV.gatewayMaxWaitMs, 20_000, 0),
    },
    scheduler: {
      releaseQueueArn: required(RUNTIME_ENV.releaseQueueArn, 'the ARN of the release queue (SQS), the target of release schedules'),
      schedulerRoleArn: required(RUNTIME_ENV.schedulerRoleArn, 'the ARN of the role Scheduler uses to send to it'),
      groupName: optional(RUNTIME_ENV.scheduleGroup, RELEASE_SCHEDULE_GROUP),
      rolePropagationWaitMs: count(RUNTIME_ENV.scheduleRoleWaitMs, DEFAULT_ROLE_PROPAGATION_WAIT_MS, 0),
      ...(env[RUNTIME_ENV.scheduleDeadLetterArn]?.trim() ? { deadLetterArn: env[RUNTIME_ENV.scheduleDeadLetterArn]!.trim() } : {}),
    },
    releaseQueueUrl: required(RUNTIME_ENV.releaseQueueUrl, 'the URL of the release queue (SQS)'),
    jobQueueUrl: env[RUNTIME_ENV.jobQueueUrl]?.trim() || null,
    exportJobQueueUrl: env[RUNTIME_ENV.exportJobQueueUrl]?.trim() || null,
    exports: exportsConfig(env, problems),
    // Lambda's SQS ScalingConfig takes at least 2.
    releaseMaxConcurrency: count(RUNTIME_ENV.releaseMaxConcurrency, RELEASE_QUEUE.maximumConcurrency, 2),
    previewInlineReleases: count(RUNTIME_ENV.previewInlineReleases, PREVIEW_INLINE_RELEASES, 0),
    exportPartRows: count(RUNTIME_ENV.exportPartRows, EXPORT_PART_ROWS, 1),
    auditVerifyInlineRecords: count(RUNTIME_ENV.auditVerifyInlineRecords, AUDIT_VERIFY_INLINE_RECORDS, 0),
    audit: {
      table: optional(RUNTIME_ENV.auditTable, DEFAULT_AUDIT_TABLE_NAME),
      key: auditKeyConfig(env, problems),
      ...(env[RUNTIME_ENV.auditArchiveBucket]?.trim() ? { archiveBucket: env[RUNTIME_ENV.auditArchiveBucket]!.trim() } : {}),
    },
    retentionDays: retentionConfig(env, problems),
  };
  if (config.gateway.ratePerMinute < config.releaseMaxConcurrency) {
    problems.push(`${RUNTIME_ENV.gatewayRatePerMinute} (${config.gateway.ratePerMinute}) is below ${RUNTIME_ENV.releaseMaxConcurrency} (${config.releaseMaxConcurrency}): each release container needs at least one send a minute; raise the rate or lower the concurrency`);
  }
  if (problems.length > 0) throw new RuntimeConfigError(problems);
  return config;
}

/** HOLDBACK_RETENTION_DAYS: optional JSON of whole days per kind, e.g. {"orders": 2922, "events": 400, "rejected": 90}. */
function retentionConfig(env: Env, problems: string[]): RetentionDays {
  const name = RUNTIME_ENV.retentionDays;
  const text = env[name]?.trim();
  if (!text) return {};
  const expected = `a JSON object of whole days of at least 1 per kind (${RETENTION_KINDS.join(', ')}), e.g. {"orders": 2922, "events": 400, "rejected": 90}, or leave it unset (nothing expires)`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    problems.push(`${name} is not JSON ("${text.slice(0, 80)}"); set it to ${expected}`);
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push(`${name} is ${JSON.stringify(parsed)}; set it to ${expected}`);
    return {};
  }
  const retention: RetentionDays = {};
  for (const [kind, days] of Object.entries(parsed)) {
    if (!(RETENTION_KINDS as readonly string[]).includes(kind)) {
      problems.push(`${name} names "${kind}", which is no kind of record that may expire; set it to ${expected}`);
    } else if (!Number.isInteger(days) || (days as number) < 1) {
      problems.push(`${name}.${kind} is ${JSON.stringify(days)}; set it to ${expected}`);
    } else {
      retention[kind as keyof RetentionDays] = days as number;
    }
  }
  return retention;
}

/** Export files: a bucket, or a folder with the API address serving it; never both. */
function exportsConfig(env: Env, problems: string[]): RuntimeConfig['exports'] {
  const bucket = env[RUNTIME_ENV.exportBucket]?.trim();
  const dir = env[RUNTIME_ENV.exportDir]?.trim();
  const baseUrl = env[RUNTIME_ENV.exportBaseUrl]?.trim();
  if (bucket && dir) problems.push(`${RUNTIME_ENV.exportBucket} and ${RUNTIME_ENV.exportDir} are both set; set only the bucket on AWS, only the folder locally`);
  if (bucket) return { bucket };
  if (!dir) return null;
  if (!baseUrl || !/^https?:\/\/[^\s]+$/.test(baseUrl)) {
    problems.push(`${RUNTIME_ENV.exportBaseUrl} is ${baseUrl ? `"${baseUrl}"` : 'not set'}; with ${RUNTIME_ENV.exportDir} set it to the API's address, e.g. "http://127.0.0.1:4000"`);
    return null;
  }
  return { dir, baseUrl: baseUrl.replace(/\/+$/, '') };
}

/** The audit key: a KMS key or a local key file, never both (a production runtime must not sign with a file). */
function auditKeyConfig(env: Env, problems: string[]): RuntimeConfig['audit']['key'] {
  const kms = env[RUNTIME_ENV.auditKmsKeyId]?.trim();
  const file = env[RUNTIME_ENV.auditKeyFile]?.trim();
  const writer = env[RUNTIME_ENV.auditCheckpointWriter]?.trim();
  if (writer && writer !== 'true' && writer !== 'false') {
    problems.push(`${RUNTIME_ENV.auditCheckpointWriter} is "${writer}"; set it to "true" on the checkpoint writer, or leave it unset`);
  }
  if (kms && file) {
    problems.push(`${RUNTIME_ENV.auditKmsKeyId} and ${RUNTIME_ENV.auditKeyFile} are both set; set only the KMS key on AWS, only the key file locally`);
  }
  const previous = (env[RUNTIME_ENV.auditPreviousKmsKeyIds] ?? '').split(',').map((id) => id.trim()).filter((id) => id !== '');
  if (kms) return { kms, writer: writer === 'true', previous };
  return file ? { file } : null;
}

/** A secret id, or (locally) both fixed credentials; never both kinds, so that production cannot fall back to variables. */
function credentialsConfig(env: Env, problems: string[]): RuntimeConfig['gateway']['credentials'] {
  const secretId = env[RUNTIME_ENV.gatewaySecretId]?.trim();
  const clientId = env[RUNTIME_ENV.gatewayClientId]?.trim();
  const clientSecret = env[RUNTIME_ENV.gatewayClientSecret]?.trim();
  if (secretId) {
    if (clientId || clientSecret) {
      problems.push(`${RUNTIME_ENV.gatewaySecretId} and ${RUNTIME_ENV.gatewayClientId}/${RUNTIME_ENV.gatewayClientSecret} are both set; set only the secret id (credentials never go in variables on AWS)`);
    }
    return { secretId };
  }
  if (clientId && clientSecret) return { clientId, clientSecret };
  problems.push(`${RUNTIME_ENV.gatewaySecretId} is not set; set it to the ARN or name of the Secrets Manager secret holding {"clientId", "clientSecret"} (locally: ${RUNTIME_ENV.gatewayClientId} and ${RUNTIME_ENV.gatewayClientSecret} instead)`);
  return { clientId: '', clientSecret: '' };
}

