import { addInto, countOf, emptyHistogram, percentile, type Histogram } from './histogram.js';
import { datesInRange, monthsInRange } from '../../domain/localDay.js';
import { DEFAULT_TIMEZONE } from '../../domain/company/timezone/state.js';
import type { ReadStore } from '../../ports/readStore.js';
import { ANALYTICS_COMPANIES, ANALYTICS_DAYS, COUNTERS, emptyDay, emptyReasons, type AnalyticsDayDoc, type Counter, type HandoffReasonCounts } from './analyticsDay.js';
import type { AnalyticsCompanyDoc } from './analyticsProjection.js';

export interface FirstResponse {
  /** Replies measured. */
  count: number;
  p50Ms: number | null;
  p90Ms: number | null;
}

export type Series = Record<Counter, number> & {
  /** deliveryFailed + unanswered: replies the customer did not get. */
  repliesFailed: number;
  handoffReasons: HandoffReasonCounts;
  aiFirstResponse: FirstResponse;
  humanFirstResponse: FirstResponse;
  /** The same first responses split by whether the customer's wait began inside or outside business hours. */
  firstResponseByHours: Record<'inHours' | 'outsideHours', { ai: FirstResponse; human: FirstResponse }>;
};

export interface AnalyticsReport {
  timezone: string;
  from: string;
  to: string;
  days: (Series & { date: string })[];
  totals: Series;
}

const firstResponse = (h: Histogram): FirstResponse => ({ count: countOf(h), p50Ms: percentile(h, 0.5), p90Ms: percentile(h, 0.9) });

const minus = (all: Histogram, part: Histogram | undefined): Histogram => all.map((n, i) => n - (part?.[i] ?? 0));

function byHours(doc: AnalyticsDayDoc): Series['firstResponseByHours'] {
  const ai = doc.aiFirstResponseOutsideHours ?? emptyHistogram();
  const human = doc.humanFirstResponseOutsideHours ?? emptyHistogram();
  return {
    inHours: { ai: firstResponse(minus(doc.aiFirstResponse, ai)), human: firstResponse(minus(doc.humanFirstResponse, human)) },
    outsideHours: { ai: firstResponse(ai), human: firstResponse(human) },
  };
}

function seriesOf(doc: AnalyticsDayDoc): Series {
  const counters = Object.fromEntries(COUNTERS.map((c) => [c, doc[c] ?? 0])) as Record<Counter, number>;
  return {
    ...counters,
    repliesFailed: counters.deliveryFailed + counters.unanswered,
    handoffReasons: { ...emptyReasons(), ...doc.handoffReasons },
    aiFirstResponse: firstResponse(doc.aiFirstResponse),
    humanFirstResponse: firstResponse(doc.humanFirstResponse),
    firstResponseByHours: byHours(doc),
  };
}

/** The company's timezone as analytics use it (UTC until one is set). */
export async function analyticsTimezone(readStore: ReadStore, companyId: string): Promise<string> {
  return (await readStore.get<AnalyticsCompanyDoc>(ANALYTICS_COMPANIES, companyId))?.timezone ?? DEFAULT_TIMEZONE;
}

/**
 * One scope's days from `from` to `to` (local dates, both included; the caller bounds the range), every day
 * present (zeros when nothing happened), with totals whose percentiles come from the summed histograms.
 * Reads one bounded page per month the range touches (at most 13 for 366 days).
 */
export async function analyticsReport(readStore: ReadStore, input: { companyId: string; scope: string; from: string; to: string; timezone: string }): Promise<AnalyticsReport> {
  const { companyId, scope, from, to } = input;
  const pages = await Promise.all(
    monthsInRange(from, to).map((month) => readStore.find<AnalyticsDayDoc>(ANALYTICS_DAYS, { where: { companyId, scope, month }, limit: 31 })),
  );
  const byDate = new Map<string, AnalyticsDayDoc>();
  for (const page of pages) for (const doc of page.items) byDate.set(doc.date, doc);

  const total = emptyDay(companyId, scope, from);
  const aiHistogram = emptyHistogram();
  const humanHistogram = emptyHistogram();
  const aiOutside = emptyHistogram();
  const humanOutside = emptyHistogram();
  const days = datesInRange(from, to).map((date) => {
    const doc = byDate.get(date) ?? emptyDay(companyId, scope, date);
    for (const c of COUNTERS) total[c] += doc[c] ?? 0;
    for (const [reason, n] of Object.entries(doc.handoffReasons ?? {})) total.handoffReasons[reason as keyof HandoffReasonCounts] = (total.handoffReasons[reason as keyof HandoffReasonCounts] ?? 0) + n;
    addInto(aiHistogram, doc.aiFirstResponse);
    addInto(humanHistogram, doc.humanFirstResponse);
    addInto(aiOutside, doc.aiFirstResponseOutsideHours);
    addInto(humanOutside, doc.humanFirstResponseOutsideHours);
    return { date, ...seriesOf(doc) };
  });
  total.aiFirstResponse = aiHistogram;
  total.humanFirstResponse = humanHistogram;
  total.aiFirstResponseOutsideHours = aiOutside;
  total.humanFirstResponseOutsideHours = humanOutside;
  return { timezone: input.timezone, from, to, days, totals: seriesOf(total) };
}
