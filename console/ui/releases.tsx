/** Vendor releases and vendors as the API lists them, and the one table that shows releases on every page. */
import { indiaTime, money, ruleText } from './format';
import { Table } from './form';

/** One release as `GET /outcomes` and `GET /orders/{id}` send it (functions/application/view-order.ts, query-outcomes.ts). */
export interface Release {
  orderId: string;
  vendorId: string;
  amount?: string;
  currency?: string;
  state: string;
  reason?: string | null;
  holdReason?: 'dispute' | 'vendor_hold' | null;
  rule?: { kind: string; delay?: string };
  policyVersion?: number;
  scheduleOption?: number;
  transactionTime?: string | null;
  maxEligibility?: string | null;
  targetEligibility?: string | null;
  appliedEligibility?: string | null;
  plannedSendAt?: string | null;
  predictedSettlement?: string | null;
  /** Where the money lands by the one projection the forecast uses; `settlementProjected` when not yet firm. */
  projectedSettlement?: string | null;
  settlementProjected?: boolean;
  settledAt?: string | null;
  attempts?: Array<{ at: string; status: string; subCode?: string | null; message: string }>;
  /** A settlement at another time than predicted: the gateway's configuration and Holdback's disagree. */
  settlementMismatch?: { predicted: string; settledAt: string; differenceMinutes: number; message: string } | null;
  /** WAITING under the policy's maxExposure (contract 6.4). */
  waitReason?: 'exposure_cap' | null;
  /** HELD: who holds it (dispute, risk, finance, vendor_request). */
  holdSource?: string | null;
  /** HELD or WAITING: when the gateway settles it anyway (the settlement after its max eligibility). */
  settlesAnywayAt?: string | null;
}

/** The gateway's last answer, if it was asked. */
export function lastAttemptOf(r: Release): NonNullable<Release['attempts']>[number] | undefined {
  return r.attempts && r.attempts.length > 0 ? r.attempts[r.attempts.length - 1] : undefined;
}

/** Why a release is in its state, in words (the API's `reason`, else the hold; the gateway's last answer when it failed). */
export function whyOf(r: Release): string {
  const held = r.holdReason ? `held: ${r.holdReason.replace('_', ' ')}${r.holdSource ? ` (source ${r.holdSource})` : ''}` : undefined;
  const reason = r.reason ? `${r.reason}${r.holdSource && r.holdReason === 'vendor_hold' ? ` (source ${r.holdSource})` : ''}` : held;
  const last = lastAttemptOf(r);
  const gateway = last ? `${last.status}${last.subCode ? ` ${last.subCode}` : ''}: ${last.message}` : undefined;
  return [reason, r.state === 'FAILED' || !reason ? gateway : undefined].filter(Boolean).join(' · ') || '—';
}

/** The predicted settlement, or where the money lands if nothing changes, marked "(projected)" (scheduled, held, waiting). */
export function settlementText(r: Release): string {
  if (r.predictedSettlement) return indiaTime(r.predictedSettlement);
  // A hold only stops an early release: the gateway settles at max eligibility whatever Holdback holds.
  if (r.settlesAnywayAt && (r.state === 'HELD' || r.waitReason === 'exposure_cap')) return `settles anyway ${indiaTime(r.settlesAnywayAt)} (the gateway, from max eligibility)`;
  if (r.projectedSettlement) return `${indiaTime(r.projectedSettlement)}${r.settlementProjected ? ' (projected)' : ''}`;
  return '—';
}

/** A refusal of a date inside Holdback's window means the dashboard's Defer by Days and Holdback's mirror disagree. */
export function isDrift(r: Release): boolean {
  return Boolean(r.settlementMismatch) || /drift|max_eligib/i.test(whyOf(r));
}

export function ReleaseTable({ caption, releases, testId, showVendor = true }: { caption: string; releases: Release[]; testId?: string; showVendor?: boolean }) {
  return (
    <Table
      caption={caption}
      testId={testId}
      headers={[
        'Order', ...(showVendor ? ['Vendor'] : []), 'Amount', 'State', 'Why', 'Rule (policy version)', 'Target eligibility', 'Send at',
        'Applied eligibility', 'Predicted settlement', 'Settled at',
      ]}
      rows={releases.map((r) => ({
        key: `${r.orderId}/${r.vendorId}`,
        testId: `release-${r.orderId}-${r.vendorId}`,
        cells: [
          <a href={`#/orders/${encodeURIComponent(r.orderId)}`}>{r.orderId}</a>,
          ...(showVendor ? [<a href={`#/vendors/${encodeURIComponent(r.vendorId)}`}>{r.vendorId}</a>] : []),
          money(r.amount, r.currency),
          <span class="state" data-testid="state">{r.state}</span>,
          whyOf(r),
          r.rule ? `${ruleText(r.rule)}${r.policyVersion !== undefined ? ` (v${r.policyVersion})` : ''}` : r.policyVersion !== undefined ? `v${r.policyVersion}` : '—',
          <span data-testid="target">{indiaTime(r.targetEligibility)}</span>,
          indiaTime(r.plannedSendAt),
          indiaTime(r.appliedEligibility),
          <span data-testid="settlement">{settlementText(r)}</span>,
          indiaTime(r.settledAt),
        ],
      }))}
    />
  );
}

/** A vendor of `GET /vendors`: its policy in force, its last hold or unhold, and its open (unsettled) money per currency. */
export interface VendorSummary {
  vendorId: string;
  policyVersion?: number;
  scheduleOption?: number;
  release?: { kind: string; delay?: string };
  held?: boolean;
  hold?: { held?: boolean; source?: string; reason?: string; actor?: string; at?: string } | null;
  open?: Array<{ currency: string; count: number; amount: string }>;
  /** Early-release exposure per currency, its cap and its forecast (contract 6.4). */
  exposure?: VendorExposure[];
  /** With `checkGateway=true`: the gateway's own schedule option for the vendor. */
  gateway?: { answer?: 'agrees' | 'disagrees' | 'vendor_not_found' | 'error'; scheduleOption: number | null; policyDisagrees: boolean; message?: string; error?: string };
}

/** One currency of a vendor's exposure, as `GET /vendors` sends it. */
export interface VendorExposure {
  currency: string;
  amount: string;
  count: number;
  maxExposure: string | null;
  exceededBy: string | null;
  nextCloseAt: string | null;
  forecast: Array<{ date: string; amount: string; closing: string }>;
}

/** Exposure per currency in words: "INR 1,350.75 in 2 releases (cap INR 1,000.00, exceeded by INR 350.75)". */
export function exposureText(v: VendorSummary): string {
  const open = (v.exposure ?? []).filter((e) => e.count > 0 || e.maxExposure !== null);
  if (open.length === 0) return 'none: no money released early is still refundable';
  return open.map((e) => {
    const cap = e.maxExposure === null ? 'no cap' : `cap ${money(e.maxExposure, e.currency)}${e.exceededBy ? `, EXCEEDED by ${money(e.exceededBy, e.currency)}: no early release goes until it falls` : ''}`;
    return `${money(e.amount, e.currency)} in ${e.count} release${e.count === 1 ? '' : 's'} (${cap})`;
  }).join('; ');
}

/** The hold in force, if any (the last hold or unhold is kept: an unhold is not a hold). */
export function holdOf(v: VendorSummary): { reason: string; actor?: string; at?: string; source?: string } | null {
  const held = v.held ?? v.hold?.held ?? false;
  if (!held) return null;
  return { reason: v.hold?.reason ?? '—', actor: v.hold?.actor, at: v.hold?.at, source: v.hold?.source };
}

export function holdText(v: VendorSummary): string {
  const hold = holdOf(v);
  if (!hold) return v.hold ? `not held (unheld by ${v.hold.actor ?? '—'}, ${indiaTime(v.hold.at)}: ${v.hold.reason ?? '—'})` : 'not held';
  return `HELD: ${hold.reason} (source ${hold.source ?? 'finance'}, by ${hold.actor ?? '—'}, ${indiaTime(hold.at)})`;
}

/** Open money per currency: "INR 1,250.50 in 2 releases". */
export function openText(v: VendorSummary): string {
  if (!v.open || v.open.length === 0) return 'nothing open';
  return v.open.map((o) => `${money(o.amount, o.currency)} in ${o.count} release${o.count === 1 ? '' : 's'}`).join('; ');
}

/** Every vendor, page after page (a vendor's own page looks itself up in the list: there is no single-vendor route). */
export async function findVendor(vendorId: string, fetchPage: (cursor?: string) => Promise<{ items: VendorSummary[]; nextCursor: string | null }>): Promise<VendorSummary | null> {
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const answer = await fetchPage(cursor);
    const found = answer.items.find((v) => v.vendorId === vendorId);
    if (found) return found;
    if (!answer.nextCursor) return null;
    cursor = answer.nextCursor;
  }
  return null;
}
