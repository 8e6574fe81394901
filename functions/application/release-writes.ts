/** How the use cases write a vendor release: versions, release keys, and what counts as "no change". */
import type { DateTime } from 'luxon';
import { GATEWAY_ZONE, formatInstant } from '../domain/dates';
import type { ReleaseCommand, ReleaseState, VendorRelease } from '../domain/types';
import { releaseScheduleName } from '../routing';

/** How often a use case re-reads and recomputes after a conditional write lost a race. */
export const MAX_WRITE_ATTEMPTS = 5;

/** Stored times are India time, the gateway's clock, so that text order is time order in the table. */
export function storedInstant(dt: DateTime): string {
  return formatInstant(dt, GATEWAY_ZONE);
}

/** States that wait for a send at `sendAt` under `releaseKey`. */
export function isPending(state: ReleaseState): boolean {
  return state === 'PLANNED' || state === 'SCHEDULED';
}

export function commandOf(release: VendorRelease): ReleaseCommand | null {
  return release.releaseKey ? { orderId: release.orderId, vendorId: release.vendorId, releaseKey: release.releaseKey } : null;
}

/**
 * The release as the next stored version: version + 1, and a release key that is new whenever a different send is
 * pending (so that an old schedule firing late finds a key that no longer matches and does nothing).
 */
export function nextVersion(release: VendorRelease, current: VendorRelease | null, now: DateTime): VendorRelease {
  const version = (current?.version ?? 0) + 1;
  let releaseKey: string | null = null;
  if (isPending(release.state)) {
    const sameSend = current !== null && current.state === release.state && current.sendAt === release.sendAt && current.releaseKey;
    releaseKey = sameSend ? current.releaseKey : releaseScheduleName(release.orderId, release.vendorId, version);
  }
  return {
    ...release,
    version,
    releaseKey,
    sendAt: isPending(release.state) || release.state === 'APPLYING' ? release.sendAt : null,
    updatedAt: storedInstant(now),
  };
}

const BOOKKEEPING = new Set(['version', 'releaseKey', 'updatedAt']);

/** Whether two releases say the same thing, ignoring the bookkeeping the caller assigns. */
export function sameRelease(a: VendorRelease, b: VendorRelease): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => !BOOKKEEPING.has(k)));
  for (const key of keys) {
    if (!sameValue((a as unknown as Record<string, unknown>)[key], (b as unknown as Record<string, unknown>)[key])) return false;
  }
  return true;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // An absent optional field and an undefined one are the same record.
  if (a === undefined || b === undefined || a === null || b === null) return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
    for (const key of keys) if (!sameValue(ra[key], rb[key])) return false;
    return true;
  }
  return false;
}
