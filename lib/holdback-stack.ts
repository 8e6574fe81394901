/** Holdback on AWS: tables, event rules, the release queue and schedules, the sweep, the API, the webhook URL, alarms and access policies. */
import { Aspects, CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import { RUNTIME_ENV } from '../functions/composition-root';
import { RETENTION_KINDS, type RetentionDays as KeptDays } from '../functions/definitions/retention-kinds';
import { DUE_INDEX } from '../functions/definitions/tables';
import {
  DEFAULT_EVENT_SOURCE, EMITTED_EVENTS, EXPORT_JOB_QUEUE, JOB_QUEUE, RELEASE_QUEUE, SWEEP_SCHEDULE, eventRules, type EventPattern, type HandlerName,
} from '../functions/definitions/routing';
import { API_FUNCTIONS, type ApiFunction } from '../functions/definitions/api-routing';
import { AccessPolicies } from './access-policies';
import { TrustAlarms } from './alarms';
import { DeadLetterQueue } from './queues/dead-letter-queue';
import { DeploySafety } from './deploy-safety';
import { EventIntake } from './event-intake';
import { GatewayCredentials } from './gateway-credentials';
import { GatewayWebhooks } from './gateway-webhooks';
import { HoldbackApi } from './holdback-api';
import { HoldbackFunction, type HandlerFile, type TableActions } from './holdback-function';
import { AuditArchive } from './audit-archive';
import { AuditKey } from './audit-key';
import { HoldbackTable, LEGACY_INDEXES, STACK_TABLES, type StackTableName } from './holdback-table';
import { Observability } from './observability';
import { ReleaseQueue } from './queues/release-queue';
import { ExportJobQueue, JobQueue } from './queues/job-queue';
import { ExportBucket } from './export-bucket';
import { ReleaseScheduling } from './release-scheduling';
import { stackScopedName } from './stack-scoped-name';
import { SweepSchedule } from './sweep-schedule';

/** The stack's functions: the handlers rules, queues and schedules target, the API's, and the gateway webhooks'. */
export const FUNCTION_ROLES = ['orderEvents', 'release', 'sweep', 'api', 'webhooks', 'jobs', 'exportJobs', 'apiReads', 'apiJobs', 'apiAudit', 'apiVendors', 'apiPages'] as const;
export type FunctionRole = (typeof FUNCTION_ROLES)[number] & (HandlerName | ApiFunction | 'webhooks');

/** Reserved concurrency per function (see holdback-context.ts for the account check). */
export type ConcurrencyBudget = Record<FunctionRole, number>;
/**
 * Enough for bursts of order events and API use; the release function's share is its queue's maximum concurrency
 * (an SQS event source needs at least that much reserved); the sweep runs one at a time; the webhooks' share bounds
 * what a flood on their open URL can run (three webhooks per order, each well under a second). The jobs' and the export
 * jobs' shares are their queues' maximum concurrency. 100 in all: fits any account at the standard quota of 1,000.
 */
export const DEFAULT_CONCURRENCY_BUDGET: ConcurrencyBudget = {
  orderEvents: 50, release: RELEASE_QUEUE.maximumConcurrency, sweep: 2, webhooks: 10, jobs: JOB_QUEUE.maximumConcurrency,
  exportJobs: EXPORT_JOB_QUEUE.maximumConcurrency,
  // The API's 20, shared by its functions (definitions/api-routing.ts): the pages and the reads most, since a browser
  // opening the console asks for the page, its script, its stylesheet and the clock at once; the vendors' list and
  // imports two, taken from the changes and the reads they left.
  api: 4, apiReads: 5, apiJobs: 2, apiAudit: 2, apiVendors: 2, apiPages: 5,
};

/** What may expire, in days after it was written; settings and policy history and the audit log never expire. */
export { RETENTION_KINDS };
/** Every kind given its days (the runtime's HOLDBACK_RETENTION_DAYS, where a kind left out never expires). */
export type RetentionDays = Required<KeptDays>;
/**
 * Orders and their outcomes: 8 years (India's books-of-account rule asks for 8; auditors read outcomes); order events:
 * 400 days (a dispute or chargeback can come up to a year later); rejected events: 90 days (an operator's inbox).
 */
export const DEFAULT_RETENTION_DAYS: RetentionDays = { orders: 2922, events: 400, rejected: 90 };

export interface HoldbackStackProps extends StackProps {
  /** The name of the stack's own bus (never `default`). @default `<stack>-events` */
  readonly eventBusName?: string;
  /** IAM role or user ARNs, or other accounts' ids, that may put order events on the bus. @default none */
  readonly eventProducers?: readonly string[];
  /** The marketplace's event source that the order rule matches. @default "marketplace.orders" */
  readonly orderEventSource?: string;
  /** Default of the `GatewayBaseUrl` stack parameter. */
  readonly gatewayBaseUrl?: string;
  /** An existing Secrets Manager secret with the gateway credentials; otherwise the stack creates one to fill in. */
  readonly gatewaySecretName?: string;
  /** Maximum concurrency of the release queue's consumer (at least 2). @default RELEASE_QUEUE.maximumConcurrency */
  readonly releaseConcurrency?: number;
  /** Reserved concurrency per function; null reserves none. @default DEFAULT_CONCURRENCY_BUDGET */
  readonly concurrencyBudget?: ConcurrencyBudget | null;
  /** @default DEFAULT_RETENTION_DAYS */
  readonly retentionDays?: RetentionDays;
  /**
   * The orders table's due index projection: KEYS_ONLY (the default; the code reads the releases from the table), or
   * ALL for a stack deployed while it was ALL, since DynamoDB cannot change an index's projection in place.
   */
  readonly dueIndexProjection?: 'KEYS_ONLY' | 'ALL';
  /** The upgrade's stages (holdback:ordersIndexes): the orders table's indexes in this deploy, legacy ones included. */
  readonly ordersIndexes?: readonly string[];
  /** Subscribed to the alarm topic. */
  readonly alarmEmail?: string;
  /** ARNs of audit keys that signed before the current one (kept, never deleted): still listed and verifiable. */
  readonly auditPreviousKeyArns?: string[];
}

/** The api function's whole wait for a new scheduler role (its timeout is 29 s, API Gateway's 30). */
const API_ROLE_PROPAGATION_WAIT_MS = 12_000;

/** Appending to the audit log: a Query reads the stream's head (the hash chain), a PutItem adds the entry. */
const AUDIT_APPEND: TableActions = ['dynamodb:PutItem', 'dynamodb:Query'];
/** Rejected events: numbered by an atomic counter (UpdateItem), stored once per id (GetItem, PutItem). */
const REJECT: TableActions = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];
/**
 * The DynamoDB actions each function's code uses, per table (absent: none; it still gets the name, the composition
 * root builds every repository). The stack test checks that the template grants exactly these; that the code needs
 * no more shows only against AWS (AccessDenied), so a new call in an adapter adds its action here.
 */
export const TABLE_ACTIONS: Record<FunctionRole, Partial<Record<StackTableName, TableActions>>> = {
  orderEvents: {
    orders: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query'],
    // GetItem: the config stamp alone, when the container keeps the rest (config-stamp.ts).
    config: ['dynamodb:BatchGetItem', 'dynamodb:GetItem'],
    rejected: REJECT,
    audit: AUDIT_APPEND,
  },
  release: { orders: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query'], config: ['dynamodb:BatchGetItem', 'dynamodb:GetItem'], audit: AUDIT_APPEND },
  // The sweep also writes the audit checkpoints: it scans after a quiet spell and clears pending appends. It expires
  // the four-eyes approvals past their 24 hours (config: the state index's Query, one conditional UpdateItem each).
  sweep: {
    orders: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query'],
    config: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
    // GetItem: the streams' signed heads and a checkpoint by number (AuditStore.signedHeads, checkpoint).
    audit: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:Scan', 'dynamodb:DeleteItem'],
  },
  // The API's changes: settings, policies, holds, releases, imports, previews and approvals (UpdateItem: a job whose
  // first step the queue refused is ended failed at once); each change is audited.
  api: {
    orders: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
    config: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
    audit: AUDIT_APPEND,
  },
  // The vendors at large: the list reads (orders: the open totals; config: the vendor directory, policies, holds); an
  // import stores policy versions and its record (config PutItem, UpdateItem), each version audited.
  apiVendors: {
    orders: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
    config: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
    audit: AUDIT_APPEND,
  },
  // The API's reads write nothing.
  apiReads: {
    orders: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
    config: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
    rejected: ['dynamodb:GetItem', 'dynamodb:Query'],
  },
  // The bulk work: a job started or cancelled (config PutItem, UpdateItem; also when the queue refuses its first
  // step); an export's filters read as GET /outcomes reads them; a preview read (orders) and stored (config); an
  // import's policy versions stored (config PutItem), each audited.
  apiJobs: {
    orders: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
    config: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
    audit: AUDIT_APPEND,
  },
  // The audit log: verification and export read the whole log, a proof the stream's signed head and its checkpoint;
  // a verification too large for one answer is a job (config PutItem, UpdateItem), audited.
  apiAudit: {
    orders: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
    config: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
    audit: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:Scan'],
  },
  // The console's pages, the OpenAPI document and the unrouted requests read no table.
  apiPages: {},
  // Each step: the vendor's open-release index page, each release planned again (orders), the job's counters
  // (config UpdateItem), the settings, policies and holds; each release replanned is audited (audit appends).
  jobs: {
    orders: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
    config: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'],
    audit: AUDIT_APPEND,
  },
  // Each step: a part of the outcomes (orders, read only) or of the audit log (a verification also the streams'
  // signed heads: GetItem), and the job's counters (config UpdateItem).
  exportJobs: {
    orders: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
    config: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'],
    audit: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:Scan'],
  },
  // A settlement reads and rewrites its one release and reads the settings to check it against its prediction; a
  // refused signed webhook is listed; every signed webhook is audited. A payment only republishes order.paid.
  webhooks: {
    orders: ['dynamodb:GetItem', 'dynamodb:PutItem'],
    config: ['dynamodb:GetItem'],
    rejected: REJECT,
    audit: AUDIT_APPEND,
  },
};

const TABLE_IDS: Record<StackTableName, string> = { orders: 'OrdersTable', config: 'ConfigTable', rejected: 'RejectedEventsTable', audit: 'AuditTable' };

export class HoldbackStack extends Stack {
  readonly tables: Record<StackTableName, HoldbackTable>;
  readonly auditKey: AuditKey;
  readonly auditArchive: AuditArchive;
  readonly functions: Record<FunctionRole, HoldbackFunction>;
  readonly api: HoldbackApi;
  readonly webhooks: GatewayWebhooks;
  readonly releaseQueue: ReleaseQueue;
  readonly jobQueue: JobQueue;
  readonly exportJobQueue: ExportJobQueue;
  readonly exportBucket: ExportBucket;
  readonly scheduling: ReleaseScheduling;
  readonly observability: Observability;
  readonly access: AccessPolicies;
  readonly gateway: GatewayCredentials;
  readonly intake: EventIntake;
  readonly trustAlarms: TrustAlarms;

  constructor(scope: Construct, id: string, props: HoldbackStackProps = {}) {
    super(scope, id, props);
    Aspects.of(this).add(new DeploySafety());
    const orderEventSource = props.orderEventSource ?? DEFAULT_EVENT_SOURCE;
    this.intake = new EventIntake(this, 'EventIntake', { busName: props.eventBusName, orderEventSource, producers: props.eventProducers ?? [] });
    const bus = this.intake.bus;
    const retention = props.retentionDays ?? DEFAULT_RETENTION_DAYS;

    this.tables = Object.fromEntries((Object.keys(STACK_TABLES) as StackTableName[]).map((name) =>
      [name, new HoldbackTable(this, TABLE_IDS[name], {
        name,
        ...(name === 'orders' && props.dueIndexProjection ? { projections: { [DUE_INDEX.name]: props.dueIndexProjection } } : {}),
        ...(name === 'orders' && props.ordersIndexes ? {
          indexes: props.ordersIndexes.filter((index) => !LEGACY_INDEXES[index]),
          legacy: props.ordersIndexes.filter((index) => LEGACY_INDEXES[index]).map((index) => LEGACY_INDEXES[index]),
        } : {}),
      })])) as Record<StackTableName, HoldbackTable>;
    this.gateway = new GatewayCredentials(this, 'GatewayCredentials', { baseUrl: props.gatewayBaseUrl, secretName: props.gatewaySecretName });
    const releaseConcurrency = props.releaseConcurrency ?? RELEASE_QUEUE.maximumConcurrency;
    this.scheduling = new ReleaseScheduling(this, 'ReleaseScheduling');
    this.releaseQueue = new ReleaseQueue(this, 'ReleaseQueue', { maximumConcurrency: releaseConcurrency });
    this.jobQueue = new JobQueue(this, 'JobQueue');
    this.exportJobQueue = new ExportJobQueue(this, 'ExportJobQueue');
    this.exportBucket = new ExportBucket(this, 'Exports');
    const orderEventFailures = new DeadLetterQueue(this, 'OrderEventsDeadLetters', {
      holds: 'order events the rule could not deliver, or the order-events function failed on after its retries',
    });
    const sweepFailures = new DeadLetterQueue(this, 'SweepDeadLetters', {
      holds: 'sweep invocations that failed (the next sweep a minute later retries; many here mean the sweep is broken)',
    });

    const budget = props.concurrencyBudget === undefined ? DEFAULT_CONCURRENCY_BUDGET : props.concurrencyBudget;
    if (budget && budget.release < releaseConcurrency) {
      throw new Error(`the release function's reserved concurrency (${budget.release}) is below its queue's maximum concurrency (${releaseConcurrency}); reserve at least ${releaseConcurrency} (holdback:concurrencyBudget) or lower holdback:releaseConcurrency`);
    }
    const reserved = (role: FunctionRole) => (budget ? { reservedConcurrentExecutions: budget[role] } : {});

    /** One of the HTTP API's functions: API Gateway answers 503 after 30 s whatever it does, and invokes it synchronously. */
    const apiFunction = (role: ApiFunction, id: string, handlerFile: HandlerFile, serves: string, more: { withPages?: boolean } = {}) => new HoldbackFunction(this, id, {
      handlerFile,
      description: `Holdback API (IAM-authorised): ${serves}`,
      timeout: Duration.seconds(29),
      failuresGoTo: 'its caller: API Gateway invokes it synchronously and answers the error (no asynchronous invocation exists to park)',
      ...reserved(role),
      ...more,
    });
    this.functions = {
      orderEvents: new HoldbackFunction(this, 'OrderEventsFunction', {
        // Per-order volume: traced only when the caller sampled (X-Ray's active sampling would cost $14 a million orders, see
        // README "The bill"); failures show in logs, metrics and alarms. The api, sweep and jobs keep active tracing.
        tracing: 'passThrough',
        handlerFile: 'order-events',
        description: 'Holdback: one marketplace order event to decisions, schedules and due releases',
        timeout: Duration.seconds(60),
        onFailure: orderEventFailures.queue,
        ...reserved('orderEvents'),
      }),
      release: new HoldbackFunction(this, 'ReleaseFunction', {
        tracing: 'passThrough',
        handlerFile: 'release',
        description: "Holdback: release commands from the release queue to the gateway's settlement-eligibility PUT",
        // A readable name in the console and the logs, scoped by the stack.
        functionName: stackScopedName(this, 'release'),
        failuresGoTo: "the release queue's redrive policy: a command that fails every receive lands in its dead-letter queue, which alarms",
        // Gateway client: up to maxTries calls with waits of at most 20 s between them, for each record of a batch.
        timeout: Duration.seconds(60),
        ...reserved('release'),
      }),
      sweep: new HoldbackFunction(this, 'SweepFunction', {
        handlerFile: 'sweep',
        description: 'Holdback: every minute, re-enqueues overdue and retryable releases',
        // Under the one-minute period, so that sweeps rarely overlap.
        timeout: Duration.seconds(55),
        // The next sweep, a minute later, is the retry; a failed one is still recorded for the alarm.
        asyncRetryAttempts: 0,
        onFailure: sweepFailures.queue,
        ...reserved('sweep'),
      }),
      // The HTTP API's functions (definitions/api-routing.ts says which serves each route), each with its routes' code
      // and clients only.
      api: apiFunction('api', 'ApiFunction', 'api', 'settings, policies, previews, holds, releases, imports, approvals, vendors'),
      apiReads: apiFunction('apiReads', 'ApiReadsFunction', 'api-reads', 'settings, policies, orders, outcomes, forecasts, approvals read'),
      apiJobs: apiFunction('apiJobs', 'ApiJobsFunction', 'api-jobs', 'jobs, exports, previews and imports'),
      apiAudit: apiFunction('apiAudit', 'ApiAuditFunction', 'api-audit', 'the audit log'),
      apiVendors: apiFunction('apiVendors', 'ApiVendorsFunction', 'api-vendors', 'the vendor list and the policy CSV import'),
      apiPages: apiFunction('apiPages', 'ApiPagesFunction', 'api-pages', 'the console, the OpenAPI document, and 404 or 405 for unrouted requests', { withPages: true }),
      jobs: new HoldbackFunction(this, 'JobsFunction', {
        handlerFile: 'jobs',
        description: 'Holdback: steps of bulk changes (hold, unhold, a policy applied to open orders) and previews, from the job queue',
        failuresGoTo: "the job queue's redrive policy: a step that fails every receive ends its job failed and lands in the dead-letter queue, which alarms",
        // A step is a page of releases or a preview; one cut by the timeout is delivered again and carries on.
        timeout: Duration.seconds(JOB_QUEUE.functionTimeoutSeconds),
        ...reserved('jobs'),
      }),
      exportJobs: new HoldbackFunction(this, 'ExportJobsFunction', {
        handlerFile: 'export-jobs',
        description: 'Holdback: steps of exports (outcomes, the audit log) and audit verifications, from the export job queue',
        failuresGoTo: "the export job queue's redrive policy: a step that fails every receive ends its job failed and lands in the dead-letter queue, which alarms",
        // A step is a part of an export; one cut by the timeout is delivered again and carries on.
        timeout: Duration.seconds(EXPORT_JOB_QUEUE.functionTimeoutSeconds),
        ...reserved('exportJobs'),
      }),
      webhooks: new HoldbackFunction(this, 'WebhooksFunction', {
        tracing: 'passThrough',
        handlerFile: 'webhooks',
        description: "Holdback: the gateway's signed payment and settlement webhooks, on its function URL (nothing else)",
        timeout: Duration.seconds(29),
        failuresGoTo: 'its caller: the function URL invokes it synchronously and the gateway delivers a failed webhook again',
        ...reserved('webhooks'),
      }),
    };
    // The api's schedule changes (holds, manual release, replans) must end inside its 29 s: a wait for the scheduler
    // role to propagate gives up sooner there, and the sweep sends what it left when due (the release keeps its send time).
    this.functions.api.function.addEnvironment(RUNTIME_ENV.scheduleRoleWaitMs, String(API_ROLE_PROPAGATION_WAIT_MS));
    for (const [name, fn] of Object.entries(this.functions) as [FunctionRole, HoldbackFunction][]) {
      // The pages read no table and load no client (functions/handlers/api-pages.ts): nothing to bind.
      if (name === 'apiPages') continue;
      for (const table of Object.values(this.tables)) fn.bindTable(table, TABLE_ACTIONS[name][table.name] ?? []);
      // Every function writes or replans orders, events or rejections, so each stamps their expiry.
      fn.function.addEnvironment(RUNTIME_ENV.retentionDays, JSON.stringify(retention));
      fn.bindEventBus(bus, orderEventSource);
      // Each role may put exactly what its function emits (a payment webhook republishes order.paid).
      if (name in EMITTED_EVENTS) this.intake.grantEmit(fn.role, EMITTED_EVENTS[name as keyof typeof EMITTED_EVENTS]);
      if (name === 'webhooks') {
        // Open to the internet, so granted only what a webhook does: cancel a settled release's schedule, read the
        // secret (signature, the gateway's order and vendor APIs); it never plans a schedule nor enqueues a release.
        fn.bindReleaseScheduling(this.scheduling, 'cancelOnly').bindReleaseQueue(this.releaseQueue.queue, false).bindGateway(this.gateway, true);
        continue;
      }
      if (name === 'exportJobs') {
        // Reads outcomes and the audit log into files: it neither plans nor cancels a schedule, nor enqueues a release,
        // nor talks to the gateway (the variables only: composition-root.ts requires them).
        fn.bindReleaseScheduling(this.scheduling, 'none').bindReleaseQueue(this.releaseQueue.queue, false).bindGateway(this.gateway, false);
        continue;
      }
      // Every other function but the sweep creates and deletes release schedules: order events and the release
      // function plan them; the api and the jobs cancel and replan them (holds, manual release, bulk replans). The
      // sweep only enqueues what is overdue (functions/composition/sweep.ts loads no Scheduler client).
      // The API's reads, its jobs, exports and previews, its audit log and its vendors at large neither schedule nor
      // enqueue releases (their compositions load no Scheduler; the job steps' SQS sends job steps only); of them only
      // the vendor list asks the gateway (GET /vendors?checkGateway=true).
      const apiOther = name === 'apiReads' || name === 'apiJobs' || name === 'apiAudit' || name === 'apiVendors';
      fn.bindReleaseScheduling(this.scheduling, name === 'sweep' || apiOther ? 'none' : 'plan')
        .bindReleaseQueue(this.releaseQueue.queue, !apiOther)
        .bindGateway(this.gateway, name === 'release' || name === 'api' || name === 'apiVendors');
    }
    // Checkpoints of the audit log: signed by the sweep alone; the functions that verify or serve it read the public
    // key (not the webhooks and the jobs: they only append; of the API's functions only apiAudit serves the log).
    this.auditKey = new AuditKey(this, 'AuditKey', {
      writer: this.functions.sweep,
      readers: FUNCTION_ROLES.filter((role) => role === 'apiAudit' || (role !== 'webhooks' && role !== 'jobs' && !(API_FUNCTIONS as readonly string[]).includes(role))).map((role) => this.functions[role]),
      previousKeyArns: props.auditPreviousKeyArns,
    });
    // The write-once copy (S3 Object Lock, fed by the audit table's stream) and the table's append-only guard rails.
    this.auditArchive = new AuditArchive(this, 'AuditArchive', {
      table: this.tables.audit,
      appenders: FUNCTION_ROLES.filter((role) => role !== 'sweep').map((role) => this.functions[role]),
      writer: this.functions.sweep,
      readers: [this.functions.apiAudit, this.functions.exportJobs],
    });
    this.functions.release.function.addEnvironment(RUNTIME_ENV.releaseMaxConcurrency, String(releaseConcurrency));
    this.releaseQueue.attach(this.functions.release.function);
    // Jobs go on the queue of their kind (the SQS adapter routes each step by it; every starter is told both URLs):
    // the api's changes start walks and apiJobs previews (the job queue), apiJobs exports and apiAudit verifications
    // (the export job queue); each job function continues its own on its queue, and the jobs function also passes on
    // an export step enqueued before the split. So each role may send only to the queues of the kinds it starts or
    // carries on. The export-jobs function writes the export files and signs their links (its role reads the objects).
    const sendsTo = { api: ['jobs'], apiJobs: ['jobs', 'exports'], apiAudit: ['exports'], jobs: ['jobs', 'exports'], exportJobs: ['exports'] } as const;
    for (const [role, queues] of Object.entries(sendsTo) as [keyof typeof sendsTo, readonly ('jobs' | 'exports')[]][]) {
      this.functions[role].function.addEnvironment(RUNTIME_ENV.jobQueueUrl, this.jobQueue.queue.queueUrl);
      this.functions[role].function.addEnvironment(RUNTIME_ENV.exportJobQueueUrl, this.exportJobQueue.queue.queueUrl);
      for (const queue of queues) (queue === 'jobs' ? this.jobQueue : this.exportJobQueue).queue.grantSendMessages(this.functions[role].function);
    }
    this.jobQueue.attach(this.functions.jobs.function);
    this.exportJobQueue.attach(this.functions.exportJobs.function);
    this.functions.exportJobs.function.addEnvironment(RUNTIME_ENV.exportBucket, this.exportBucket.bucket.bucketName);
    this.exportBucket.grantWriter(this.functions.exportJobs.function);
    this.scheduling.allowSending(this.releaseQueue.queue);

    const orderRules: events.Rule[] = [];
    for (const rule of eventRules(orderEventSource)) {
      orderRules.push(new events.Rule(this, `Rule-${rule.name}`, {
        eventBus: bus,
        description: rule.description,
        eventPattern: eventPatternOf(rule.pattern),
        targets: [new targets.LambdaFunction(this.functions[rule.target].function, {
          // EventBridge's maxima: a throttled or unavailable function is retried for a day before the event is parked.
          retryAttempts: 185,
          maxEventAge: Duration.hours(24),
          deadLetterQueue: orderEventFailures.queue,
        })],
      }));
    }

    new SweepSchedule(this, 'Sweep', { sweep: this.functions[SWEEP_SCHEDULE.target].function });

    this.api = new HoldbackApi(this, 'Api', {
      handlers: { api: this.functions.api, apiReads: this.functions.apiReads, apiJobs: this.functions.apiJobs, apiAudit: this.functions.apiAudit, apiVendors: this.functions.apiVendors, apiPages: this.functions.apiPages, webhooks: this.functions.webhooks },
    });
    this.webhooks = new GatewayWebhooks(this, 'GatewayWebhooks', { handler: this.functions.webhooks });
    this.access = new AccessPolicies(this, 'Access', { httpApi: this.api.httpApi, bus, orderEventSource });
    this.observability = new Observability(this, 'Observability', {
      alarmEmail: props.alarmEmail,
      deadLetterQueues: {
        OrderEvents: orderEventFailures.queue,
        Releases: this.releaseQueue.deadLetters.queue,
        ReleaseSchedules: this.scheduling.deadLetters.queue,
        Sweep: sweepFailures.queue,
        Jobs: this.jobQueue.deadLetters.queue,
        ExportJobs: this.exportJobQueue.deadLetters.queue,
        AuditArchiveCopy: this.auditArchive.failures,
      },
    });

    this.trustAlarms = new TrustAlarms(this, 'TrustAlarms', {
      topic: this.observability.topic, orderRules, bus, releaseQueue: this.releaseQueue.queue, webhooks: this.functions.webhooks.function,
      tables: Object.fromEntries(Object.values(this.tables).map((t) => [t.name, t.table])),
    });
    new CfnOutput(this, 'AlarmDestination', {
      value: props.alarmEmail ?? 'NONE',
      description: props.alarmEmail
        ? 'Alarms are e-mailed here (confirm the subscription e-mail SNS sends)'
        : 'NO ALARM DESTINATION: alarms go to AlarmTopicArn with nobody subscribed; deploy with -c holdback:alarmEmail=ops@example.com or subscribe to the topic',
    });
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the Holdback API (SigV4, service execute-api)' });
    new CfnOutput(this, 'WebhookUrl', {
      value: this.webhooks.url,
      description: "Set as the gateway's notify/webhook URL (payment and vendor settlement webhooks); answers nothing else",
    });
    new CfnOutput(this, 'EventBusName', { value: bus.eventBusName, description: `Put ${orderEventSource} order events here` });
    new CfnOutput(this, 'EventProducers', {
      value: this.intake.producers.length > 0 ? this.intake.producers.join(', ') : 'NONE',
      description: this.intake.producers.length > 0
        ? `Only these may put ${orderEventSource} events on the bus`
        : `Nothing outside the stack may put ${orderEventSource} events: name the producers with -c holdback:eventProducers='["<role ARN or account id>"]'`,
    });
    new CfnOutput(this, 'GatewaySecretArn', { value: this.gateway.secret.secretArn, description: 'JSON {"clientId", "clientSecret"}; read at run time (no deploy after a rotation)' });
    new CfnOutput(this, 'Releases', {
      value: 'RUN WHEN THE GATEWAY SECRET HOLDS THE CREDENTIALS',
      description: this.gateway.created
        ? 'Paused until {"clientId","clientSecret"} are in GatewaySecretArn; they run within minutes of it, with no deploy (alarm ReleasesPaused while sends are due)'
        : 'Run while the named secret holds the credentials (alarm ReleasesPaused while sends are due and it does not)',
    });
    new CfnOutput(this, 'ReleaseQueueUrl', { value: this.releaseQueue.queue.queueUrl });
    new CfnOutput(this, 'ExportBucketName', { value: this.exportBucket.bucket.bucketName, description: 'Export files (POST /exports), served by pre-signed links; each expires after its stated days' });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.observability.topic.topicArn, description: 'Subscribe here (or deploy with -c holdback:alarmEmail=...)' });
    new CfnOutput(this, 'DashboardName', { value: this.observability.dashboard.dashboardName });
    new CfnOutput(this, 'AuditArchiveBucketName', { value: this.auditArchive.bucket.bucketName, description: 'The write-once copy of the audit log (Object Lock, compliance mode): one object per stream batch, one export line per record; see README "Audit log"' });
    new CfnOutput(this, 'AuditKeyArn', { value: this.auditKey.key.keyArn, description: 'Signs audit checkpoints (the sweep only); GET /audit/public-keys lists its public key (and those of keys it replaced)' });
    new CfnOutput(this, 'FinancePolicyArn', { value: this.access.finance.managedPolicyArn, description: 'Attach to finance users or roles' });
    new CfnOutput(this, 'AuditorPolicyArn', { value: this.access.auditor.managedPolicyArn, description: 'Attach to auditors' });
    new CfnOutput(this, 'CheckerPolicyArn', { value: this.access.checker.managedPolicyArn, description: 'Attach to checkers: approve or reject pending changes (four eyes)' });
    new CfnOutput(this, 'BackendPolicyArn', { value: this.access.backend.managedPolicyArn, description: "Attach to the marketplace backend's role" });
    for (const [name, queue] of [['OrderEvents', orderEventFailures], ['Releases', this.releaseQueue.deadLetters], ['ReleaseSchedules', this.scheduling.deadLetters], ['Sweep', sweepFailures], ['Jobs', this.jobQueue.deadLetters], ['ExportJobs', this.exportJobQueue.deadLetters]] as const) {
      new CfnOutput(this, `${name}DeadLetterQueueUrl`, { value: queue.queue.queueUrl });
    }
    for (const table of Object.values(this.tables)) {
      new CfnOutput(this, `${TABLE_IDS[table.name]}Name`, { value: table.table.tableName });
    }
  }
}

/**
 * routing.ts's pattern language is a subset of EventBridge's with the same JSON (`{"prefix": ...}` inside the list),
 * so the lists pass through unchanged; CDK types them as string lists only because it builds matchers as tokens.
 */
function eventPatternOf(pattern: EventPattern): events.EventPattern {
  const values = (list: EventPattern['source']): string[] => list.map((v) => (typeof v === 'string' ? v : { prefix: v.prefix })) as string[];
  return {
    source: values(pattern.source),
    ...(pattern['detail-type'] ? { detailType: values(pattern['detail-type']) } : {}),
  };
}
