/**
 * Alarms on what the stack's dead-letter alarms miss: order events EventBridge could not deliver (it retries for a
 * day before the dead-letter queue), releases paused while sends are due, a release queue backing up, webhook
 * throttles and DynamoDB throttles. All go to the stack's one alarm topic.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC, METRICS_NAMESPACE } from '../functions/definitions/metric-names';

/** A release command older than this in the release queue alarms (the sweep re-drives every minute; sends take seconds). */
export const RELEASE_QUEUE_AGE_ALARM = Duration.minutes(15);

export interface TrustAlarmsProps {
  readonly topic: sns.ITopic;
  readonly orderRules: readonly events.Rule[];
  /** The bus the rules are on (FailedInvocations of a custom bus's rule carries both dimensions). */
  readonly bus: events.IEventBus;
  readonly releaseQueue: sqs.IQueue;
  readonly webhooks: lambda.IFunction;
  /** By name, e.g. orders. */
  readonly tables: Record<string, dynamodb.ITable>;
}

export class TrustAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: TrustAlarmsProps) {
    super(scope, id);
    const notify = new actions.SnsAction(props.topic);
    const alarm = (alarmId: string, metric: cloudwatch.IMetric, threshold: number, description: string, evaluationPeriods = 1): void => {
      const created = new cloudwatch.Alarm(this, alarmId, {
        metric, threshold, evaluationPeriods, alarmDescription: description,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(notify);
      this.alarms.push(created);
    };

    alarm('ReleasesPaused', new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName: METRIC.releasesPaused.name,
      dimensionsMap: { service: Stack.of(this).stackName },
      statistic: 'Sum',
      period: Duration.minutes(5),
    }), 1, 'Releases are due but paused: the gateway secret (output GatewaySecretArn) does not hold {"clientId","clientSecret"}. Put them there (aws secretsmanager put-secret-value); releases resume within minutes, no deploy.');

    for (const rule of props.orderRules) {
      // FailedInvocations: EventBridge could not invoke the function (throttled, missing permission); it retries up to a day.
      alarm(`OrderEventFailures${rule.node.id.replace(/[^A-Za-z0-9]/g, '')}`, new cloudwatch.Metric({
        namespace: 'AWS/Events',
        metricName: 'FailedInvocations',
        dimensionsMap: { EventBusName: props.bus.eventBusName, RuleName: rule.ruleName },
        statistic: 'Sum',
        period: Duration.minutes(5),
      }), 1, `Order events matching ${rule.node.id} could not be delivered to their function; EventBridge retries for 24 hours, then parks them in the order-events dead-letter queue.`);
    }

    alarm('ReleaseQueueAge', props.releaseQueue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
      RELEASE_QUEUE_AGE_ALARM.toSeconds(),
      `A release command has waited ${RELEASE_QUEUE_AGE_ALARM.toMinutes()} minutes in the release queue: the release function is failing, throttled, or its concurrency too low.`);

    alarm('WebhookThrottles', props.webhooks.metricThrottles({ period: Duration.minutes(5), statistic: 'Sum' }), 1,
      "The webhooks function was throttled (its reserved concurrency is used up): the gateway delivers a refused webhook again, but a flood is arriving. Check the WebhooksFunction's logs and reserved concurrency.");

    for (const [name, table] of Object.entries(props.tables)) {
      const tableId = `${name[0].toUpperCase()}${name.slice(1)}Table`;
      alarm(`${tableId}Throttles`, new cloudwatch.MathExpression({
        expression: 'reads + writes',
        usingMetrics: {
          reads: table.metric('ReadThrottleEvents', { statistic: 'Sum', period: Duration.minutes(5) }),
          writes: table.metric('WriteThrottleEvents', { statistic: 'Sum', period: Duration.minutes(5) }),
        },
        period: Duration.minutes(5),
        label: `${tableId} throttled requests`,
      }), 1, `DynamoDB throttled reads or writes on ${tableId} (on-demand tables throttle above twice their previous peak): calls are retried by the SDK, but a burst is being refused.`);
    }
  }
}
