/** Holdback's CloudWatch metrics through Powertools Metrics (embedded metric format: log lines, no API call per metric). */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { ReleaseMetrics } from '../../application/ports';
import { METRIC, METRICS_NAMESPACE, type MetricKey } from '../../definitions/metric-names';

const UNITS: Record<(typeof METRIC)[MetricKey]['unit'], (typeof MetricUnit)[keyof typeof MetricUnit]> = { Count: MetricUnit.Count, Seconds: MetricUnit.Seconds };

/** Namespace and service dimension from the stack's POWERTOOLS_* variables; the handlers publish after each invocation. */
export class PowertoolsReleaseMetrics implements ReleaseMetrics {
  readonly metrics: Metrics;

  constructor(metrics = new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? METRICS_NAMESPACE })) {
    this.metrics = metrics;
  }

  record(key: MetricKey, value = 1): void {
    this.metrics.addMetric(METRIC[key].name, UNITS[METRIC[key].unit], value);
  }
}
