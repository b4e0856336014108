import { addInto, emptyHistogram, percentile, type Histogram } from '../analytics/histogram.js';
import { monthsInRange } from '../../domain/localDay.js';
import type { FindQuery, Page, ReadStore, Scalar } from '../../ports/readStore.js';
import { ACTION_CALL_DAYS, ACTION_CALLS, ACTION_DAY_COUNTERS, type ActionCallDayDoc, type ActionCallDoc, type ActionCallStatus, type ActionDayCounter } from './actionCallsProjection.js';

export interface ActionCallFilter {
  actionId?: string;
  status?: ActionCallStatus;
  conversationId?: string;
}

/** The company's action calls, the most recently requested first, narrowed by action, status and conversation. */
export function listActionCalls(readStore: ReadStore, companyId: string, filter: ActionCallFilter, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<ActionCallDoc>> {
  const where: Record<string, Scalar> = { companyId };
  if (filter.actionId !== undefined) where.actionId = filter.actionId;
  if (filter.status !== undefined) where.status = filter.status;
  if (filter.conversationId !== undefined) where.conversationId = filter.conversationId;
  return readStore.find<ActionCallDoc>(ACTION_CALLS, { where, orderBy: [{ field: 'requestedAt', direction: 'desc' }], limit: page.limit, cursor: page.cursor ?? null });
}

/** One call of the company's, or null (another company's included). */
export async function getActionCall(readStore: ReadStore, companyId: string, callId: string): Promise<ActionCallDoc | null> {
  const doc = await readStore.get<ActionCallDoc>(ACTION_CALLS, callId);
  return doc && doc.companyId === companyId ? doc : null;
}

export type ActionFigures = Record<ActionDayCounter, number> & {
  /** Durations of the calls made (succeeded or failed), from the histogram: within ±12 %. */
  durationP50Ms: number | null;
  durationP95Ms: number | null;
};

export interface ActionAnalytics {
  from: string;
  to: string;
  totals: ActionFigures;
  /** One row per action called in the range, the most called first. */
  byAction: (ActionFigures & { actionId: string; actionName: string })[];
}

interface Sum {
  actionName: string;
  lastDate: string;
  counts: Record<ActionDayCounter, number>;
  duration: Histogram;
}

const zero = () => Object.fromEntries(ACTION_DAY_COUNTERS.map((c) => [c, 0])) as Record<ActionDayCounter, number>;
const figures = (s: Pick<Sum, 'counts' | 'duration'>): ActionFigures => ({ ...s.counts, durationP50Ms: percentile(s.duration, 0.5), durationP95Ms: percentile(s.duration, 0.95) });

/**
 * Sums day documents into per-action figures over `from`…`to` (local dates, both included): pure, so the
 * figures can be checked against known days. An action's name is the one its latest day in the range gave it.
 */
export function sumActionDays(days: ActionCallDayDoc[], from: string, to: string): ActionAnalytics {
  const sums = new Map<string, Sum>();
  const total: Sum = { actionName: '', lastDate: '', counts: zero(), duration: emptyHistogram() };
  for (const day of days) {
    if (day.date < from || day.date > to) continue;
    const sum = sums.get(day.actionId) ?? { actionName: day.actionName, lastDate: day.date, counts: zero(), duration: emptyHistogram() };
    if (day.date >= sum.lastDate) Object.assign(sum, { actionName: day.actionName, lastDate: day.date });
    for (const c of ACTION_DAY_COUNTERS) {
      sum.counts[c] += day[c] ?? 0;
      total.counts[c] += day[c] ?? 0;
    }
    addInto(sum.duration, day.duration);
    addInto(total.duration, day.duration);
    sums.set(day.actionId, sum);
  }
  const byAction = [...sums]
    .map(([actionId, s]) => ({ actionId, actionName: s.actionName, ...figures(s) }))
    .sort((a, b) => b.calls - a.calls || a.actionName.localeCompare(b.actionName));
  return { from, to, totals: figures(total), byAction };
}

const PAGE = 1000;

/**
 * The company's action analytics from `from` to `to` (the caller bounds the range to 366 days). Reads the day
 * documents of the months the range touches, page by page: at most one per action and day.
 */
export async function actionAnalytics(readStore: ReadStore, input: { companyId: string; from: string; to: string }): Promise<ActionAnalytics> {
  const days: ActionCallDayDoc[] = [];
  for (const month of monthsInRange(input.from, input.to)) {
    let cursor: string | null = null;
    do {
      const page: Page<ActionCallDayDoc> = await readStore.find<ActionCallDayDoc>(ACTION_CALL_DAYS, { where: { companyId: input.companyId, month }, limit: PAGE, cursor });
      days.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
  }
  return sumActionDays(days, input.from, input.to);
}
