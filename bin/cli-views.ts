/** The CLI's human views: tables that fit 120 columns, amounts in their currency's convention, totals per currency. */
import { CurrencySums, moneyText } from '../kit/money-format';

/** The terminal width the tables are made to fit. */
export const TABLE_WIDTH = 120;

type Row = string[];

/**
 * Aligned columns that fit `width`: the widest columns are cut (with "…") until the table fits, those named in
 * `cutFirst` (free text such as a reason) before the others. Numbers and amounts align right.
 */
export function columns(headers: string[], rows: Row[], width = TABLE_WIDTH, cutFirst: number[] = []): string {
  if (rows.length === 0) return '(none)\n';
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const total = () => widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);
  for (const pool of [cutFirst, widths.map((_, i) => i)]) {
    while (total() > width) {
      const candidates = pool.filter((i) => widths[i] > 8);
      if (candidates.length === 0) break;
      const widest = candidates.reduce((a, b) => (widths[b] > widths[a] ? b : a));
      widths[widest] -= 1;
    }
  }
  const fit = (text: string, i: number) => (text.length > widths[i] ? `${text.slice(0, widths[i] - 1)}…` : text);
  const numeric = headers.map((_, i) => rows.every((r) => /^-?[\d,.]*$|^[A-Z]{3} [\d,.]+$/.test(r[i] ?? '')));
  const line = (cells: string[]) => cells.map((c, i) => (numeric[i] ? fit(c, i).padStart(widths[i]) : fit(c, i).padEnd(widths[i]))).join('  ').trimEnd();
  return `${[line(headers), ...rows.map(line)].join('\n')}\n`;
}

/** A value in one cell: text as is, lists and objects as compact JSON (cut by `columns` when too wide). */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Totals per currency, as a line under a table. */
export class Totals extends CurrencySums {
  /** "total: INR 1,00,100.00 in 2 releases; USD 1,000.00 in 1 release" (one entry per currency), or '' when empty. */
  line(label: string, noun = 'release'): string {
    const text = this.text((money, count) => `${money} in ${count} ${noun}${count === 1 ? '' : 's'}`, '; ', '');
    return text ? `${label}: ${text}\n` : '';
  }
}

/** "2022-12-19T11:00:00+05:30" -> "2022-12-19 11:00" (the CLI's times are the API's, in the settings' zone). */
export function shortTime(iso: unknown): string {
  if (typeof iso !== 'string' || !iso) return '—';
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]}` : iso;
}

type Json = Record<string, any>;

function ruleWords(rule: Json | undefined): string {
  if (!rule?.kind) return '—';
  return rule.delay ? `${rule.kind} ${rule.delay}` : rule.kind;
}

/** A release's settlement: predicted, else projected (marked "~"). */
function settlementOf(r: Json): string {
  if (r.predictedSettlement) return shortTime(r.predictedSettlement);
  // Held or waiting: the gateway settles it anyway from max eligibility, whatever Holdback holds.
  if (r.settlesAnywayAt && (r.state === 'HELD' || r.waitReason === 'exposure_cap')) return `~${shortTime(r.settlesAnywayAt)} anyway`;
  if (r.projectedSettlement) return `~${shortTime(r.projectedSettlement)}`;
  return '—';
}

/** The gateway's answer in a cell; the full sentence of each warning is printed under the table. */
const GATEWAY_CELL: Record<string, string> = {
  agrees: 'agrees', disagrees: 'WARNING: disagrees', vendor_not_found: 'WARNING: unknown at the gateway', error: 'WARNING: not asked',
};

export function vendorsView(body: Json): string {
  const totals = new Totals();
  const exposure = new Totals();
  const warnings: string[] = [];
  const rows = (body.items as Json[]).map((v) => {
    for (const o of v.open ?? []) totals.add(o.currency, o.amount, o.count);
    const open = (v.open as Json[] ?? []).map((o) => `${moneyText(o.amount, o.currency)} (${o.count})`).join('; ') || 'nothing open';
    if (v.gateway && v.gateway.answer !== 'agrees') warnings.push(`WARNING ${v.vendorId}: ${v.gateway.message ?? v.gateway.answer}`);
    const gateway = v.gateway ? GATEWAY_CELL[v.gateway.answer] ?? v.gateway.answer : '';
    const exposed = (v.exposure as Json[] ?? []).filter((e) => e.count > 0 || e.maxExposure !== null);
    for (const e of exposed) if (e.count > 0) exposure.add(e.currency, e.amount, e.count);
    const exposureCell = exposed.map((e) => `${moneyText(e.amount, e.currency)} (${e.count})${e.maxExposure !== null ? ` cap ${moneyText(e.maxExposure, e.currency)}${e.exceededBy ? ` OVER by ${moneyText(e.exceededBy, e.currency)}` : ''}` : ''}`).join('; ') || 'none';
    return { cells: [v.vendorId, ruleWords(v.release), `v${v.policyVersion}`, String(v.scheduleOption), v.held ? `HELD (${v.hold?.source ?? 'finance'}): ${v.hold?.reason ?? ''}` : '', open], gateway, exposure: exposureCell };
  });
  // The gateway's answer when asked (--check-gateway), else the exposure when some vendor has one: both do not fit 120
  // columns beside the open money; the exposure's totals are under the table either way.
  const withGateway = rows.some((r) => r.gateway);
  const withExposure = !withGateway && rows.some((r) => r.exposure !== 'none');
  const headers = ['Vendor', 'Rule', 'Policy', 'Option', 'Hold', 'Open (not settled)', ...(withGateway ? ['Gateway'] : []), ...(withExposure ? ['Exposure (early, refundable)'] : [])];
  const cells = rows.map((r) => [...r.cells, ...(withGateway ? [r.gateway] : []), ...(withExposure ? [r.exposure] : [])]);
  // Free text (the rule, the hold's reason) is cut before the money and the gateway's answer.
  return columns(headers, cells, TABLE_WIDTH, [1, 4, ...(withExposure ? [headers.length - 1] : [])]) + totals.line('Open in all') + exposure.line('Exposure in all')
    + warnings.map((w) => `${w}\n`).join('') + (body.nextCursor ? `more: --cursor ${body.nextCursor}\n` : '');
}

export function forecastView(body: Json): string {
  const firm = new Totals();
  const projected = new Totals();
  const days = (body.days as Json[]).filter((d) => d.firm.count > 0 || d.projected.count > 0);
  for (const d of days) {
    if (d.firm.count) firm.add(d.currency, d.firm.amount, d.firm.count);
    if (d.projected.count) projected.add(d.currency, d.projected.amount, d.projected.count);
  }
  const rows = days.map((d) => [d.date, String(d.firm.count), moneyText(d.firm.amount, d.currency), String(d.projected.count), moneyText(d.projected.amount, d.currency)]);
  return `Expected settlements ${body.from} to ${body.to} (India-time days${body.vendorId ? `, vendor ${body.vendorId}` : ''}; days with nothing left out)\n`
    + columns(['Date', 'Firm', 'Firm amount', 'Projected', 'Projected amount'], rows)
    + firm.line('Firm (applied)') + projected.line('Projected (not yet sent)');
}

export function releasesView(items: Json[], currencyOf: (r: Json) => string | undefined): string {
  const totals = new Totals();
  const rows = items.map((r) => {
    const currency = currencyOf(r);
    if (currency) totals.add(currency, r.amount);
    const source = r.holdSource ? ` (hold source ${r.holdSource})` : '';
    return [r.orderId ?? '', r.vendorId, currency ? moneyText(r.amount, currency) : String(r.amount), r.state, shortTime(r.targetEligibility), shortTime(r.appliedEligibility), settlementOf(r), `${r.reason ?? ''}${source}`];
  });
  return columns(['Order', 'Vendor', 'Amount', 'State', 'Target', 'Applied', 'Settles (~ projected)', 'Why'], rows, TABLE_WIDTH, [7]) + totals.line('Total');
}

export function outcomesView(body: Json): string {
  return releasesView(body.items, (r) => r.currency) + (body.nextCursor ? `more: --cursor ${body.nextCursor}\n` : '');
}

export function orderView(body: Json): string {
  const head = `order ${body.orderId}, paid ${shortTime(body.transactionTime)}, max eligibility ${shortTime(body.maxEligibility)}, ${body.currency ?? 'currency not known yet'}\n`;
  return head + releasesView((body.vendors as Json[]).map((v) => ({ ...v, orderId: body.orderId })), () => body.currency ?? undefined);
}

export function previewView(body: Json): string {
  const rows = (body.releases as Json[]).map((r) => [
    r.orderId, r.vendorId, r.state, String(r.amount),
    shortTime(r.current.predictedSettlement), shortTime(r.candidate.predictedSettlement),
    r.dropped ? 'dropped (cancelled)' : r.moves ? 'moves' : '', r.refusal ?? '',
  ]);
  const perDay = (body.perDay as Json[]).map((d) => [d.date, String(d.current.count), moneyText(d.current.amount, d.currency), String(d.candidate.count), moneyText(d.candidate.amount, d.currency)]);
  return `covered ${body.covered}, moved ${body.moved}, dropped ${body.dropped ?? 0}${body.omitted ? `, ${body.omitted} not listed` : ''}; previewId ${body.previewId} (until ${shortTime(body.expiresAt)})\n`
    + columns(['Order', 'Vendor', 'State', 'Amount', 'Settles now', 'Settles then', 'Change', 'Gateway would refuse'], rows, TABLE_WIDTH, [7])
    + '\nper day of settlement:\n'
    + columns(['Date', 'Now', 'Amount now', 'Then', 'Amount then'], perDay);
}

export function accuracyView(body: Json): string {
  const rows = (body.scheduleOptions as Json[]).map((r) => [String(r.scheduleOption), String(r.settled), String(r.predicted ?? r.settled), String(r.asPredicted), String(r.maxDifferenceMinutes), String(r.unpredicted ?? 0)]);
  const reasons = (body.scheduleOptions as Json[]).flatMap((r) => (r.unpredictedReasons ?? []).map((u: Json) => `  option ${r.scheduleOption}: ${u.count} ${u.reason}`));
  return `settlements ${shortTime(body.from)} to ${shortTime(body.to)}\n`
    + columns(['Option', 'Settled', 'Predicted before', 'As predicted', 'Max difference (min)', 'Unpredicted'], rows)
    + (reasons.length ? `not predicted before they settled (not counted as predicted):\n${reasons.join('\n')}\n` : '');
}

/** Jobs (GET /jobs): the job id whole (it is what `holdback job <id>` takes), its progress and when it started and ended. */
export function jobsView(body: Json): string {
  const rows = (body.items as Json[] ?? []).map((j) => [j.jobId, j.kind, j.state, `${j.done}/${j.total}`, String(j.failed), shortTime(j.createdAt), shortTime(j.finishedAt), cellText(j.error)]);
  // The error (free text) is cut first to fit; who started each job is in `holdback job <id>` and --json.
  const table = columns(['Job', 'Kind', 'State', 'Done', 'Failed', 'Created', 'Finished', 'Error'], rows, TABLE_WIDTH, [7]);
  return table + (body.nextCursor ? `more: --cursor ${body.nextCursor}\n` : '');
}

export function importView(body: Json): string {
  const errors = (body.errors as Json[] ?? []).map((e) => [String(e.line), e.field, e.message]);
  const head = `${body.dryRun === false ? 'applied' : 'dry run'}: ${body.rows} rows, ${body.valid} valid, ${errors.length} error(s)\n`;
  return head + (errors.length ? columns(['Line', 'Field', 'What is wrong'], errors) : '');
}

/** A shell word: quoted when it holds anything a shell would read specially. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Who asked or decided: the actor, and the proven principal (marked when nobody was signed in, locally). */
function partyText(party: Json | null | undefined): string {
  if (!party) return '—';
  return `${party.actor} (${party.principal === 'local:unauthenticated' ? 'unauthenticated' : party.principal})`;
}

/** What an approval would move: per currency, never added across currencies. */
function approvalMoves(a: Json): string {
  if (a.moves === null) return 'every unsent release (settings)';
  const moves = a.moves as Json[];
  return moves.length ? moves.map((m) => `${m.atLeast ? 'at least ' : ''}${moneyText(m.amount, m.currency)}${m.count !== undefined ? ` (${m.count}${m.atLeast ? '+' : ''})` : ''}`).join('; ') : 'nothing open';
}

/** GET /approvals: what waits for a second person (four eyes), with what it would move and who asked. */
export function approvalsView(body: Json): string {
  const rows = (body.items as Json[] ?? []).map((a) => [
    a.approvalId, a.change, a.state, a.orderId ? `${a.orderId}/${a.vendorId}` : a.vendorId ?? 'settings', approvalMoves(a), partyText(a.requestedBy), a.reason,
    a.state === 'pending' ? shortTime(a.expiresAt) : `${partyText(a.decidedBy)}: ${a.decisionReason ?? ''}`,
  ]);
  const table = columns(['Approval', 'Change', 'State', 'Of', 'Would move', 'Asked by', 'Why', 'Expires / decided'], rows, TABLE_WIDTH, [3, 5, 6, 7]);
  return table + (body.nextCursor ? `more: --cursor ${body.nextCursor}\n` : '');
}

/** A decision's answer: the approval as it ended, and whether the change was applied. */
export function decisionView(body: Json): string {
  const a = body.approval as Json;
  const applied = a.applied ? (a.applied.ok ? 'applied as asked' : `not applied: ${a.applied.error}`) : 'nothing changes';
  return `approval ${a.approvalId} ${a.state} by ${partyText(a.decidedBy)}: ${applied}\n`;
}

/** A 202 of a change that needs a second person: nothing changed, and how the other person approves it. */
export function pendingApprovalView(body: Json): string {
  const a = body.approval as Json;
  return `waiting for a second person (four eyes): nothing changed yet.\n`
    + `approval ${a.approvalId}: ${a.change}, would move ${approvalMoves(a)}; asked by ${partyText(a.requestedBy)}; expires ${shortTime(a.expiresAt)}\n`
    + `another person approves it with: holdback approvals approve ${a.approvalId} --reason <why>\n`;
}
