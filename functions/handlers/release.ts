/** Flow: Scheduler fires a ReleaseCommand (its Input, no envelope) → releaseVendor → the gateway PUT, once per key. */
import middy from '@middy/core';
import { releaseVendor, type ReleaseVendorResult } from '../application/release-vendor';
import { isValidId } from '../domain/order-events';
import type { ReleaseCommand } from '../domain/types';
import { lazyDependencies, runtimeDependencies, type DependencySource } from './dependencies';

/**
 * A malformed command is logged and answered, not thrown: Scheduler would retry it for a day to no effect.
 */
export function makeReleaseHandler(getDeps: DependencySource) {
  const deps = lazyDependencies(getDeps);
  return middy<unknown, ReleaseVendorResult>().handler(async (event) => {
    const d = await deps();
    const command = releaseCommandOf(event);
    if (!command) {
      d.logger.error('release handler got something that is not a release command', { keys: Object.keys(event ?? {}) });
      return { outcome: 'skipped', reason: 'not a release command {orderId, vendorId, releaseKey}' };
    }
    return releaseVendor(d, command);
  });
}

function releaseCommandOf(event: unknown): ReleaseCommand | null {
  if (typeof event !== 'object' || event === null) return null;
  const { orderId, vendorId, releaseKey } = event as Record<string, unknown>;
  if (!isValidId(orderId) || !isValidId(vendorId) || typeof releaseKey !== 'string' || releaseKey === '') return null;
  return { orderId: orderId as string, vendorId: vendorId as string, releaseKey };
}

export const handler = makeReleaseHandler(runtimeDependencies);
