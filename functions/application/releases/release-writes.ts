/** What every area stamps and appends the same way: stored times (India time) and audit appends that never throw. */
import { stamp } from '../../domain/release';
import { describeError } from '../errors';
import type { AppendOptions, AuditEntry, Dependencies } from '../ports';

/**
 * Stored times are India time, the gateway's clock, so that text order is time order in the table: the machine's one
 * write stamp, used by every area for what it stores.
 */
export const storedInstant = stamp;

/** Appends to the audit log; a failure is logged and swallowed (the log keeps and retries what it could not write). */
export async function appendAudit(deps: Dependencies, entries: AuditEntry[], options?: AppendOptions): Promise<void> {
  if (entries.length === 0) return;
  // A change made through the API carries its caller's proven principal beside the free-text actor (contract 6.4).
  const principal = deps.caller?.principal;
  const stamped = principal ? entries.map((e) => (e.principal === undefined ? { ...e, principal } : e)) : entries;
  try {
    await deps.audit.append(stamped, options);
  } catch (error) {
    deps.logger.error('audit entries not appended', { kinds: entries.map((e) => e.kind), error: describeError(error) });
  }
}
