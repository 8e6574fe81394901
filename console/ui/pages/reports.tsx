/** Reports for finance and auditors: prediction accuracy (what was predicted before it settled, and what was not), and rejected events. */
import { useState } from 'preact/hooks';
import { call, withQuery } from '../api';
import { addDays, indiaDay, indiaTime } from '../format';
import { LoadedTable, Section, TextField } from '../form';
import { useLoad } from '../load';

interface AccuracyRow {
  scheduleOption: number;
  settled: number;
  asPredicted: number;
  maxDifferenceMinutes: number;
  predicted?: number;
  unpredicted?: number;
  unpredictedReasons?: Array<{ reason: string; count: number }>;
}

export function AccuracyPage({ now }: { now: string | null }) {
  const today = now ? indiaDay(now) : new Date().toISOString().slice(0, 10);
  const [from, setFrom] = useState(addDays(today, -30));
  const [to, setTo] = useState(today);
  const state = useLoad(async () => (await call<{ scheduleOptions: AccuracyRow[] }>('GET', withQuery('/reports/prediction-accuracy', { from, to }))).scheduleOptions, [from, to]);
  return (
    <>
      <h1>Prediction accuracy</h1>
      <Section title="Range (India-time days, YYYY-MM-DD)">
        <div class="fields">
          <TextField label="From (India time)" field="from" problem={null} value={from} onValue={setFrom} testId="accuracy-from" />
          <TextField label="To (India time)" field="to" problem={null} value={to} onValue={setTo} testId="accuracy-to" />
        </div>
      </Section>
      <LoadedTable
        title="Settlements against predictions, per schedule option"
        sectionTestId="accuracy"
        state={state}
        caption="Only a prediction made before the settlement counts; settlements with none are listed apart, with why"
        headers={['Schedule option', 'Settled', 'Predicted before settling', 'As predicted', 'Largest difference (minutes)', 'Not predicted (why)']}
        empty="no settlement in this range."
        rows={(rows) => rows.map((r) => ({
          key: String(r.scheduleOption),
          testId: `accuracy-${r.scheduleOption}`,
          cells: [
            r.scheduleOption, r.settled, r.predicted ?? r.settled, r.asPredicted, r.maxDifferenceMinutes,
            (r.unpredicted ?? 0) === 0 ? 'none' : (r.unpredictedReasons ?? []).map((u) => `${u.count}: ${u.reason}`).join('; '),
          ],
        }))}
      />
    </>
  );
}

interface RejectedEvent {
  sequence?: number;
  at: string;
  source?: string | null;
  detailType?: string | null;
  reasons?: string[];
}

export function RejectedEventsPage() {
  const state = useLoad(async () => (await call<{ items?: RejectedEvent[]; rejectedEvents?: RejectedEvent[] }>('GET', withQuery('/rejected-events', { limit: '100' }))), []);
  return (
    <>
      <h1>Rejected events</h1>
      <LoadedTable
        title="Events Holdback refused, newest first"
        sectionTestId="rejected-events"
        state={state}
        caption="Each was kept, never half-applied; the reasons name the field and what to send"
        headers={['#', 'Arrived (IST)', 'Source', 'Detail type', 'Why']}
        empty="none: every event was accepted."
        rows={(body) => (body.items ?? body.rejectedEvents ?? []).map((e, i) => ({
          key: String(e.sequence ?? i),
          cells: [e.sequence ?? '—', indiaTime(e.at), e.source ?? '—', e.detailType ?? '—', (e.reasons ?? []).join('; ')],
        }))}
      />
    </>
  );
}
