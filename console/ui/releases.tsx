/** Vendor releases and vendors as the API lists them, and the one table that shows releases on every page. */
import { indiaTime, money, ruleText } from './format';
import { Table } from './form';
import type { VendorExposure } from '../../functions/contracts/api-answers';

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
  /** Sends of the eligibility PUT so far. */
  sends?: number;
  /** A manual release: who asked and why. */
  manual?: { actor: string; reason: string; override?: boolean; requestedAt?: string; at?: string | null } | null;
  /** What the release was when the gateway settled it (a cancelled one the gateway settled anyway says CANCELLED). */
  settledFrom?: { state: string; appliedEligibility?: string | null; predictedSettlement?: string | null } | null;
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

/** The gateway's last answer in words: "OK 200: Updated ..." or "ERROR 400 (max_eligibility): ...". */
function gatewayAnswer(last: NonNullable<Release['attempts']>[number]): string {
  return `${last.status}${last.subCode ? ` ${last.subCode}` : ''}: ${last.message}`;
}

/**
 * Why a release is in its state, as a sentence built from its structured fields (state, rule, times, hold, manual
 * release, the gateway's last answer, the settlement mismatch): never the API's message text, never an ISO duration.
 */
export function whyOf(r: Release): string {
  const rule = r.rule ? ruleSentence(r.rule) : 'its vendor\'s policy';
  const max = indiaTime(r.maxEligibility);
  const manual = r.manual ? `Released by hand by ${r.manual.actor}: "${r.manual.reason}". ` : '';
  const last = lastAttemptOf(r);
  const option = r.scheduleOption !== undefined ? ` (schedule option ${r.scheduleOption})` : '';
  switch (r.state) {
    case 'SETTLED': {
      const cancelled = r.settledFrom?.state === 'CANCELLED' ? 'The order was cancelled, but the gateway settled it anyway. ' : '';
      const m = r.settlementMismatch;
      const predicted = m
        ? `, ${Math.abs(m.differenceMinutes)} minutes ${m.differenceMinutes > 0 ? 'later' : 'earlier'} than predicted (${indiaTime(m.predicted)}): the gateway's calendar or schedule and Holdback's differ`
        : r.settledFrom?.predictedSettlement ? ', as predicted' : '';
      return `${cancelled}${manual}Settled by the gateway at ${indiaTime(r.settledAt)}${predicted}.`;
    }
    case 'APPLIED':
      return `${manual}The gateway accepted eligibility ${indiaTime(r.appliedEligibility)}${r.sends && r.sends > 1 ? ` at the ${ordinal(r.sends)} send` : ''}; `
        + `it settles at ${indiaTime(r.predictedSettlement ?? r.projectedSettlement)}${option}.`;
    case 'SCHEDULED': {
      const lead = r.plannedSendAt && r.targetEligibility ? durationBetween(r.plannedSendAt, r.targetEligibility) : null;
      return `${manual}${manual ? 'Eligible' : `Released ${rule}: eligible`} from ${indiaTime(r.targetEligibility)}; `
        + `Holdback sends it at ${indiaTime(r.plannedSendAt)}${lead ? `, ${lead} ahead` : ''}.`;
    }
    case 'WAITING':
      if (r.rule?.kind === 'after_delivery' && !r.targetEligibility) {
        return `Waiting for the delivery; then released ${rule}. Never delivered, the gateway settles it from max eligibility ${max}.`;
      }
      return `Waiting: releasing it now would pass the vendor's exposure cap (${r.reason ?? 'exposure_cap'}); it goes when exposure falls, or the gateway settles it anyway ${r.settlesAnywayAt ? `at ${indiaTime(r.settlesAnywayAt)}` : `from max eligibility ${max}`}.`;
    case 'HELD': {
      const by = r.holdReason === 'dispute' ? 'a dispute is open on this order' : r.holdReason === 'vendor_hold' ? 'its vendor is on hold (the reason is on the vendor\'s page)' : 'it is on hold';
      const source = r.holdSource ? ` (hold source: ${r.holdSource})` : '';
      return `Held: ${by}${source}. Nothing is sent; if it stays held, the gateway settles it anyway ${r.settlesAnywayAt ? `at ${indiaTime(r.settlesAnywayAt)} (from max eligibility ${max})` : `from max eligibility ${max}`}.`;
    }
    case 'AT_MAX':
      return `No early release (${r.rule ? `rule: ${rule}` : 'no policy'}): the gateway settles it from max eligibility ${max}.`;
    case 'CANCELLED':
      return 'The order was cancelled before the release was sent: nothing goes to the gateway.';
    case 'FAILED':
      return `The gateway refused it${r.sends ? ` after ${r.sends} send${r.sends === 1 ? '' : 's'}` : ''}${last ? `: ${gatewayAnswer(last)}` : ''}. `
        + `Retry or release it by hand; untouched, the gateway settles it from max eligibility ${max}.`;
    case 'PLANNED':
      return `${manual}Due now: queued to be sent to the gateway.`;
    case 'APPLYING':
      return `${manual}Being sent to the gateway now.`;
    default:
      return last ? gatewayAnswer(last) : '—';
  }
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
  return `${n}${suffix}`;
}

/** A release rule as the end of a sentence: "2 days after delivery", "at once after payment". */
export function ruleSentence(rule: { kind: string; delay?: string }): string {
  switch (rule.kind) {
    case 'immediate': return 'at once after payment';
    case 'after_payment': return `${rule.delay ? durationWords(rule.delay) : 'some time'} after payment`;
    case 'after_delivery': return `${rule.delay ? durationWords(rule.delay) : 'some time'} after delivery`;
    case 'at_max': return 'at max eligibility';
    default: return rule.kind.replace(/_/g, ' ');
  }
}

/** "PT1H" -> "1 hour", "P2DT3H" -> "2 days 3 hours"; text it cannot read is shown as it is. */
export function durationWords(iso: string): string {
  const m = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(iso);
  if (!m) return iso;
  const parts = (['week', 'day', 'hour', 'minute', 'second'] as const)
    .map((unit, i) => [Number(m[i + 1] ?? 0), unit] as const)
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n} ${unit}${n === 1 ? '' : 's'}`);
  return parts.length ? parts.join(' ') : 'no time';
}

/** The time from one instant to a later one in words: "1 hour", "25 minutes". */
function durationBetween(from: string, to: string): string | null {
  const minutes = Math.round((Date.parse(to) - Date.parse(from)) / 60_000);
  if (!(minutes > 0)) return null;
  const hours = Math.floor(minutes / 60);
  return durationWords(`PT${hours ? `${hours}H` : ''}${minutes % 60 ? `${minutes % 60}M` : ''}`);
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
  const last = lastAttemptOf(r);
  return Boolean(r.settlementMismatch) || /drift|max_eligib/i.test(`${r.reason ?? ''} ${last ? gatewayAnswer(last) : ''}`);
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
export type { VendorExposure };

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
