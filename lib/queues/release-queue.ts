/** The release queue, the one send path: due release commands in, the release function out, at a bounded concurrency. */
import { Construct } from 'constructs';
import { RELEASE_QUEUE } from '../../functions/definitions/routing';
import { FunctionQueue } from './function-queue';

/**
 * The release function always consumes the queue, so no deploy can pause releases: whether they run is whether the
 * gateway secret holds the credentials (the function checks it, see functions/handlers/release.ts), state kept in the
 * account that a redeploy never touches.
 */
export interface ReleaseQueueProps {
  /** The event source mapping's maximum concurrency: the number of release functions that send at once. */
  readonly maximumConcurrency: number;
}

/** The release function consumes the queue (attach): batches, bounded concurrency, only failed records returned. */
export class ReleaseQueue extends FunctionQueue {
  constructor(scope: Construct, id: string, props: ReleaseQueueProps) {
    // The queue keeps messages 4 days (FunctionQueue's retention period).
    // Paused releases wait here; the sweep enqueues them again anyway, so nothing is lost when one expires.
    super(scope, id, {
      holds: `release commands the release function failed on ${RELEASE_QUEUE.maxReceiveCount} times, and messages that are not release commands`,
      visibilityTimeoutSeconds: RELEASE_QUEUE.visibilityTimeoutSeconds,
      maxReceiveCount: RELEASE_QUEUE.maxReceiveCount,
      batchSize: RELEASE_QUEUE.batchSize,
      maximumConcurrency: props.maximumConcurrency,
    });
  }
}
