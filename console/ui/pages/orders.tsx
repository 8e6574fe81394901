/** The list of orders: every order's vendors, amount per currency and states, searchable, from `GET /outcomes`. */
import { useMemo, useState } from 'preact/hooks';
import { call, listOf, segment, withQuery } from '../api';
import { indiaTime, money } from '../format';
import { Loaded, Section, Table } from '../form';
import { useLoad } from '../load';
import type { Release } from '../releases';

/** Releases read per page of `GET /outcomes` (its maximum is 1000). */
const PAGE = 500;

interface OrderRow {
  orderId: string;
  transactionTime: string | null;
  releases: Release[];
}

/** Releases grouped by order, newest payment first. */
function ordersOf(releases: Release[]): OrderRow[] {
  const byOrder = new Map<string, OrderRow>();
  for (const r of releases) {
    const row = byOrder.get(r.orderId) ?? { orderId: r.orderId, transactionTime: r.transactionTime ?? null, releases: [] };
    row.releases.push(r);
    byOrder.set(r.orderId, row);
  }
  return [...byOrder.values()].sort((a, b) => (b.transactionTime ?? '').localeCompare(a.transactionTime ?? '') || a.orderId.localeCompare(b.orderId));
}

/** Decimal text as whole hundredths ("1375.25" -> 137525n): exact, never a float. */
function hundredths(amount: string | undefined): bigint {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(amount ?? '');
  return m ? BigInt(m[1]) * 100n + BigInt((m[2] ?? '').padEnd(2, '0') || '0') : 0n;
}

/** The order's money per currency, never added across currencies: "INR 1,250.00". */
function amountText(releases: Release[]): string {
  const sums = new Map<string, bigint>();
  for (const r of releases) {
    const currency = r.currency ?? '?';
    sums.set(currency, (sums.get(currency) ?? 0n) + hundredths(r.amount));
  }
  return [...sums.entries()].map(([currency, total]) => money(`${total / 100n}.${String(total % 100n).padStart(2, '0')}`, currency === '?' ? null : currency)).join('; ');
}

/** "2 SETTLED, 1 HELD". */
function statesText(releases: Release[]): string {
  const counts = new Map<string, number>();
  for (const r of releases) counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
  return [...counts.entries()].map(([state, n]) => `${n} ${state}`).join(', ');
}

export function OrdersList() {
  const [search, setSearch] = useState('');
  const [pages, setPages] = useState(1);
  const state = useLoad(async () => {
    const items: Release[] = [];
    let cursor: string | undefined;
    let more = false;
    for (let page = 0; page < pages; page++) {
      const body = await call<{ items: Release[]; nextCursor: string | null }>('GET', withQuery('/outcomes', { limit: String(PAGE), cursor }));
      items.push(...listOf<Release>(body));
      cursor = body.nextCursor ?? undefined;
      more = Boolean(cursor);
      if (!cursor) break;
    }
    return { orders: ordersOf(items), more };
  }, [pages]);
  const words = search.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const matches = (o: OrderRow): boolean => words.every((w) => o.orderId.toLowerCase().includes(w)
    || o.releases.some((r) => r.vendorId.toLowerCase().includes(w) || r.state.toLowerCase() === w));
  return (
    <Section title="Every order" testId="orders-list">
      <div class="field">
        <label for="orders-search">Search: order id, vendor id or state (words narrow the list)</label>
        <input id="orders-search" type="search" data-testid="orders-search" value={search} placeholder="e.g. v-fashion HELD"
          onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)} />
      </div>
      <Loaded state={state}>
        {({ orders, more }) => <OrdersTable orders={orders.filter(matches)} all={orders.length} more={more} onMore={() => setPages((p) => p + 1)} />}
      </Loaded>
    </Section>
  );
}

function OrdersTable({ orders, all, more, onMore }: { orders: OrderRow[]; all: number; more: boolean; onMore: () => void }) {
  const rows = useMemo(() => orders.map((o) => ({
    key: o.orderId,
    testId: `orders-row-${o.orderId}`,
    cells: [
      <a href={`#/orders/${segment(o.orderId)}`}>{o.orderId}</a>,
      indiaTime(o.transactionTime),
      o.releases.map((r) => r.vendorId).join(', '),
      amountText(o.releases),
      <span data-testid="orders-states">{statesText(o.releases)}</span>,
    ],
  })), [orders]);
  return (
    <>
      <p class="hint" data-testid="orders-count">{orders.length} of {all} order{all === 1 ? '' : 's'} shown{more ? ' (more are older: load them below)' : ''}.</p>
      <Table caption="Orders, newest payment first (times India time)" testId="orders-table" headers={['Order', 'Paid at', 'Vendors', 'Amount', 'Releases']} rows={rows} empty="no order matches." />
      {more ? <button type="button" class="secondary" data-testid="orders-more" onClick={onMore}>Load older orders</button> : null}
    </>
  );
}
