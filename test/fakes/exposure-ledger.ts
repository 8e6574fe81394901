/** The exposure ledger in memory, with the DynamoDB one's rules: entries sorted by closing instant, a conditional version. */
import type { ExposureAtClose, ExposureLedger } from '../../functions/application/ports';
import type { ExposureEntry } from '../../functions/domain/exposure';
import type { Instant } from '../../functions/domain/instant';

const ms = (at: Instant): number => at.ms;
const keyOf = (e: Pick<ExposureEntry, 'vendorId' | 'currency' | 'orderId' | 'closesAt'>): string => `${e.vendorId}|${e.currency}|${ms(e.closesAt)}|${e.orderId}`;

export class InMemoryExposureLedger implements ExposureLedger {
  readonly entries = new Map<string, ExposureEntry>();
  readonly versions = new Map<string, number>();
  /** The keys of removed entries (the DynamoDB adapter's tombstones). */
  readonly removed = new Set<string>();

  async open(vendorId: string, now: Instant, currency?: string): Promise<ExposureEntry[]> {
    return [...this.entries.values()]
      .filter((e) => e.vendorId === vendorId && (currency === undefined || e.currency === currency) && ms(e.closesAt) > ms(now))
      .sort((a, b) => a.currency.localeCompare(b.currency) || ms(a.closesAt) - ms(b.closesAt))
      .map((e) => ({ ...e }));
  }

  async version(vendorId: string, currency: string): Promise<number> {
    return this.versions.get(`${vendorId}|${currency}`) ?? 0;
  }

  async bump(vendorId: string, currency: string, expected: number): Promise<boolean> {
    const key = `${vendorId}|${currency}`;
    if ((this.versions.get(key) ?? 0) !== expected) return false;
    this.versions.set(key, expected + 1);
    return true;
  }

  async put(entry: ExposureEntry): Promise<void> {
    this.entries.set(keyOf(entry), { ...entry });
    this.removed.delete(keyOf(entry));
  }

  async remove(entry: Pick<ExposureEntry, 'vendorId' | 'currency' | 'orderId' | 'closesAt'>): Promise<void> {
    this.entries.delete(keyOf(entry));
    this.removed.add(keyOf(entry));
  }

  async atCloses(vendorId: string, currency: string, orderId: string, closes: readonly Instant[]): Promise<ExposureAtClose[]> {
    return closes.flatMap((closesAt): ExposureAtClose[] => {
      const key = keyOf({ vendorId, currency, orderId, closesAt });
      const entry = this.entries.get(key);
      if (entry) return [{ closesAt, entry: { ...entry } }];
      return this.removed.has(key) ? [{ closesAt, entry: 'removed' }] : [];
    });
  }
}
