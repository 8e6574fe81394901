/** The read side over the in-memory order repository: the same filters and order as the DynamoDB indexes give. */
import { copy } from './copy';
import { Instant } from '../../functions/domain/instant';
import { CurrencyTotals, moneyOf } from '../../functions/domain/projection';
import type { OutcomeFilter, ReadRelease, ReleaseReads } from '../../functions/application/ports';
import type { VendorRelease } from '../../functions/domain/types';
import type { InMemoryOrderRepository, InMemoryPolicyRepository } from './repositories';

const utc = (at: Instant): string => new Date(at.ms).toISOString();
const EVER = { from: Instant.parse('1970-01-01T00:00:00Z', 'from'), to: Instant.parse('9999-12-31T23:59:59Z', 'to') };

export class InMemoryReleaseReads implements ReleaseReads {
  /** `policies`: a vendor with a policy is seen too, as the DynamoDB adapter notes it (contract: seen in an order or a policy). */
  constructor(private readonly orders: InMemoryOrderRepository, private readonly policies?: InMemoryPolicyRepository) {}

  async *outcomes(filter: OutcomeFilter, after: string | null): AsyncIterable<ReadRelease> {
    const rows: ReadRelease[] = [];
    for (const release of this.orders.releases.values()) {
      const time = filter.by === 'transaction' ? release.transactionTime : filter.by === 'applied' ? release.appliedEligibility : release.settledAt;
      if (time === null) continue;
      if (filter.from !== undefined && utc(time) < utc(filter.from)) continue;
      if (filter.to !== undefined && utc(time) > utc(filter.to)) continue;
      if (filter.vendorId !== undefined && release.vendorId !== filter.vendorId) continue;
      if (filter.orderId !== undefined && release.orderId !== filter.orderId) continue;
      if (filter.state !== undefined && release.state !== filter.state) continue;
      const position = `${utc(time)}#${release.orderId}#${release.vendorId}`;
      if (after !== null && position <= after) continue;
      rows.push({ release: copy(release), order: copy(this.orders.orders.get(release.orderId) ?? null), position });
    }
    yield* rows.sort((a, b) => (a.position < b.position ? -1 : 1));
  }

  async openOrderIds(vendorId: string, after: string | null, limit: number): Promise<{ orderIds: string[]; next: string | null }> {
    const positions: string[] = [];
    for await (const row of this.openReleases(vendorId)) {
      const position = row.position.split('#').slice(0, 2).join('#');
      if (after === null || position > after) positions.push(position);
    }
    const page = positions.slice(0, limit);
    return { orderIds: page.map((p) => p.split('#')[1]), next: positions.length > limit ? page[page.length - 1] : null };
  }

  async *openReleases(vendorId: string, range = EVER): AsyncIterable<ReadRelease> {
    const rows: ReadRelease[] = [];
    for (const release of this.orders.releases.values()) {
      if (release.vendorId !== vendorId || release.state === 'SETTLED' || release.state === 'CANCELLED') continue;
      if (utc(release.maxEligibility) < utc(range.from) || utc(release.transactionTime) > utc(range.to)) continue;
      // In the order of the maximum eligibility, as the open index keeps them.
      rows.push({ release: copy(release), order: copy(this.orders.orders.get(release.orderId) ?? null), position: `${utc(release.maxEligibility)}#${release.orderId}#${vendorId}` });
    }
    yield* rows.sort((a, b) => (a.position < b.position ? -1 : 1));
  }

  async openCountUpTo(vendorId: string, max: number): Promise<number> {
    let count = 0;
    for await (const _ of this.openReleases(vendorId)) count += 1;
    return Math.min(count, max + 1);
  }

  async openEnds(vendorId: string): Promise<string> {
    const positions: string[] = [];
    for await (const row of this.openReleases(vendorId)) positions.push(row.position);
    return positions.length === 0 ? '' : `${positions[0]}|${positions[positions.length - 1]}`;
  }

  async openReleasesToPlan(vendorId: string): Promise<VendorRelease[]> {
    const releases: VendorRelease[] = [];
    for await (const { release, order } of this.openReleases(vendorId)) {
      releases.push({ ...release, attempts: [], ...(release.currency === undefined && order ? { currency: order.currency } : {}) });
    }
    return releases;
  }

  async openTotals(vendorId: string): Promise<{ currency: string; count: number; amount: string }[]> {
    const totals = new CurrencyTotals<'open'>();
    for (const r of this.orders.releases.values()) {
      if (r.vendorId !== vendorId || r.state === 'SETTLED' || r.state === 'CANCELLED') continue;
      const { amount, currency } = moneyOf(r, this.orders.orders.get(r.orderId)?.currency);
      totals.add('open', currency, amount);
    }
    return totals.currencies().map((currency) => ({ currency, ...totals.get('open', currency) }));
  }

  async openTotalsUpTo(vendorId: string, max: number): Promise<{ totals: { currency: string; count: number; amount: string }[]; complete: boolean }> {
    const totals = new CurrencyTotals<'open'>();
    let count = 0;
    for await (const { release, order } of this.openReleases(vendorId)) {
      if ((count += 1) > max) return { totals: totals.currencies().map((currency) => ({ currency, ...totals.get('open', currency) })), complete: false };
      const { amount, currency } = moneyOf(release, order?.currency);
      totals.add('open', currency, amount);
    }
    return { totals: totals.currencies().map((currency) => ({ currency, ...totals.get('open', currency) })), complete: true };
  }

  async knowsVendor(vendorId: string): Promise<boolean> {
    return this.seenVendors().has(vendorId);
  }

  async vendors(after: string | null, limit: number): Promise<{ vendorIds: string[]; more: boolean }> {
    const all = [...this.seenVendors()].sort().filter((v) => after === null || v > after);
    return { vendorIds: all.slice(0, limit), more: all.length > limit };
  }

  private seenVendors(): Set<string> {
    return new Set([...[...this.orders.releases.values()].map((r) => r.vendorId), ...(this.policies?.vendorIds() ?? [])]);
  }
}
