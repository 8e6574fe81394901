/** Per-day charts (uPlot, bundled): settlements firm and projected stacked, and a preview's days before and after. */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { money } from './format';
import { Table } from './form';

export interface DaySeries {
  label: string;
  /** Decimal text per day, as the API sends it. */
  amounts: string[];
  counts: number[];
  color: string;
}

/** Only for drawing: the numbers in the table under the chart are the API's own decimal text. */
const plotted = (amounts: string[]) => amounts.map((a) => Number(a) || 0);

/** Days are drawn as positions 0..n-1 labelled with their date, so a bar stands for a whole India-time day. */
function drawChart(host: HTMLElement, days: string[], columns: number[][], series: uPlot.Series[], currency: string): uPlot {
  const width = Math.max(320, Math.min(host.clientWidth || 720, 960));
  return new uPlot(
    {
      width,
      height: 240,
      scales: { x: { time: false, range: () => [-0.5, days.length - 0.5] }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [
        { label: 'India-time day (IST, +05:30)', incrs: [1, 2, 5, 7, 10, 15, 30], values: (_u, splits) => splits.map((i) => days[i]?.slice(5) ?? '') },
        { label: `amount (${currency})`, size: 80 },
      ],
      series: [{ label: 'day', value: (_u, i) => (i === null ? '--' : days[i] ?? '--') }, ...series],
      legend: { live: true },
    },
    [days.map((_d, i) => i), ...columns] as uPlot.AlignedData,
    host,
  );
}

/** Drawn again only when what it shows changes (`key`), not at every render of the page. */
function useChart(key: string, build: (host: HTMLElement) => uPlot) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return undefined;
    const chart = build(host.current);
    return () => chart.destroy();
  }, [key]);
  return host;
}

/**
 * Stacked bars: firm (applied at the gateway) at the bottom, projected (planned, not yet sent) on top. uPlot does
 * not stack by itself: the upper bar is drawn at firm + projected, behind the firm one.
 */
export function StackedDaysChart({ title, days, firm, projected, currency = 'INR', testId }: { title: string; days: string[]; firm: DaySeries; projected: DaySeries; currency?: string; testId?: string }) {
  const firmValues = plotted(firm.amounts);
  const total = plotted(projected.amounts).map((v, i) => v + firmValues[i]);
  const bars = uPlot.paths.bars!({ size: [0.7, 60] });
  const host = useChart(JSON.stringify([currency, days, total, firmValues]), (el) => drawChart(el, days, [total, firmValues], [
    { label: `${projected.label} (on top of firm)`, fill: projected.color, stroke: projected.color, paths: bars, points: { show: false } },
    { label: firm.label, fill: firm.color, stroke: firm.color, paths: bars, points: { show: false } },
  ], currency));
  return (
    <figure data-testid={testId}>
      <figcaption>{title}</figcaption>
      <div ref={host} role="img" aria-label={`${title}: bar chart; the table below has the same numbers`} />
      <details>
        <summary>The numbers per day</summary>
        <Table
          caption={title}
          headers={['Day (IST)', `${firm.label} count`, `${firm.label} amount`, `${projected.label} count`, `${projected.label} amount`]}
          rows={days.map((day, i) => ({ key: day, cells: [day, firm.counts[i], money(firm.amounts[i], currency), projected.counts[i], money(projected.amounts[i], currency)] }))}
        />
      </details>
    </figure>
  );
}

/** Bars side by side: the days as they are now, and as the candidate change would make them. */
export function CompareDaysChart({ title, days, current, candidate, currency = 'INR', testId }: { title: string; days: string[]; current: DaySeries; candidate: DaySeries; currency?: string; testId?: string }) {
  const host = useChart(JSON.stringify([currency, days, current.amounts, candidate.amounts]), (el) => drawChart(el, days, [plotted(current.amounts), plotted(candidate.amounts)], [
    { label: current.label, fill: current.color, stroke: current.color, paths: uPlot.paths.bars!({ size: [0.35, 40], align: -1 }), points: { show: false } },
    { label: candidate.label, fill: candidate.color, stroke: candidate.color, paths: uPlot.paths.bars!({ size: [0.35, 40], align: 1 }), points: { show: false } },
  ], currency));
  return (
    <figure data-testid={testId}>
      <figcaption>{title}</figcaption>
      <div ref={host} role="img" aria-label={`${title}: bar chart; the table below has the same numbers`} />
      <details open>
        <summary>The numbers per day</summary>
        <Table
          caption={title}
          testId={testId ? `${testId}-table` : undefined}
          headers={['Day (IST)', `${current.label} count`, `${current.label} amount`, `${candidate.label} count`, `${candidate.label} amount`]}
          rows={days.map((day, i) => ({ key: day, cells: [day, current.counts[i], money(current.amounts[i], currency), candidate.counts[i], money(candidate.amounts[i], currency)] }))}
        />
      </details>
    </figure>
  );
}
