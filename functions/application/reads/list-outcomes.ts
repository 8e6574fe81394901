/** Use case: outcomes for auditors (GET /outcomes, contract 6.1): filters, cursor pages in JSON, or every row as streamed CSV. */
import { encodeCursor } from '../cursor';
import type { Dependencies, ReadRelease } from '../ports';
import { cursorList, outcomeItem, type OutcomeItem, type OutcomeQuery } from '../outcome-rows';
import { projectionContext, vendorHoldSources } from '../release-views';

/** One page of outcomes: `limit` items and the cursor of the next page (null on the last). */
export async function outcomesPage(deps: Dependencies, query: OutcomeQuery): Promise<{ items: OutcomeItem[]; nextCursor: string | null }> {
  const settings = await deps.settings.get();
  const zone = settings.timezone;
  const projection = projectionContext(settings, deps.clock.now().ms);
  const rows: ReadRelease[] = [];
  // One row more than the page: whether a next page exists is then known.
  for await (const row of deps.reads.outcomes(query.filter, query.after)) {
    rows.push(row);
    if (rows.length > query.limit) break;
  }
  const page = rows.slice(0, query.limit);
  const more = rows.length > query.limit;
  // The source of each vendor hold that keeps a release of the page HELD (one read per such vendor).
  const holdSources = await vendorHoldSources(deps, page.map((row) => row.release));
  return {
    items: page.map((row) => outcomeItem(row, zone, projection, holdSources)),
    nextCursor: more ? encodeCursor(cursorList(query.filter), page[page.length - 1].position) : null,
  };
}
