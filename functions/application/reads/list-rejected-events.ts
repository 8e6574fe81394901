/** Use case: the malformed events Holdback refused and why (GET /rejected-events), newest arrival first, in cursor pages. */
import type { RejectedEvent } from '../../domain/types';
import { encodeCursor } from '../cursor';
import type { Dependencies } from '../ports';
import { inZone, type Shown } from '../response-times';

export const MAX_REJECTED_LIMIT = 500;
/** The list its cursors belong to (the route's cursor parameter reads them). */
export const REJECTED_CURSOR_LIST = 'rejected-events';

/** A rejected event as the page shows it: `at` in the settings' zone. */
type RejectedEventView = Shown<RejectedEvent, 'at'> & { sequence: number };

export interface RejectedEventsPage {
  /** Each with `sequence`: its number in the order of arrival, from 1. */
  rejectedEvents: RejectedEventView[];
  nextCursor: string | null;
  /** How many events were rejected in all (not only on this page). */
  count: number;
}

/** A page of them; the query as the route's schema read it (`after`: the decoded cursor). */
export async function listRejectedEvents(
  deps: Dependencies, query: { limit?: number; after?: string | null } = {},
): Promise<RejectedEventsPage> {
  const limit = query.limit ?? 100;
  const after = query.after ?? null;
  const [page, settings] = await Promise.all([deps.rejected.page({ limit, after }), deps.settings.get()]);
  return {
    rejectedEvents: page.items.map((r) => ({ ...r, at: inZone(r.at, settings.timezone) })),
    nextCursor: page.next === null ? null : encodeCursor(REJECTED_CURSOR_LIST, page.next),
    count: page.count,
  };
}
