/** The AWS runtime's composition root: reads the environment once, failing fast, and builds every adapter. */
import { DateTime } from 'luxon';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Clock, Dependencies, Logger } from './application/ports';
import { DEFAULT_EVENT_SOURCE, RELEASE_SCHEDULE_GROUP } from './routing';
import { TABLE_ENV, type TableNames } from './adapters/dynamodb/tables';
import { DynamoSettingsRepository } from './adapters/dynamodb/settings-repository';
import { DynamoPolicyRepository } from './adapters/dynamodb/policy-repository';
import { DynamoConfigReader } from './adapters/dynamodb/config-reader';
import { DocumentClient, documentClientConfig } from './adapters/dynamodb/document-client';
import { DynamoOrderRepository } from './adapters/dynamodb/order-repository';
import { DynamoRejectedEventRepository } from './adapters/dynamodb/rejected-event-repository';
import { HttpEligibilityGateway } from './adapters/gateway/http-eligibility-gateway';
import { HttpGatewayOrders } from './adapters/gateway/http-gateway-orders';
import { EventBridgeReleaseScheduler } from './adapters/scheduler/eventbridge-release-scheduler';
import { EventBridgePublisher } from './adapters/eventbridge/eventbridge-publisher';
import { JsonLinesLogger } from './adapters/logging/json-lines-logger';
import { SqsReleaseQueue } from './adapters/sqs/sqs-release-queue';

/**
 * Every environment variable the runtime reads. On AWS the CDK stack sets them; the gateway client secret is put in
 * `HOLDBACK_GATEWAY_CLIENT_SECRET` at deploy time from Secrets Manager (a CloudFormation dynamic reference, e.g.
 * `secret.secretValueFromJson('clientSecret')`), so it is never in the repository or the synthesized template.
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
  gatewayClientId: 'HOLDBACK_GATEWAY_CLIENT_ID',
  gatewayClientSecret: 'HOLDBACK_GATEWAY_CLIENT_SECRET',
  gatewayRatePerMinute: 'HOLDBACK_GATEWAY_RATE_PER_MINUTE',
  gatewayTimeoutMs: 'HOLDBACK_GATEWAY_TIMEOUT_MS',
  gatewayMaxTries: 'HOLDBACK_GATEWAY_MAX_TRIES',
  gatewayMaxWaitMs: 'HOLDBACK_GATEWAY_MAX_WAIT_MS',
  releaseFunctionArn: 'HOLDBACK_RELEASE_FUNCTION_ARN',
  schedulerRoleArn: 'HOLDBACK_SCHEDULER_ROLE_ARN',
  scheduleGroup: 'HOLDBACK_SCHEDULE_GROUP',
  /** The URL of the release queue (SQS): the one send path. */
  releaseQueueUrl: 'HOLDBACK_RELEASE_QUEUE_URL',
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
    clientId: string;
    clientSecret: string;
    ratePerMinute: number;
    timeoutMs: number;
    maxTries: number;
    maxWaitMs: number;
  };
  scheduler: { releaseFunctionArn: string; schedulerRoleArn: string; groupName: string };
  releaseQueueUrl: string;
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
      clientId: required(RUNTIME_ENV.gatewayClientId, 'the gateway client id'),
      clientSecret: required(RUNTIME_ENV.gatewayClientSecret, 'the gateway client secret (from Secrets Manager on AWS)'),
      ratePerMinute: count(RUNTIME_ENV.gatewayRatePerMinute, 600, 1),
      timeoutMs: count(RUNTIME_ENV.gatewayTimeoutMs, 5_000, 1),
      maxTries: count(RUNTIME_ENV.gatewayMaxTries, 4, 1),
      maxWaitMs: count(RUNTIME_ENV.gatewayMaxWaitMs, 20_000, 0),
    },
    scheduler: {
      releaseFunctionArn: required(RUNTIME_ENV.releaseFunctionArn, 'the ARN of the release function'),
      schedulerRoleArn: required(RUNTIME_ENV.schedulerRoleArn, 'the ARN of the role Scheduler uses to invoke it'),
      groupName: optional(RUNTIME_ENV.scheduleGroup, RELEASE_SCHEDULE_GROUP),
    },
    releaseQueueUrl: required(RUNTIME_ENV.releaseQueueUrl, 'the URL of the release queue (SQS)'),
  };
  if (problems.length > 0) throw new RuntimeConfigError(problems);
  return config;
}

/**
 * The SDK clients' logger. For every call, the SDK builds a redacted copy of the request and the answer to hand to
 * `logger.info`, even for its default logger that throws it away; a logger without `info` skips that work (a tenth of
 * a DynamoDB call's CPU). Holdback logs its own outcomes, and the SDK's errors reach it as thrown errors.
 */
const SDK_LOGGER = { debug: () => undefined, warn: () => undefined, error: () => undefined } as unknown as DynamoDBClientConfig['logger'];

/** The system clock (AWS); the embedded default passes its shared clock instead. */
export const systemClock: Clock = { now: () => DateTime.utc() };

/** Builds every adapter once, with one SDK client per service. */
export function buildDependencies(
  config: RuntimeConfig,
  overrides: { clock?: Clock; logger?: Logger; publishLingerMs?: number } = {},
): Dependencies {
  const clock = overrides.clock ?? systemClock;
  const aws = {
    region: config.aws.region,
    logger: SDK_LOGGER,
    // Each client resolves an operation's middleware stack once, not on every call (no call passes per-call options).
    cacheMiddleware: true,
    ...(config.aws.endpoint ? { endpoint: config.aws.endpoint } : {}),
    ...(config.aws.placeholderCredentials ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  };
  const dynamodb = { ...aws, ...(config.aws.dynamodbEndpoint ? { endpoint: config.aws.dynamodbEndpoint } : {}) };
  const doc = new DocumentClient(new DynamoDBClient(documentClientConfig(dynamodb)));
  const logger = overrides.logger ?? new JsonLinesLogger({
    secrets: [config.gateway.clientSecret, config.gateway.clientId],
  });
  return {
    clock,
    logger,
    settings: new DynamoSettingsRepository(doc, config.tables.config, clock),
    policies: new DynamoPolicyRepository(doc, config.tables.config),
    config: new DynamoConfigReader(doc, config.tables.config, clock),
    orders: new DynamoOrderRepository(doc, config.tables.orders),
    rejected: new DynamoRejectedEventRepository(doc, config.tables.rejected),
    scheduler: new EventBridgeReleaseScheduler(new SchedulerClient(aws), {
      releaseFunctionArn: config.scheduler.releaseFunctionArn,
      schedulerRoleArn: config.scheduler.schedulerRoleArn,
      groupName: config.scheduler.groupName,
    }),
    gateway: new HttpEligibilityGateway({ ...config.gateway, now: () => clock.now() }),
    gatewayOrders: new HttpGatewayOrders({
      pgBaseUrl: config.gateway.pgBaseUrl,
      clientId: config.gateway.clientId,
      clientSecret: config.gateway.clientSecret,
      timeoutMs: config.gateway.timeoutMs,
    }),
    publisher: new EventBridgePublisher(new EventBridgeClient(aws), {
      eventBusName: config.eventBus,
      orderEventSource: config.orderEventSource,
      now: () => clock.now(),
      lingerMs: overrides.publishLingerMs,
    }),
    queue: new SqsReleaseQueue(new SQSClient(aws), config.releaseQueueUrl),
    // TEMPORARY until the audit log adapter lands (issue 7.8): entries are dropped. Must be replaced before a commit
    // that claims the audit log.
    audit: { append: async () => undefined },
    // The gateway signs its webhooks with the client secret.
    secrets: { webhookSecret: config.gateway.clientSecret },
  };
}
