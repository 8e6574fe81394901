/** Holdback on AWS: tables, event rules, release scheduling, the sweep, the API and the four functions behind them. */
import { ArnFormat, CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import type { TableName } from '../functions/adapters/dynamodb/tables';
import {
  DEFAULT_EVENT_BUS, DEFAULT_EVENT_SOURCE, SWEEP_SCHEDULE, eventRules, type EventPattern, type HandlerName,
} from '../functions/routing';
import { DeadLetterQueue } from './dead-letter-queue';
import { GatewayCredentials } from './gateway-credentials';
import { HoldbackApi } from './holdback-api';
import { HoldbackFunction, type TableAccess } from './holdback-function';
import { HoldbackTable } from './holdback-table';
import { ReleaseScheduling, type ScheduleAccess } from './release-scheduling';
import { SweepSchedule } from './sweep-schedule';

export interface HoldbackStackProps extends StackProps {
  /** `default` uses the account's default bus; any other name creates that bus. @default "default" */
  readonly eventBusName?: string;
  /** The marketplace's event source that the order rule matches. @default "marketplace.orders" */
  readonly orderEventSource?: string;
  /** Default of the `GatewayBaseUrl` stack parameter. */
  readonly gatewayBaseUrl?: string;
  /** An existing Secrets Manager secret with the gateway credentials; otherwise the stack creates one to fill in. */
  readonly gatewaySecretName?: string;
  /** The gateway secret's version to deploy (see GatewayCredentials). */
  readonly gatewaySecretVersionId?: string;
  /**
   * Reserved concurrency of the release function, which caps its parallel gateway calls; `null` reserves none.
   * @default 10
   */
  readonly releaseConcurrency?: number | null;
}

/** Default cap on concurrent release sends; each running release holds at most one gateway call at a time. */
export const DEFAULT_RELEASE_CONCURRENCY = 10;

/** The stack's functions: the handlers rules and schedules target, and the API's. */
export type FunctionRole = HandlerName | 'api';

/** Which tables each function's use cases touch; every function still gets every table's name (see bindTable). */
const TABLE_ACCESS: Record<FunctionRole, Record<TableName, TableAccess>> = {
  // handle-order-event: orders, events, releases; policies and settings; rejected events.
  orderEvents: { orders: 'readWrite', config: 'read', rejected: 'readWrite' },
  // release-vendor: the release record and the settings.
  release: { orders: 'readWrite', config: 'read', rejected: 'nameOnly' },
  // sweep: the due index, then release-vendor.
  sweep: { orders: 'readWrite', config: 'read', rejected: 'nameOnly' },
  // settings and policy versions, order views, the webhook's release updates, the rejected-event list.
  api: { orders: 'readWrite', config: 'readWrite', rejected: 'read' },
};

/** Release schedules: handle-order-event, release-vendor and the sweep create them; the webhook only cancels one. */
const SCHEDULE_ACCESS: Record<FunctionRole, ScheduleAccess> = {
  orderEvents: 'createAndDelete', release: 'createAndDelete', sweep: 'createAndDelete', api: 'deleteOnly',
};

const TABLE_IDS: Record<TableName, string> = { orders: 'OrdersTable', config: 'ConfigTable', rejected: 'RejectedEventsTable' };

export class HoldbackStack extends Stack {
  readonly tables: Record<TableName, HoldbackTable>;
  readonly functions: Record<FunctionRole, HoldbackFunction>;
  readonly api: HoldbackApi;

  constructor(scope: Construct, id: string, props: HoldbackStackProps = {}) {
    super(scope, id, props);
    const orderEventSource = props.orderEventSource ?? DEFAULT_EVENT_SOURCE;
    const busName = props.eventBusName ?? DEFAULT_EVENT_BUS;
    const bus = busName === DEFAULT_EVENT_BUS
      ? events.EventBus.fromEventBusName(this, 'EventBus', DEFAULT_EVENT_BUS)
      : new events.EventBus(this, 'EventBus', { eventBusName: busName });

    this.tables = {
      orders: new HoldbackTable(this, TABLE_IDS.orders, { name: 'orders' }),
      config: new HoldbackTable(this, TABLE_IDS.config, { name: 'config' }),
      rejected: new HoldbackTable(this, TABLE_IDS.rejected, { name: 'rejected' }),
    };
    const gateway = new GatewayCredentials(this, 'GatewayCredentials', {
      baseUrl: props.gatewayBaseUrl, secretName: props.gatewaySecretName, secretVersionId: props.gatewaySecretVersionId,
    });
    const scheduling = new ReleaseScheduling(this, 'ReleaseScheduling');
    const orderEventFailures = new DeadLetterQueue(this, 'OrderEventsDeadLetters', {
      holds: 'order events the rule could not deliver, or the order-events function failed on after its retries',
    });
    const releaseFailures = new DeadLetterQueue(this, 'ReleaseDeadLetters', {
      holds: 'release commands the release function failed on after its retries; the sweep re-drives them too',
    });

    // The release function must know its own ARN for the retry schedules it creates. A fixed name lets the stack
    // build that ARN without the function referring to itself, which CloudFormation rejects as a circular dependency.
    const releaseFunctionName = `${this.stackName}-release`.slice(0, 64);
    const releaseFunctionArn = this.formatArn({
      service: 'lambda', resource: 'function', resourceName: releaseFunctionName, arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    const releaseConcurrency = props.releaseConcurrency === undefined ? DEFAULT_RELEASE_CONCURRENCY : props.releaseConcurrency;

    this.functions = {
      orderEvents: new HoldbackFunction(this, 'OrderEventsFunction', {
        handlerFile: 'order-events',
        description: 'Holdback: one marketplace order event to decisions, schedules and due releases',
        timeout: Duration.seconds(60),
        onFailure: orderEventFailures.queue,
      }),
      release: new HoldbackFunction(this, 'ReleaseFunction', {
        handlerFile: 'release',
        description: "Holdback: one release command to the gateway's settlement-eligibility PUT",
        functionName: releaseFunctionName,
        // Gateway client: up to maxTries calls with waits of at most 20 s between them.
        timeout: Duration.seconds(60),
        ...(releaseConcurrency === null ? {} : { reservedConcurrentExecutions: releaseConcurrency }),
        onFailure: releaseFailures.queue,
      }),
      sweep: new HoldbackFunction(this, 'SweepFunction', {
        handlerFile: 'sweep',
        description: 'Holdback: every minute, re-drives overdue and retryable releases',
        // Under the one-minute period, so that sweeps rarely overlap.
        timeout: Duration.seconds(55),
        // The next sweep, a minute later, is the retry.
        asyncRetryAttempts: 0,
      }),
      api: new HoldbackFunction(this, 'ApiFunction', {
        handlerFile: 'api',
        description: 'Holdback API and the gateway webhook',
        // API Gateway answers 503 after 30 s whatever the function does.
        timeout: Duration.seconds(29),
      }),
    };
    for (const [name, fn] of Object.entries(this.functions) as [FunctionRole, HoldbackFunction][]) {
      for (const table of Object.values(this.tables)) fn.bindTable(table, TABLE_ACCESS[name][table.name]);
      fn.bindEventBus(bus, orderEventSource)
        .bindReleaseScheduling(scheduling, releaseFunctionArn, SCHEDULE_ACCESS[name])
        .bindGatewayCredentials(gateway);
    }
    scheduling.allowInvoking(this.functions.release.function);

    for (const rule of eventRules(orderEventSource)) {
      new events.Rule(this, `Rule-${rule.name}`, {
        eventBus: bus,
        description: rule.description,
        eventPattern: eventPatternOf(rule.pattern),
        targets: [new targets.LambdaFunction(this.functions[rule.target].function, {
          // EventBridge's maxima: a throttled or unavailable function is retried for a day before the event is parked.
          retryAttempts: 185,
          maxEventAge: Duration.hours(24),
          deadLetterQueue: orderEventFailures.queue,
        })],
      });
    }

    new SweepSchedule(this, 'Sweep', { sweep: this.functions[SWEEP_SCHEDULE.target].function });

    this.api = new HoldbackApi(this, 'Api', { handler: this.functions.api });

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the Holdback API (SigV4, service execute-api)' });
    new CfnOutput(this, 'EventBusName', { value: bus.eventBusName, description: `Put ${orderEventSource} order events here` });
    new CfnOutput(this, 'GatewaySecretArn', { value: gateway.secret.secretArn, description: 'Fill in {"clientId", "clientSecret"}, then deploy again' });
    new CfnOutput(this, 'OrderEventsDeadLetterQueueUrl', { value: orderEventFailures.queue.queueUrl });
    new CfnOutput(this, 'ReleaseDeadLetterQueueUrl', { value: releaseFailures.queue.queueUrl });
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
