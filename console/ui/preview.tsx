/** What a preview shows before anything changes: the releases that would move and the per-day totals before and after. */
import { CompareDaysChart } from './chart';
import { addDays, indiaTime, money } from './format';
import { Table } from './form';

/** The answer of `POST .../policy/preview` and `POST /settings/preview` (functions/application/preview-changes.ts). */
export interface PreviewAnswer {
  previewId: string;
  expiresAt: string;
  vendorId?: string;
  fromVersion?: number;
  /** Unsent releases the preview covered, how many of them the candidate moves, and how many the list leaves out. */
  covered: number;
  moved: number;
  omitted: number;
  /** Settings previews: how many releases' current targets the gateway would refuse under the candidate. */
  refused?: number;
  releases: Array<{
    orderId: string;
    vendorId: string;
    state: string;
    amount?: string;
    currency?: string | null;
    current: { targetEligibility: string | null; predictedSettlement: string | null };
    candidate: { targetEligibility: string | null; predictedSettlement: string | null };
    moves: boolean;
    /** The candidate drops it: its order was cancelled, nothing will be sent. */
    dropped?: boolean;
    /** Why the gateway would refuse the release under the candidate (null: it would accept it). */
    refusal: string | null;
  }>;
  perDay: Array<{ date: string; currency: string; current: { count: number; amount: string }; candidate: { count: number; amount: string } }>;
}

type PerDay = PreviewAnswer['perDay'][number];

/**
 * The API lists only days with something on them, one entry per day and currency; each currency gets its own chart
 * (amounts of two currencies are never added), showing every day from its first to its last.
 */
function everyDayByCurrency(perDay: PerDay[]): Array<{ currency: string; days: PerDay[] }> {
  const currencies = [...new Set(perDay.map((d) => d.currency))].sort();
  return currencies.map((currency) => {
    const byDate = new Map(perDay.filter((d) => d.currency === currency).map((d) => [d.date, d]));
    const sorted = [...byDate.keys()].sort();
    const zero = { count: 0, amount: '0' };
    const days: PerDay[] = [];
    for (let day = sorted[0]; day <= sorted[sorted.length - 1] && days.length < 400; day = addDays(day, 1)) {
      days.push(byDate.get(day) ?? { date: day, currency, current: zero, candidate: zero });
    }
    return { currency, days };
  });
}

export function PreviewView({ preview, what }: { preview: PreviewAnswer; what: string }) {
  const charts = everyDayByCurrency(preview.perDay);
  return (
    <div data-testid="preview">
      <p role="status">
        Preview <code data-testid="preview-id">{preview.previewId}</code> of {what}
        {preview.fromVersion !== undefined ? ` (from version ${preview.fromVersion})` : ''}: {preview.moved} of {preview.covered} unsent
        release(s) would move{preview.refused ? `; the gateway would refuse ${preview.refused} as they stand` : ''}. Nothing has changed yet;
        the preview can be applied until {indiaTime(preview.expiresAt)}.
        {preview.omitted > 0 ? ` ${preview.omitted} more release(s) are left out of the list below (the day totals count them).` : ''}
      </p>
      <Table
        caption="Releases that would move, or that the gateway would refuse"
        testId="preview-releases"
        headers={['Order', 'Vendor', 'State', 'Amount', 'Target eligibility now', 'Target eligibility after', 'Predicted settlement now', 'Predicted settlement after', 'Gateway would refuse']}
        empty="none: no unsent release would move."
        rows={preview.releases.map((r) => ({
          key: `${r.orderId}/${r.vendorId}`,
          testId: `preview-${r.orderId}`,
          cells: [
            r.orderId, r.vendorId, <span class="state">{r.state}</span>, money(r.amount, r.currency),
            indiaTime(r.current.targetEligibility),
            <span data-testid="candidate-target">{r.dropped ? 'dropped: its order was cancelled, nothing is sent' : indiaTime(r.candidate.targetEligibility)}</span>,
            indiaTime(r.current.predictedSettlement), indiaTime(r.candidate.predictedSettlement),
            <span data-testid="refusal">{r.refusal ?? 'no'}</span>,
          ],
        }))}
      />
      {charts.map(({ currency, days }) => (
        <CompareDaysChart
          key={currency}
          currency={currency}
          title={`Expected settlements per India-time day in ${currency}, now and after the change`}
          days={days.map((d) => d.date)}
          current={{ label: 'now', amounts: days.map((d) => d.current.amount), counts: days.map((d) => d.current.count), color: '#8c959f' }}
          candidate={{ label: 'after', amounts: days.map((d) => d.candidate.amount), counts: days.map((d) => d.candidate.count), color: '#12355b' }}
          testId={charts.length === 1 ? 'preview-chart' : `preview-chart-${currency}`}
        />
      ))}
    </div>
  );
}
