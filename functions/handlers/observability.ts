/**
 * Observability of the AWS handlers: the Lambda context (request id) on every log line, and the release flow's metrics
 * (applied, failed, retried, answers 429, sweep re-drives, drift, lateness) published once per invocation.
 */
import type middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { PowertoolsReleaseMetrics } from '../adapters/metrics/powertools-metrics';
import { lambdaPowertoolsLogger } from '../adapters/logging/powertools-logger';
import type { Dependencies, EventPublisher, ReleaseMetrics } from '../application/ports';
import { lazyDependencies, type DependencySource } from './dependencies';
import type { ReleaseVendorResult } from '../application/releases/release-vendor';
import type { SweepResult } from '../application/releases/sweep';
import type { HoldbackEvent } from '../domain/types';

/** Metrics are flushed by the middleware; a process that never publishes (local, tests) passes none. */
/** The metrics a handler keeps: the release flow's counts, published by Powertools after each invocation. */
export type HandlerMetrics = PowertoolsReleaseMetrics;

export function lambdaMetrics(): HandlerMetrics {
  return new PowertoolsReleaseMetrics();
}

/**
 * Powertools' own middlewares: `injectLambdaContext` adds the invocation's context (request id) to the container's
 * Powertools logger, which the runtime's LambdaLogger writes through, before the handler runs; `logMetrics` publishes
 * the metrics the invocation recorded after it (also when it throws), so that every line carries the request id and no
 * count is lost.
 */
export function observed(metrics?: PowertoolsReleaseMetrics): middy.MiddlewareObj[] {
  return [injectLambdaContext(lambdaPowertoolsLogger()), ...(metrics ? [logMetrics(metrics.metrics)] : [])];
}

/** The emitted events as metrics: each applied, failed and drift event counted where it is published. */
class MeteredPublisher implements EventPublisher {
  constructor(private readonly inner: EventPublisher, private readonly metrics: ReleaseMetrics) {}

  async publish(events: HoldbackEvent[]): Promise<void> {
    await this.inner.publish(events);
    for (const event of events) {
      if (event.type === 'vendor.release_applied') this.metrics.record('applied');
      if (event.type === 'vendor.release_failed') this.metrics.record('failed');
      if (event.type === 'config.drift_detected') this.metrics.record('drift');
    }
  }

  publishOrderEvent(detailType: string, detail: object): Promise<void> {
    return this.inner.publishOrderEvent(detailType, detail);
  }
}

/** A release result as metrics: a retry scheduled, 429 answers among this send's attempts, lateness of the send. */
export function observeRelease(metrics: ReleaseMetrics, result: ReleaseVendorResult, startedAtMs: number): void {
  if (!('release' in result)) return;
  const { release } = result;
  if (result.outcome === 'rescheduled') metrics.record('retried');
  const thisSend = release.attempts.filter((a) => a.at.ms >= startedAtMs - 1000);
  const limited = thisSend.filter((a) => a.httpStatus === 429).length;
  if (limited > 0) metrics.record('rateLimited', limited);
  if (thisSend.length > 0 && release.plannedSendAt) {
    const late = (thisSend[0].at.ms - release.plannedSendAt.ms) / 1000;
    metrics.record('sendLateness', Math.max(0, late));
  }
}

export function observeSweep(metrics: ReleaseMetrics, result: SweepResult): void {
  if (result.redriven > 0) metrics.record('sweepRedriven', result.redriven);
}

/**
 * A handler's dependencies: built once per container (lazyDependencies) and, when the handler keeps metrics, with a
 * publisher that counts what it emits into them.
 */
export function handlerDependencies(source: DependencySource, metrics?: ReleaseMetrics): () => Promise<Dependencies> {
  if (!metrics) return lazyDependencies(source);
  return lazyDependencies(async () => {
    const deps = await source();
    return { ...deps, publisher: new MeteredPublisher(deps.publisher, metrics) };
  });
}
