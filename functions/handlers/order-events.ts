/** Flow: EventBridge order event → handleOrderEvent → stored, planned, scheduled or sent; malformed ones listed as rejected. */
import middy from '@middy/core';
import type { EventBridgeEvent } from 'aws-lambda';
import { handleOrderEvent } from '../application/releases/handle-order-event';
import { awsRuntime, type DependencySource } from './dependencies';
import * as composition from '../composition/order-events';
import { handlerDependencies, observed, type HandlerMetrics } from './observability';

export type OrderEventsResult =
  | { outcome: 'rejected'; id: string; reasons: string[] }
  | { outcome: 'accepted'; orderId: string; duplicate: boolean; states: Record<string, string> };

/**
 * A rejected event is an answer, not a thrown error: EventBridge retrying it would only reject it again. Errors of
 * the infrastructure (a table unreachable) are thrown so that EventBridge retries the delivery.
 */
export function makeOrderEventsHandler(getDeps: DependencySource, metrics?: HandlerMetrics) {
  const deps = handlerDependencies(getDeps, metrics);
  return middy<EventBridgeEvent<string, unknown>, OrderEventsResult>().use(observed(metrics)).handler(async (event) => {
    const result = await handleOrderEvent(await deps(), event['detail-type'], event.detail, {
      id: event.id ?? null,
      source: event.source ?? null,
      time: event.time ?? null,
    });
    if (result.outcome === 'rejected') return { outcome: 'rejected', id: result.rejected.id, reasons: result.rejected.reasons };
    return {
      outcome: 'accepted',
      orderId: result.orderId,
      duplicate: result.duplicate,
      states: Object.fromEntries(result.releases.map((r) => [r.vendorId, r.state])),
    };
  });
}

/**
 * No metrics: the release flow's metrics count what is sent (applied, failed, retried, 429s, lateness), settled (drift)
 * and swept, none of which an order event does (its plans only schedule or enqueue; the events that count are
 * published by the release and webhooks functions, domain/release/send.ts and settle.ts, which this bundle does not
 * carry: test/e2e/deployed-bundles.test.ts). With none recorded, Powertools' Metrics only warned "No application
 * metrics to publish" on every invocation, and its code was 3 KB gzipped of the bundle.
 */
export const handler = makeOrderEventsHandler(awsRuntime('order-events', composition));
