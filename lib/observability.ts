/** Alarms (every dead-letter queue, failures, drift, lateness) to one SNS topic, and a dashboard of the release flow. */
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC, METRICS_NAMESPACE, type MetricKey } from '../functions/definitions/metric-names';

export interface ObservabilityProps {
  /** Each dead-letter queue, by what it holds; one alarm each. */
  readonly deadLetterQueues: Record<string, sqs.IQueue>;
  /** An e-mail address subscribed to the alarm topic (context `holdback:alarmEmail`). */
  readonly alarmEmail?: string;
  /** A send later than this against its planned time alarms. @default 5 minutes */
  readonly latenessThreshold?: Duration;
}

/** The metric names here are the runtime's (functions/definitions/metric-names.ts); the service dimension is the stack. */
export class Observability extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'AlarmTopic', {
      // SNS allows 100 characters, a stack name 128.
      displayName: `Holdback alarms (${Stack.of(this).stackName.slice(0, 100 - 'Holdback alarms ()'.length)})`,
      enforceSSL: true,
    });
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    const notify = new actions.SnsAction(this.topic);

    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      this.alarm(`${name}DeadLetters`, queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }), {
        description: `Messages in the ${name} dead-letter queue: deliveries that failed every retry. Inspect them and re-drive (README, runbook).`,
        threshold: 1,
      }, notify);
    }
    this.alarm('ReleaseFailures', this.metric('failed', 'Sum'), {
      description: 'A release ended FAILED: the gateway refused it for good or its window closed. See GET /outcomes?state=FAILED.',
      threshold: 1,
    }, notify);
    this.alarm('Drift', this.metric('drift', 'Sum'), {
      description: "Drift: the gateway refused a date inside Holdback's window, or a settlement did not match its prediction. Compare Defer by Days in the gateway dashboard with GET /settings.",
      threshold: 1,
    }, notify);
    const lateness = props.latenessThreshold ?? Duration.minutes(5);
    this.alarm('SendLateness', this.metric('sendLateness', 'Maximum'), {
      description: `A release left more than ${lateness.toMinutes()} minutes after its planned time: the queue is backed up, releases are paused, or the gateway is failing.`,
      threshold: lateness.toSeconds(),
    }, notify);
    this.alarm('GatewayRateLimited', this.metric('rateLimited', 'Sum'), {
      description: "The gateway answered 429: Holdback's send rate is above the gateway's limit (check HOLDBACK_GATEWAY_RATE_PER_MINUTE and the release queue's maximum concurrency).",
      threshold: 1,
    }, notify);

    this.alarm('AuditHeadRefused', this.metric('auditHeadRefused', 'Sum'), {
      description: 'The audit checkpoint writer refused to sign a stream: its records no longer extend the head it signed before (someone changed the audit table). GET /audit/verify names the stream.',
      threshold: 1,
    }, notify);

    // Counted once an hour by the sweep: an hour's period, so that the alarm reads one count, not eleven empty periods.
    this.alarm('HeldSettlingSoon', new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE, metricName: METRIC.heldSettlingSoon.name, dimensionsMap: { service: Stack.of(this).stackName }, statistic: 'Maximum', period: Duration.hours(1),
    }), {
      description: 'Held money the gateway will settle anyway within holdWarning: a hold only stops early releases, at max eligibility the gateway settles. See GET /alerts/held-settling (contract 6.4).',
      threshold: 1,
    }, notify);

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-releases`.slice(0, 255),
      widgets: [
        [
          new cloudwatch.GraphWidget({ title: 'Releases (count per 5 min)', left: (['applied', 'retried', 'failed', 'sweepRedriven'] as MetricKey[]).map((k) => this.metric(k, 'Sum')) }),
          new cloudwatch.GraphWidget({ title: 'Send lateness (seconds)', left: [this.metric('sendLateness', 'Maximum'), this.metric('sendLateness', 'p90')] }),
        ],
        [
          new cloudwatch.GraphWidget({ title: 'Gateway 429 and drift (count)', left: [this.metric('rateLimited', 'Sum'), this.metric('drift', 'Sum')] }),
          new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms }),
        ],
      ],
    });
  }

  private metric(key: MetricKey, statistic: string): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName: METRIC[key].name,
      dimensionsMap: { service: Stack.of(this).stackName },
      statistic,
      period: Duration.minutes(5),
    });
  }

  private alarm(id: string, metric: cloudwatch.IMetric, opts: { description: string; threshold: number }, notify: actions.SnsAction): void {
    const alarm = new cloudwatch.Alarm(this, id, {
      metric,
      alarmDescription: opts.description,
      threshold: opts.threshold,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(notify);
    this.alarms.push(alarm);
  }
}
