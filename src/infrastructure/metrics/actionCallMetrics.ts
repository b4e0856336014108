import { Gauge, type Metric, type Registry } from 'prom-client';
import { actionCallOutcomes, type ActionCallMetrics, type ActionCallOutcome } from '../../ports/metrics.js';

/** Actions with a label of their own; the others are summed under `action="other"`. */
export const TOP_ACTIONS = 20;
/** Upper bounds of the duration histogram, in seconds (action timeouts are 0.5 to 30 s). */
export const ACTION_DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30] as const;

interface ActionStats {
  outcomes: Record<ActionCallOutcome, number>;
  /** Per bucket of ACTION_DURATION_BUCKETS (not cumulative), then the count above the last bound. */
  buckets: number[];
  sumSeconds: number;
  made: number;
}

const emptyStats = (): ActionStats => ({
  outcomes: Object.fromEntries(actionCallOutcomes.map((o) => [o, 0])) as Record<ActionCallOutcome, number>,
  buckets: new Array<number>(ACTION_DURATION_BUCKETS.length + 1).fill(0),
  sumSeconds: 0,
  made: 0,
});
const volume = (s: ActionStats) => actionCallOutcomes.reduce((n, o) => n + s.outcomes[o], 0);

function addInto(into: ActionStats, s: ActionStats): ActionStats {
  for (const o of actionCallOutcomes) into.outcomes[o] += s.outcomes[o];
  s.buckets.forEach((n, i) => (into.buckets[i]! += n));
  into.sumSeconds += s.sumSeconds;
  into.made += s.made;
  return into;
}

/**
 * `mas_action_calls{action, outcome}` (calls ended since the process started) and the histogram
 * `mas_action_call_duration_seconds{action}` (the calls made). Bounded labels, like the outbound webhook
 * metrics: at each scrape the TOP_ACTIONS actions with the most calls keep their id, the rest are one `other`
 * series, so companies adding actions cannot grow the series without bound. A label is an action id, never a
 * name, an argument or a URL.
 */
export function createActionCallMetrics(registry: Registry): ActionCallMetrics {
  const stats = new Map<string, ActionStats>();
  const grouped = (): Map<string, ActionStats> => {
    const ranked = [...stats.entries()].sort((a, b) => volume(b[1]) - volume(a[1]));
    const out = new Map<string, ActionStats>(ranked.slice(0, TOP_ACTIONS));
    const rest = ranked.slice(TOP_ACTIONS);
    if (rest.length > 0) out.set('other', rest.reduce((sum, [, s]) => addInto(sum, s), emptyStats()));
    return out;
  };
  new Gauge({
    name: 'mas_action_calls',
    help: `Action calls ended since the process started, by action (the ${TOP_ACTIONS} busiest by id, then "other") and outcome (${actionCallOutcomes.join(', ')})`,
    labelNames: ['action', 'outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [action, s] of grouped()) for (const outcome of actionCallOutcomes) this.set({ action, outcome }, s.outcomes[outcome]);
    },
  });
  registry.registerMetric(durationHistogram(grouped));
  return {
    callEnded(actionId, outcome, durationMs) {
      let s = stats.get(actionId);
      if (!s) stats.set(actionId, (s = emptyStats()));
      s.outcomes[outcome] += 1;
      if (durationMs === null) return;
      const seconds = durationMs / 1000;
      const i = ACTION_DURATION_BUCKETS.findIndex((bound) => seconds <= bound);
      s.buckets[i === -1 ? ACTION_DURATION_BUCKETS.length : i]! += 1;
      s.sumSeconds += seconds;
      s.made += 1;
    },
  };
}

const DURATION = 'mas_action_call_duration_seconds';

/**
 * A Prometheus histogram whose series are regrouped at each scrape (prom-client's Histogram keeps a series per
 * label value for ever): the registry only needs `name`, `help`, `type`, `aggregator` and `get()`.
 */
function durationHistogram(grouped: () => Map<string, ActionStats>): Metric {
  const head = { name: DURATION, help: `Duration of the action calls made (succeeded or failed), by action (the ${TOP_ACTIONS} busiest by id, then "other")`, type: 'histogram', aggregator: 'sum' } as const;
  const metric = {
    ...head,
    reset() {},
    async get() {
      const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
      for (const [action, s] of grouped()) {
        let cumulative = 0;
        ACTION_DURATION_BUCKETS.forEach((le, i) => {
          cumulative += s.buckets[i]!;
          values.push({ labels: { action, le }, value: cumulative, metricName: `${DURATION}_bucket` });
        });
        values.push({ labels: { action, le: '+Inf' }, value: s.made, metricName: `${DURATION}_bucket` });
        values.push({ labels: { action }, value: s.sumSeconds, metricName: `${DURATION}_sum` });
        values.push({ labels: { action }, value: s.made, metricName: `${DURATION}_count` });
      }
      return { ...head, values };
    },
  };
  // Not one of prom-client's classes, but what its registry reads of one (registry.js: get, name, type, aggregator).
  return metric as unknown as Metric;
}
