/** The vendors Holdback knows, read page by page: what a preview over every vendor walks. */
import type { Dependencies } from './ports';

/** Every vendor Holdback knows, a page of ids at a time (in id order). */
export async function* knownVendorPages(deps: Dependencies, pageSize: number): AsyncIterable<string[]> {
  for (let after: string | null = null; ;) {
    const page = await deps.reads.vendors(after, pageSize);
    if (page.vendorIds.length > 0) yield page.vendorIds;
    if (!page.more || page.vendorIds.length === 0) return;
    after = page.vendorIds[page.vendorIds.length - 1];
  }
}
