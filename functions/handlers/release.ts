/**
 * Flow: the release queue (SQS event source; schedules and the sweep put commands on it) or a bare ReleaseCommand →
 * releaseVendor per command → the gateway PUT, once per release key.
 */
import middy from '@middy/core';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describeError } from '../application/errors';
import type { Dependencies, Logger, ReleaseMetrics } from '../application/ports';
import { releaseVendor, type ReleaseVendorResult } from '../application/releases/release-vendor';
import { isValidId } from '../domain/order-events';
import type { ReleaseCommand } from '../domain/types';
import { awsRuntime, type DependencySource } from './dependencies';
import * as composition from '../composition/release';
import { lambdaMetrics, handlerDependencies, observeRelease, observed, type HandlerMetrics } from './observability';

const COMMAND_SHAPE = 'a release command {"orderId", "vendorId", "releaseKey"} (ids of 3 to 45 of A-Z, a-z, 0-9, "_", "-")';

/**
 * An SQS batch answers `batchItemFailures` for the records that threw or are not release commands: SQS delivers those
 * again and, after the queue's maxReceiveCount, moves them to the dead-letter queue, where their logged reason says
 * what was wrong; the other records of the batch are done. A bare command (no `Records`) is run as is; a malformed
 * one is logged and answered, not thrown.
 */
export function makeReleaseHandler(getDeps: DependencySource, metrics?: HandlerMetrics) {
  const deps = handlerDependencies(getDeps, metrics);
  return middy<unknown, ReleaseVendorResult | SQSBatchResponse>().use(observed(metrics)).handler(async (event) => {
    const d = await deps();
    if (isSqsEvent(event)) return runBatch(d, event, metrics);
    const command = releaseCommandOf(event);
    if (typeof command === 'string') {
      d.logger.error('release handler got something that is not a release command', { reason: command, keys: Object.keys(event ?? {}) });
      return { outcome: 'skipped', reason: `not ${COMMAND_SHAPE}: ${command}` };
    }
    return observedRelease(d, command, metrics);
  });
}

/** One command through the use case, its result counted when metrics are kept. */
async function observedRelease(deps: Dependencies, command: ReleaseCommand, metrics?: ReleaseMetrics): Promise<ReleaseVendorResult> {
  const startedAtMs = deps.clock.now().ms;
  const result = await releaseVendor(deps, command);
  if (metrics) observeRelease(metrics, result, startedAtMs);
  return result;
}

function isSqsEvent(event: unknown): event is SQSEvent {
  return typeof event === 'object' && event !== null && Array.isArray((event as { Records?: unknown }).Records);
}

async function runBatch(deps: Dependencies, event: SQSEvent, metrics?: ReleaseMetrics): Promise<SQSBatchResponse> {
  if (deps.gatewayReady && !(await deps.gatewayReady())) {
    // Paused until the secret is filled in: nothing is claimed or sent; the sweep puts each release on the queue again
    // every minute while it is overdue, and the ReleasesPaused alarm counts these.
    deps.logger.warn('releases paused: the gateway secret does not hold the credentials yet; the sweep sends these again once it does', { count: event.Records.length });
    metrics?.record('releasesPaused', event.Records.length);
    return { batchItemFailures: [] };
  }
  // Powertools' batch processor: the records in parallel, each one that throws answered in batchItemFailures (all of
  // them when all fail: SQS then delivers each again, rather than the whole invocation failing).
  return processPartialResponse(event, async (record: SQSRecord) => {
    const messageId = record.messageId;
    const command = releaseCommandOf(parseBody(record.body));
    if (typeof command === 'string') {
      logPoison(deps.logger, messageId, command);
      throw new Error(`not ${COMMAND_SHAPE}: ${command}`);
    }
    try {
      await observedRelease(deps, command, metrics);
    } catch (error) {
      deps.logger.error('release command failed; SQS delivers it again', { messageId, orderId: command.orderId, vendorId: command.vendorId, error: describeError(error) });
      throw error;
    }
  }, new BatchProcessor(EventType.SQS), { throwOnFullBatchFailure: false });
}

function logPoison(logger: Logger, messageId: string, reason: string): void {
  logger.error('queue message is not a release command; it goes to the dead-letter queue after its retries', { messageId, reason, expected: COMMAND_SHAPE });
}

function parseBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The command, or why it is not one. */
function releaseCommandOf(event: unknown): ReleaseCommand | string {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return 'the body is not a JSON object';
  const { orderId, vendorId, releaseKey } = event as Record<string, unknown>;
  if (!isValidId(orderId)) return `orderId is ${JSON.stringify(orderId) ?? 'missing'}`;
  if (!isValidId(vendorId)) return `vendorId is ${JSON.stringify(vendorId) ?? 'missing'}`;
  if (typeof releaseKey !== 'string' || releaseKey === '' || releaseKey.length > 64) return `releaseKey is ${JSON.stringify(releaseKey)?.slice(0, 80) ?? 'missing'}`;
  return { orderId: orderId as string, vendorId: vendorId as string, releaseKey };
}

export const handler = makeReleaseHandler(awsRuntime('release', composition, true), lambdaMetrics());
