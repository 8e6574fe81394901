/** Use case: the malformed events Holdback refused and why (GET /rejected-events), newest arrival first, in cursor pages. */
import type { RejectedEvent } from '../../domain/types';
import { boundedCount, decodeCursor, encodeCursor } from '../cursor';
import type { Dependencies } from '../ports';
import { inZone } from '../response-times';

const MAX_REJECTED_LIMIT = 500;
const CURSOR_LIST = 'rejected-events';

export interface RejectedEventsPage {
  /** Each with `sequence`: its number in the order of arrival, from 1. */
  rejectedEvents: (RejectedEvent & { sequence: number })[];
  nextCursor: string | null;
  /** How many events were rejected in all (not only on this page). */
  count: number;
}

export async function listRejectedEvents(
  deps: Dependencies, query: { limit?: string | null; cursor?: string | null } = {},
): Promise<RejectedEventsPage> {
  const limit = boundedCount(query.limit, 'limit', 1, MAX_REJECTED_LIMIT, 100);
  const after = decodeCursor(query.cursor, CURSOR_LIST);
  const [page, settings] = await Promise.all([deps.rejected.page({ limit, after }), deps.settings.get()]);
  return {
    rejectedEvents: page.items.map((r) => ({ ...r, at: inZone(r.at, settings.timezone) })),
    nextCursor: page.next === null ? null : encodeCursor(CURSOR_LIST, page.next),
    count: page.count,
  };
}
