/**
 * What a transition returns: the release to write (with the version it must replace) and the effects to run after
 * the write; the audit records, the write stamps, and the commit of a planned release.
 */
import { INDIA_TIME, type Instant } from '../instant';
import type { HoldbackEvent, IsoInstant, ReleaseCommand, ReleaseState, VendorRelease } from '../types';
import { checkMove, isPending, type ReleaseEvent } from './states';

/** The actor of decisions Holdback takes by itself (events, schedules, answers). */
export const SYSTEM_ACTOR = 'holdback';

/** Deterministic name of one pending send (also the Scheduler schedule name); injected so the domain names nothing. */
export type ReleaseKeyOf = (orderId: string, vendorId: string, version: number) => string;

/** An audit record about one release (the audit log's entry shape, contract 6.2). */
export interface ReleaseAuditRecord {
  kind: string;
  at: IsoInstant;
  actor: string | null;
  orderId: string;
  vendorId: string;
  detail: Record<string, unknown>;
}

/** What a use case runs after the write, in this order. */
export type Effect =
  | { kind: 'cancel_schedule'; releaseKey: string }
  | { kind: 'schedule'; command: ReleaseCommand; at: IsoInstant }
  | { kind: 'enqueue'; command: ReleaseCommand }
  | { kind: 'publish'; event: HoldbackEvent }
  | { kind: 'audit'; entry: ReleaseAuditRecord };

/** The release to write, conditional on `expectedVersion` (null: must not exist yet), then the effects. */
export interface Write {
  kind: 'write';
  release: VendorRelease;
  expectedVersion: number | null;
  effects: Effect[];
}

export interface Unchanged {
  kind: 'unchanged';
  release: VendorRelease;
}

/** A transition the state does not allow (the API answers 409 `invalid_state`). */
export interface Refusal {
  kind: 'refused';
  state: ReleaseState;
  message: string;
}

export type Transition = Write | Unchanged;

/** Why a plan was made: the audit's account of it. */
export interface Cause {
  kind: 'event' | 'payment' | 'hold' | 'unhold' | 'policy_replan' | 'manual_release' | 'retry' | 'claim';
  actor: string | null;
  reason?: string;
}

/**
 * The one zone of write stamps (`updatedAt`, audit `at`, claim deadlines, `settledAt`, `requestedAt`...): India time,
 * the zone every stored time is kept in. Answers show them in the settings' timezone (contract 6) at the edge.
 */
export function stamp(now: Instant): IsoInstant {
  return now.in(INDIA_TIME).toISO();
}

export function audit(kind: string, release: VendorRelease, now: Instant, actor: string | null, detail: Record<string, unknown>): Effect {
  return {
    kind: 'audit',
    entry: { kind, at: stamp(now), actor, orderId: release.orderId, vendorId: release.vendorId, detail },
  };
}

/** The release written by `event`, its move checked against the table (a move outside it is a defect, never stored). */
export function moved(from: VendorRelease | null, event: ReleaseEvent, release: VendorRelease, expectedVersion: number | null, effects: Effect[]): Write {
  checkMove(from?.state ?? null, event, release.state);
  return { kind: 'write', release, expectedVersion, effects };
}

// Bookkeeping that is not the release's content.
const BOOKKEEPING = new Set(['version', 'releaseKey', 'updatedAt']);

/** Whether two releases say the same thing, ignoring the bookkeeping (version, key, time of the write). */
export function sameRelease(a: VendorRelease, b: VendorRelease): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => !BOOKKEEPING.has(k)));
  for (const key of keys) {
    if (!sameValue((a as unknown as Record<string, unknown>)[key], (b as unknown as Record<string, unknown>)[key])) return false;
  }
  return true;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // An absent optional field, an undefined one and a null one say the same (releases stored before a field existed).
  if (a === undefined || b === undefined || a === null || b === null) return (a ?? null) === (b ?? null);
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

/**
 * `next` as the version after `stored`, with a release key that is new whenever a different send is pending (so an
 * old schedule or message arriving late finds a key that no longer matches and does nothing), and the effects the
 * change needs: cancel the old schedule, create the new one, or enqueue a send that is due now.
 */
export function commit(
  stored: VendorRelease | null, next: VendorRelease, event: ReleaseEvent, now: Instant, keyOf: ReleaseKeyOf, audits: Effect[],
): Transition {
  if (stored && sameRelease(stored, next)) return { kind: 'unchanged', release: stored };
  const version = (stored?.version ?? 0) + 1;
  let releaseKey: string | null = null;
  if (isPending(next.state)) {
    const sameSend = stored !== null && stored.state === next.state && stored.sendAt === next.sendAt && stored.releaseKey;
    releaseKey = sameSend ? stored.releaseKey : keyOf(next.orderId, next.vendorId, version);
  }
  const release: VendorRelease = {
    ...next,
    version,
    releaseKey,
    sendAt: isPending(next.state) || next.state === 'APPLYING' ? next.sendAt : null,
    updatedAt: stamp(now),
  };
  const effects: Effect[] = [];
  if (stored?.state === 'SCHEDULED' && stored.releaseKey && stored.releaseKey !== releaseKey) {
    effects.push({ kind: 'cancel_schedule', releaseKey: stored.releaseKey });
  }
  if (releaseKey && releaseKey !== stored?.releaseKey && release.sendAt) {
    const command = { orderId: release.orderId, vendorId: release.vendorId, releaseKey };
    effects.push(release.state === 'SCHEDULED' ? { kind: 'schedule', command, at: release.sendAt } : { kind: 'enqueue', command });
  }
  effects.push(...audits);
  return moved(stored, event, release, stored?.version ?? null, effects);
}
