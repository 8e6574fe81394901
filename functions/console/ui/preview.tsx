/** What a preview shows before anything changes: the releases that would move and the per-day totals before and after. */
import { CompareDaysChart } from './chart';
import { addDays, indiaTime } from './format';
import { Table } from './form';

export interface PreviewAnswer {
  previewId: string;
  vendorId?: string;
  fromVersion?: number;
  releases: Array<{
    orderId: string;
    vendorId?: string;
    state: string;
    current: { targetEligibility: string | null; predictedSettlement: string | null };
    candidate: { targetEligibility: string | null; predictedSettlement: string | null };
    reason?: string;
  }>;
  perDay: Array<{ date: string; current: { count: number; amount: string }; candidate: { count: number; amount: string } }>;
  /** Settings previews: releases the gateway would refuse under the candidate. */
  refused?: Array<{ orderId: string; vendorId?: string; reason?: string; message?: string }>;
}

type PerDay = PreviewAnswer['perDay'][number];

/** The API lists only days with something on them; the chart and table show every day from the first to the last. */
function everyDay(perDay: PerDay[]): PerDay[] {
  if (perDay.length === 0) return [];
  const byDate = new Map(perDay.map((d) => [d.date, d]));
  const sorted = [...byDate.keys()].sort();
  const zero = { count: 0, amount: '0' };
  const days: PerDay[] = [];
  for (let day = sorted[0]; day <= sorted[sorted.length - 1] && days.length < 400; day = addDays(day, 1)) {
    days.push(byDate.get(day) ?? { date: day, current: zero, candidate: zero });
  }
  return days;
}

export function PreviewView({ preview, what }: { preview: PreviewAnswer; what: string }) {
  const days = everyDay(preview.perDay);
  const refused = preview.refused ?? [];
  return (
    <div data-testid="preview">
      <p role="status">
        Preview <code data-testid="preview-id">{preview.previewId}</code> of {what}
        {preview.fromVersion !== undefined ? ` (from version ${preview.fromVersion})` : ''}: {preview.releases.length} unsent release(s) would move. Nothing has changed yet.
      </p>
      <Table
        caption="Releases that would move"
        testId="preview-releases"
        headers={['Order', 'Vendor', 'State', 'Target eligibility now', 'Target eligibility after', 'Predicted settlement now', 'Predicted settlement after']}
        empty="none: no unsent release would move."
        rows={preview.releases.map((r) => ({
          key: `${r.orderId}/${r.vendorId ?? preview.vendorId}`,
          testId: `preview-${r.orderId}`,
          cells: [
            r.orderId, r.vendorId ?? preview.vendorId ?? '—', r.state,
            indiaTime(r.current.targetEligibility), <span data-testid="candidate-target">{indiaTime(r.candidate.targetEligibility)}</span>,
            indiaTime(r.current.predictedSettlement), indiaTime(r.candidate.predictedSettlement),
          ],
        }))}
      />
      {refused.length > 0 ? (
        <Table
          caption="Releases the gateway would refuse under this change"
          testId="preview-refused"
          headers={['Order', 'Vendor', 'Why']}
          rows={refused.map((r, i) => ({ key: String(i), cells: [r.orderId, r.vendorId ?? '—', r.reason ?? r.message ?? '—'] }))}
        />
      ) : null}
      {days.length > 0 ? (
        <CompareDaysChart
          title="Expected settlements per India-time day, now and after the change"
          days={days.map((d) => d.date)}
          current={{ label: 'now', amounts: days.map((d) => d.current.amount), counts: days.map((d) => d.current.count), color: '#8c959f' }}
          candidate={{ label: 'after', amounts: days.map((d) => d.candidate.amount), counts: days.map((d) => d.candidate.count), color: '#12355b' }}
          testId="preview-chart"
        />
      ) : null}
    </div>
  );
}
