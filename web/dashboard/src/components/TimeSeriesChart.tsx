import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { countOf, formatDay, wholeNumberLabels } from '../lib/format.js';

export interface ChartSeries {
  label: string;
  /** One value per date; null leaves a gap (e.g. no reply measured that day). */
  values: (number | null)[];
  color: string;
  /** Shown next to the label under the chart (a total, a percentile…). */
  summary: string;
  dashed?: boolean;
}

const DAY_S = 86_400;
/** The steps between y labels of a count: whole numbers only (a count of 1.5 conversations means nothing). */
const INTEGER_INCRS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10_000, 20_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000];

const toSeconds = (date: string) => Date.parse(`${date}T00:00:00.000Z`) / 1000;

/**
 * One uPlot line chart over calendar days. The x values are the days' UTC midnights and every label is
 * formatted in UTC, so a day reads as the API's (company-timezone) day whatever the browser's timezone.
 * It follows its container's width (ResizeObserver), so it fits a phone and a desktop alike.
 */
export function TimeSeriesChart({
  title,
  dates,
  series,
  formatValue,
  testId,
  minTop = 1,
  integer = false,
}: {
  title: string;
  dates: string[];
  series: ChartSeries[];
  formatValue: (v: number) => string;
  testId: string;
  /** The y axis reaches at least this high, so an empty or tiny series does not zoom into rounding noise. */
  minTop?: number;
  /** The series are counts: the y axis is labelled in whole numbers. */
  integer?: boolean;
}) {
  const holder = useRef<HTMLDivElement>(null);
  const figure = useRef<HTMLElement>(null);

  useEffect(() => {
    const el = holder.current;
    if (!el) return;
    const width = Math.max(260, Math.floor(el.clientWidth));
    const options: uPlot.Options = {
      width,
      height: 220,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false }, y: { range: (_u, min, max) => [Math.min(0, min ?? 0), Math.max(minTop, (max ?? 0) * 1.1)] } },
      axes: [
        {
          stroke: '#667085',
          grid: { stroke: '#eef0f3' },
          values: (_u, splits) => splits.map((s) => formatDay(new Date(s * 1000).toISOString().slice(0, 10))),
          incrs: [DAY_S, 2 * DAY_S, 7 * DAY_S, 14 * DAY_S, 30 * DAY_S, 61 * DAY_S, 91 * DAY_S],
          space: 60,
        },
        {
          stroke: '#667085',
          grid: { stroke: '#eef0f3' },
          size: 72,
          ...(integer ? { incrs: INTEGER_INCRS } : {}),
          values: (_u, splits) => {
            const labels = integer ? wholeNumberLabels(splits, formatValue) : splits.map((v) => formatValue(v));
            // What the canvas shows, for assistive checks and tests (the labels are drawn, not in the DOM).
            figure.current?.setAttribute('data-y-labels', JSON.stringify(labels.filter((l) => l !== '')));
            return labels;
          },
        },
      ],
      series: [
        {},
        ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, spanGaps: false, points: { show: dates.length <= 31, size: 5 }, ...(s.dashed ? { dash: [6, 4] } : {}) })),
      ],
    };
    const data: uPlot.AlignedData = [dates.map(toSeconds), ...series.map((s) => s.values)];
    const plot = new uPlot(options, data, el);
    const observer = new ResizeObserver(() => {
      const w = Math.max(260, Math.floor(el.clientWidth));
      if (w !== plot.width) plot.setSize({ width: w, height: 220 });
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [dates, series, formatValue, minTop, integer]);

  return (
    <figure className="chart" data-testid={testId} ref={figure}>
      <figcaption className="chart-title">{title}</figcaption>
      <div className="chart-canvas" ref={holder} role="img" aria-label={`${title}, ${countOf(dates.length, 'day')}: ${series.map((s) => `${s.label} ${s.summary}`).join(', ')}`} />
      <ul className="chart-legend">
        {series.map((s) => (
          <li key={s.label} data-testid="chart-legend-item">
            <span className={`chart-swatch${s.dashed ? ' chart-swatch-dashed' : ''}`} style={{ borderColor: s.color }} aria-hidden="true" />
            <span className="chart-legend-label">{s.label}</span> <strong className="chart-legend-value">{s.summary}</strong>
          </li>
        ))}
      </ul>
    </figure>
  );
}
