/** How the use cases write a vendor release: the machine's write, conditional on its version, then its effects. */
import type { DateTime } from 'luxon';
import { GATEWAY_ZONE, formatInstant, parseInstant } from '../../domain/dates';
import type { Effect, Write } from '../../domain/release-machine';
import type { VendorRelease } from '../../domain/types';
import { releaseScheduleName } from '../../definitions/routing';
import { describeError } from '../errors';
import type { AuditEntry, Dependencies } from '../ports';

/** How often a use case re-reads and recomputes after a conditional write lost a race. */
export const MAX_WRITE_ATTEMPTS = 5;

/** Release keys are the Scheduler schedule names (routing.ts defines them once for the stack and the edge). */
export const releaseKeyOf = releaseScheduleName;

/** Stored times are India time, the gateway's clock, so that text order is time order in the table. */
export function storedInstant(dt: DateTime): string {
  return formatInstant(dt, GATEWAY_ZONE);
}

/** Writes the release conditionally (VersionConflictError when another writer came first); effects are not run. */
export async function writeRelease(deps: Dependencies, write: Write): Promise<VendorRelease> {
  await deps.orders.putRelease(write.release, write.expectedVersion);
  return write.release;
}

/**
 * Runs what the machine asked for after a write: schedule changes in order, then the sends as one batch, the events
 * as one and the audit entries as one append. None of them may undo or repeat the write: a failed
 * schedule or enqueue is re-driven by the sweep (the release is stored with its `sendAt`), a failed publish or audit
 * append is logged, never thrown, so that an outside failure never makes a release fail or send twice.
 */
export async function runEffects(deps: Dependencies, effects: Effect[]): Promise<void> {
  const audits: AuditEntry[] = [];
  const enqueue = effects.flatMap((e) => (e.kind === 'enqueue' ? [e.command] : []));
  const publish = effects.flatMap((e) => (e.kind === 'publish' ? [e.event] : []));
  for (const effect of effects) {
    const ids = 'command' in effect ? { orderId: effect.command.orderId, vendorId: effect.command.vendorId } : {};
    try {
      if (effect.kind === 'cancel_schedule') await deps.scheduler.cancel(effect.releaseKey);
      else if (effect.kind === 'schedule') await deps.scheduler.schedule(effect.command, parseInstant(effect.at, 'sendAt'));
      else if (effect.kind === 'audit') audits.push(effect.entry);
    } catch (error) {
      deps.logger.error(`release effect ${effect.kind} failed; the sweep re-drives the release`, { ...ids, error: describeError(error) });
    }
  }
  if (enqueue.length > 0) {
    await deps.queue.enqueue(enqueue).catch((error: unknown) => {
      deps.logger.error('release commands not enqueued; the sweep re-drives them', { commands: enqueue, error: describeError(error) });
    });
  }
  if (publish.length > 0) {
    await deps.publisher.publish(publish).catch((error: unknown) => {
      deps.logger.error('publishing release events failed', { events: publish.map((e) => e.type), error: describeError(error) });
    });
  }
  await appendAudit(deps, audits);
}

/** Appends to the audit log; a failure is logged and swallowed (the log keeps and retries what it could not write). */
export async function appendAudit(deps: Dependencies, entries: AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  // A change made through the API carries its caller's proven principal beside the free-text actor (contract 6.4).
  const principal = deps.caller?.principal;
  const stamped = principal ? entries.map((e) => (e.principal === undefined ? { ...e, principal } : e)) : entries;
  try {
    await deps.audit.append(stamped);
  } catch (error) {
    deps.logger.error('audit entries not appended', { kinds: entries.map((e) => e.kind), error: describeError(error) });
  }
}
