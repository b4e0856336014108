import { describe, expect, it } from 'vitest';
import { emptyHistogram, percentile, record, type Histogram } from '../../../../src/projections/analytics/histogram.js';
import { emptyActionDay, type ActionCallDayDoc } from '../../../../src/projections/actionCalls/actionCallsProjection.js';
import { sumActionDays } from '../../../../src/projections/actionCalls/queries.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const lookup = 'a1a1a1a1-0000-4000-8000-000000000001';
const cancel = 'a1a1a1a1-0000-4000-8000-000000000002';
const histogram = (...ms: number[]): Histogram => ms.reduce<Histogram>((h, v) => record(h, v), emptyHistogram());
const day = (actionId: string, name: string, date: string, fill: Partial<ActionCallDayDoc>): ActionCallDayDoc => ({ ...emptyActionDay(company, actionId, name, date), ...fill });

describe('action analytics: given day documents, then the figures per action over the range', () => {
  const days = [
    day(lookup, 'order_status', '2026-03-01', { calls: 10, succeeded: 8, failed: 1, rejected: 1, duration: histogram(100, 200, 200, 300, 300, 300, 400, 400, 500) }),
    day(lookup, 'order_lookup', '2026-03-02', { calls: 2, succeeded: 2, duration: histogram(1000, 2000) }),
    day(cancel, 'cancel_order', '2026-03-02', { calls: 4, approved: 2, refused: 1, expired: 1, failed: 1, succeeded: 1, duration: histogram(800, 900) }),
    // Outside the range: not counted.
    day(cancel, 'cancel_order', '2026-02-28', { calls: 100, failed: 100 }),
    day(lookup, 'order_status', '2026-03-03', { calls: 7, succeeded: 7 }),
  ];

  it('sums each action\'s counters over the days in range, most called first, named as its latest day named it', () => {
    const report = sumActionDays(days, '2026-03-01', '2026-03-02');
    expect(report.byAction.map((a) => [a.actionName, a.calls, a.succeeded, a.failed, a.rejected, a.approved, a.refused, a.expired, a.declined])).toEqual([
      ['order_lookup', 12, 10, 1, 1, 0, 0, 0, 0],
      ['cancel_order', 4, 1, 1, 0, 2, 1, 1, 0],
    ]);
    expect(report.totals).toMatchObject({ calls: 16, succeeded: 11, failed: 2, rejected: 1, approved: 2, refused: 1, expired: 1, declined: 0 });
  });

  it('gives p50 and p95 durations from the summed histograms (the bucket of the true value, within ±12 %)', () => {
    const report = sumActionDays(days, '2026-03-01', '2026-03-02');
    const orders = report.byAction.find((a) => a.actionId === lookup)!;
    // 11 durations: 100 200 200 300 300 300 400 400 500 1000 2000 → the 6th is 300 ms, the 11th (95 %) 2000 ms.
    expect(orders.durationP50Ms).toBe(percentile(record(undefined, 300), 0.5));
    expect(Math.abs(orders.durationP50Ms! - 300) / 300).toBeLessThan(0.12);
    expect(Math.abs(orders.durationP95Ms! - 2000) / 2000).toBeLessThan(0.12);
    expect(report.byAction.find((a) => a.actionId === cancel)!.durationP50Ms).toBe(percentile(record(undefined, 800), 0.5));
  });

  it('an empty range has no rows and no durations', () => {
    const report = sumActionDays(days, '2026-04-01', '2026-04-30');
    expect(report.byAction).toEqual([]);
    expect(report.totals).toMatchObject({ calls: 0, durationP50Ms: null, durationP95Ms: null });
  });
});
