/** A Holdback Lambda function: NodejsFunction with the project's defaults and helpers that bind a resource and its grant together. */
import * as path from 'node:path';
import { type CfnElement, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RUNTIME_ENV } from '../functions/composition-root';
import { METRICS_NAMESPACE } from '../functions/definitions/metric-names';
import type { GatewayCredentials } from './gateway-credentials';
import type { HoldbackTable } from './holdback-table';
import type { ReleaseScheduling } from './release-scheduling';
import { BUILT_CONSOLE_DIR } from '../functions/definitions/console-build';
import { BUILT_OPENAPI_FILE } from '../functions/definitions/openapi-build';

/** The entry points in functions/handlers/, each exporting `handler`. */
export type HandlerFile = 'order-events' | 'release' | 'sweep' | 'api' | 'api-reads' | 'api-jobs' | 'api-audit' | 'api-vendors' | 'api-pages' | 'webhooks' | 'audit-archive' | 'jobs' | 'export-jobs';

/** The project root, where package-lock.json and functions/ live. */
const PROJECT_ROOT = path.join(__dirname, '..');

/** What the bundles load instead of the SDK's default credential chain, from the project root (esbuild's working directory). */
export const LAMBDA_CREDENTIALS = 'functions/composition/lambda-credentials.ts';

/** What the bundles load instead of the SDK's event-stream codec (the file says why). */
export const NO_EVENT_STREAMS = 'functions/composition/no-event-streams.ts';

/** What the bundles load instead of mnemonist's LRU cache, DynamoDB's endpoint-discovery cache (the file says why). */
export const ENDPOINT_CACHE_MAP = 'functions/composition/endpoint-cache-map.ts';

/** What the bundles without S3 load instead of the SDK's checksum module (the file says why). */
export const NODE_CHECKSUMS = 'functions/composition/node-checksums.ts';

/**
 * The functions whose compositions build S3's client, which takes CRC32 and stream hashers from the SDK's checksum
 * module and pre-signs links with the multi-region signer: they would keep both. None does now: the functions that
 * call S3 send its requests themselves (functions/adapters/s3/s3-requests.ts, hashed by Node's crypto). Every function's
 * bundle takes its SHA-256 and MD5 from node-checksums.ts (a function that builds S3's client again belongs here: without
 * it its bundle fails to build, esbuild naming the export). No function builds an EventBridge client either (its calls
 * are signed requests, functions/adapters/eventbridge/eventbridge-requests.ts), so none carries the multi-region signer,
 * which test/e2e/deployed-bundles.test.ts checks.
 */
const S3_HANDLERS: readonly HandlerFile[] = [];

/** The context key that writes esbuild's metafile (`index.meta.json`) beside each bundle. */
export const BUNDLE_METAFILE_CONTEXT = 'holdback:bundleMetafile';

export interface HoldbackFunctionProps {
  readonly handlerFile: HandlerFile;
  readonly description: string;
  readonly timeout: Duration;
  /** @default 512 (MB; CPU grows with memory, and cold starts load the AWS SDK) */
  readonly memorySize?: number;
  /** A fixed physical name (readable in the console and the logs); CloudFormation names the others. */
  readonly functionName?: string;
  readonly reservedConcurrentExecutions?: number;
  readonly environment?: Record<string, string>;
  /** Asynchronous invocations (EventBridge, Scheduler) that fail every retry go here. */
  readonly onFailure?: sqs.IQueue;
  /**
   * Why the function has no dead-letter queue of its own (Serverless-LambdaDLQ): an on-failure destination, a queue's
   * redrive policy, or synchronous callers only.
   */
  readonly failuresGoTo?: string;
  /**
   * X-Ray: `active` samples the function's own invocations (1 a second and 5% of the rest, $5 per million traces);
   * `passThrough` traces only what arrives already sampled. @default 'active'
   */
  readonly tracing?: 'active' | 'passThrough';
  /** Lambda's own retries of a failed asynchronous invocation. @default 2 (Lambda's default) */
  readonly asyncRetryAttempts?: number;
  /**
   * Builds the web console and the OpenAPI document into the function's code, next to its index.js (the pages function
   * serves GET /console and GET /openapi.json without carrying a bundler or every route's code).
   */
  readonly withPages?: boolean;
}

/** The DynamoDB actions a function's code uses on a table; empty: none (the function still gets the table's name). */
export type TableActions = readonly `dynamodb:${'GetItem' | 'PutItem' | 'Query' | 'BatchGetItem' | 'DeleteItem' | 'UpdateItem' | 'Scan'}`[];

/**
 * After bundling, the console and the OpenAPI document (bin/build-openapi.ts, from every route's schema) are built at
 * deploy time into the asset: Lambda has no bundler to build the console at run time, and the document's routes are
 * other functions' code.
 */
const pagesBuild: nodejs.ICommandHooks = {
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (inputDir: string, outputDir: string) => [
    [process.execPath, path.join(inputDir, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(inputDir, 'bin', 'build-console.ts'), path.join(outputDir, BUILT_CONSOLE_DIR)],
    [process.execPath, path.join(inputDir, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(inputDir, 'bin', 'build-openapi.ts'), path.join(outputDir, BUILT_OPENAPI_FILE)],
  ].map((command) => command.map((part) => JSON.stringify(part)).join(' ')),
};

/**
 * Defaults: Node.js 24 on arm64, bundled by the local esbuild (never Docker), minified with source maps. The role is
 * the function's own, without the AWS managed basic-execution policy (whose log permissions are on `*`): it may write
 * to its own log group only.
 */
export class HoldbackFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: HoldbackFunctionProps) {
    super(scope, id);
    this.role = new iam.Role(this, 'Role', {
      description: `Execution role of the Holdback ${props.handlerFile} function`,
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.logGroup.grantWrite(this.role);
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: "Active tracing: X-Ray's PutTraceSegments and PutTelemetryRecords support no resource-level permissions; nothing else is granted on *.",
    });
    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: path.join(PROJECT_ROOT, 'functions', 'handlers', `${props.handlerFile}.ts`),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      description: props.description,
      functionName: props.functionName,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      tracing: props.tracing === 'passThrough' ? lambda.Tracing.PASS_THROUGH : lambda.Tracing.ACTIVE,
      // JSON logs, and Lambda's own START/END/REPORT lines only at WARN: about 370 bytes an invocation that
      // CloudWatch would ingest and keep 400 days (the bill); duration and memory stay in Lambda's metrics.
      loggingFormat: lambda.LoggingFormat.JSON,
      systemLogLevelV2: lambda.SystemLogLevel.WARN,
      applicationLogLevelV2: lambda.ApplicationLogLevel.INFO,
      environment: {
        // No NODE_OPTIONS=--enable-source-maps: Node would parse the bundle's source map (about 0.8 MB) at every cold
        // start, about 10 ms of CPU (a sixth of one; `npx tsx bench/run.ts bundles`). The map still ships in the asset:
        // set the variable on a function while reading its stack traces, and they point into functions/ again.
        // Powertools: every log line and metric names the stack, so two stacks in one account stay apart.
        POWERTOOLS_SERVICE_NAME: Stack.of(this).stackName,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        ...props.environment,
      },
      ...(props.onFailure ? { onFailure: new SqsDestination(props.onFailure) } : {}),
      ...(props.asyncRetryAttempts !== undefined ? { retryAttempts: props.asyncRetryAttempts } : {}),
      bundling: {
        forceDockerBundling: false,
        minify: true,
        // Shipped for reading stack traces (see NODE_OPTIONS above), not loaded by default.
        sourceMap: true,
        // Line and column mappings only: stack traces still point into functions/, and the deployed zip does not
        // carry every source file a second time (a quarter of its size).
        sourcesContent: false,
        // The pinned SDK is bundled instead of the runtime's copy, so AWS runs the versions the tests ran.
        externalModules: [],
        // ES modules first: esbuild can then drop what a handler never calls (a fifth smaller bundle, measured by the bench).
        mainFields: ['module', 'main'],
        ...(props.withPages ? { commandHooks: pagesBuild } : {}),
        // Each handler builds only its own composition (functions/composition/<function>.ts) and so carries only its
        // SDK clients; and the SDK's default credential chain becomes its environment provider alone, all Lambda uses
        // (functions/composition/lambda-credentials.ts says why): together under half of the shared-root bundle.
        // DynamoDB's endpoint-discovery cache becomes a bounded Map (functions/composition/endpoint-cache-map.ts); every
        // function drops the SDK's event-stream codec, which no operation Holdback calls uses, S3's included
        // (functions/composition/no-event-streams.ts); those without S3 take SHA-256 and MD5 from Node's crypto without the
        // SDK's JavaScript fallbacks (functions/composition/node-checksums.ts); and no legal comments are collected at the
        // end of a bundle.
        esbuildArgs: {
          '--alias': [
            `@aws-sdk/credential-provider-node=./${LAMBDA_CREDENTIALS}`,
            `mnemonist/lru-cache=./${ENDPOINT_CACHE_MAP}`,
            `@smithy/core/event-streams=./${NO_EVENT_STREAMS}`,
            ...(S3_HANDLERS.includes(props.handlerFile) ? [] : [`@smithy/core/checksum=./${NODE_CHECKSUMS}`]),
          ],
          '--legal-comments': 'none',
          // The SDK's HTTP handler and the invoke store reach `node:http` and `node:async_hooks` by `import()`: in a
          // CommonJS bundle the first one starts Node's ES module loader during the first invocation (about 8 ms of CPU
          // compiling its internals, measured by the bench's cold start). As `require` they load at once, as the rest.
          '--supported:dynamic-import': 'false',
        },
        // `cdk synth -c holdback:bundleMetafile=true` (the bundle tests): esbuild's metafile beside each bundle, the
        // inputs it took, so a test can prove what a function carries. Off by default: Lambda has no use for it.
        metafile: this.node.tryGetContext(BUNDLE_METAFILE_CONTEXT) === true || this.node.tryGetContext(BUNDLE_METAFILE_CONTEXT) === 'true',
      },
    });
    const failuresGoTo = props.onFailure ? 'its on-failure destination (an SQS queue with an alarm), which supersedes a dead-letter queue' : props.failuresGoTo;
    if (failuresGoTo) Validations.of(this.function).acknowledge({ id: 'Serverless-LambdaDLQ', reason: `Failed invocations go to ${failuresGoTo}.` });
    if (props.tracing === 'passThrough') {
      Validations.of(this.function).acknowledge({
        id: 'Serverless-LambdaTracing',
        reason: 'Per-order volume: traced only when the caller sampled, since active sampling costs about $14 a million orders (README "The bill"); failures show in logs, metrics and alarms.',
      });
    }
  }

  /**
   * Sets the variable that names `table` and grants exactly `actions` on it (and its indexes), nothing wider: no Scan,
   * no batch writes, no streams the code never uses.
   */
  bindTable(table: HoldbackTable, actions: TableActions): this {
    this.function.addEnvironment(table.environmentVariable, table.table.tableName);
    // composition/compose.ts builds every repository at cold start, so each function needs every table's name even
    // where its use cases never touch the table: no actions, no grant.
    if (actions.length === 0) return this;
    // Only a Query (or Scan) reads an index: without one, the grant names the table alone, not `<table>/index/*`.
    if (!actions.some((a) => a === 'dynamodb:Query' || a === 'dynamodb:Scan')) {
      iam.Grant.addToPrincipal({ grantee: this.function, actions: [...actions], resourceArns: [table.table.tableArn] });
      return this;
    }
    table.table.grant(this.function, ...actions);
    if (table.definition.globalSecondaryIndexes.length > 0 && actions.includes('dynamodb:Query')) {
      const tableId = Stack.of(this).getLogicalId(table.table.node.defaultChild as CfnElement);
      Validations.of(this.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${tableId}.Arn>/index/*]`,
        reason: "Queries use the table's own indexes (named in tables.ts); the grant covers this one table's indexes.",
      });
    }
    return this;
  }

  /** Sets the bus the function publishes to; what it may put there is granted by the event intake (event-intake.ts). */
  bindEventBus(bus: events.IEventBus, orderEventSource: string): this {
    this.function.addEnvironment(RUNTIME_ENV.eventBus, bus.eventBusName);
    this.function.addEnvironment(RUNTIME_ENV.eventSource, orderEventSource);
    return this;
  }

  /**
   * Sets what a release schedule needs (group, execution role; composition-root.ts requires them all, even where the
   * function only cancels) and grants, in that group alone, `plan`: creating, updating and deleting schedules and
   * passing them that role; `cancelOnly`: deleting them, nothing else (a settlement webhook cancels the settled
   * release's schedule and never plans one); `none`: nothing (the sweep enqueues what is overdue and loads no
   * Scheduler client, functions/composition/sweep.ts).
   */
  bindReleaseScheduling(scheduling: ReleaseScheduling, may: 'plan' | 'cancelOnly' | 'none'): this {
    this.function.addEnvironment(RUNTIME_ENV.scheduleGroup, scheduling.group.scheduleGroupName);
    this.function.addEnvironment(RUNTIME_ENV.schedulerRoleArn, scheduling.role.roleArn);
    // Every CreateSchedule names it, so a command Scheduler could not deliver is parked (and alarms), not dropped.
    this.function.addEnvironment(RUNTIME_ENV.scheduleDeadLetterArn, scheduling.deadLetters.queue.queueArn);
    if (may === 'none') return this;
    if (may === 'plan') scheduling.grantScheduling(this.function);
    else scheduling.grantCancelling(this.function);
    Validations.of(this.role).acknowledge({
      id: scheduling.schedulesWildcardFinding,
      reason: `Release schedules are created at run time, named per order and vendor; this role may ${may === 'plan' ? 'create and delete them' : 'only delete them'}, and only in the release schedule group.`,
    });
    return this;
  }

  /**
   * Sets the gateway's base URL and the secret's ARN (never a credential; see GatewayCredentials), and lets the
   * function read the secret when it talks to the gateway (`readsSecret`: the release function, the webhooks for the
   * signature and the order lookup, and the api, which serves the same route behind IAM and asks the vendor API).
   */
  bindGateway(credentials: GatewayCredentials, readsSecret: boolean): this {
    for (const [name, value] of Object.entries(credentials.environment())) this.function.addEnvironment(name, value);
    if (readsSecret) credentials.grantRead(this.function);
    return this;
  }

  /**
   * The release queue: every function may enqueue due releases (the release function too, for an immediate retry);
   * the release function also consumes it, through its event source, which grants the receive side itself. `sends`
   * false: the variables only (composition-root.ts requires them), for the webhooks, which never enqueue.
   */
  bindReleaseQueue(queue: sqs.IQueue, sends = true): this {
    this.function.addEnvironment(RUNTIME_ENV.releaseQueueUrl, queue.queueUrl);
    // Release schedules target the queue itself (their Input is the command).
    this.function.addEnvironment(RUNTIME_ENV.releaseQueueArn, queue.queueArn);
    if (sends) queue.grantSendMessages(this.function);
    return this;
  }
}
