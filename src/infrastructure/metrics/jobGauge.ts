import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { JobMetrics, JobQueue, JobTracker, QueueBacklog, ReplyResult } from '../../ports/metrics.js';

/** Companies named in the backlog series; the others are summed as company_id="other", so labels stay bounded. */
export const BACKLOG_TOP_COMPANIES = 10;
const REPLY_RESULTS: ReplyResult[] = ['replied', 'skipped', 'unanswered', 'dropped', 'backlog', 'failed'];

type State = 'waiting' | 'running';

/**
 * `mas_worker_jobs{queue, company_id, state}`: jobs this process's workers hold, per company. Only companies
 * with a job right now have a series (the gauge is rebuilt from the counts at every scrape), so the label set
 * stays bounded by the worker concurrency, not by the number of tenants.
 */
export function createJobGauge(registry: Registry): JobMetrics {
  const counts = new Map<string, number>();
  const key = (queue: JobQueue, companyId: string, state: State) => `${queue}\u0000${companyId}\u0000${state}`;
  const add = (k: string, delta: number) => {
    const n = (counts.get(k) ?? 0) + delta;
    if (n <= 0) counts.delete(k);
    else counts.set(k, n);
  };

  new Gauge({
    name: 'mas_worker_jobs',
    help: 'Reply and send jobs taken off the bus by this process and not finished, per company: waiting (burst window or its fair share of worker slots) or running',
    labelNames: ['queue', 'company_id', 'state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [k, n] of counts) {
        const [queue, company_id, state] = k.split('\u0000') as [string, string, string];
        this.set({ queue, company_id, state }, n);
      }
    },
  });

  const backlogs = new Map<JobQueue, () => QueueBacklog[]>();
  /** Per queue, the top companies by waiting jobs and "other": [company_id, waiting, oldest age in s]. */
  const backlogRows = (now: number) =>
    [...backlogs].flatMap(([queue, source]) => {
      const rows = source().filter((b) => b.waiting > 0).sort((a, b) => b.waiting - a.waiting);
      const top = rows.slice(0, BACKLOG_TOP_COMPANIES).map((b) => ({ queue, company: b.companyId, waiting: b.waiting, oldest: b.oldestSince }));
      const rest = rows.slice(BACKLOG_TOP_COMPANIES);
      if (rest.length > 0) {
        const oldest = rest.reduce<number | null>((min, b) => (b.oldestSince !== null && (min === null || b.oldestSince < min) ? b.oldestSince : min), null);
        top.push({ queue, company: 'other', waiting: rest.reduce((n, b) => n + b.waiting, 0), oldest });
      }
      return top.map((r) => ({ ...r, ageSeconds: r.oldest === null ? 0 : Math.max(0, (now - r.oldest) / 1000) }));
    });
  new Gauge({
    name: 'mas_queue_backlog',
    help: `Jobs waiting for their turn in this process's fair queues, per company: the ${BACKLOG_TOP_COMPANIES} companies with the most, the rest summed as company_id="other"`,
    labelNames: ['queue', 'company_id'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const r of backlogRows(Date.now())) this.set({ queue: r.queue, company_id: r.company }, r.waiting);
    },
  });
  new Gauge({
    name: 'mas_queue_oldest_wait_seconds',
    help: 'How long the oldest waiting job of a company (same companies as mas_queue_backlog) has waited, from its message',
    labelNames: ['queue', 'company_id'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const r of backlogRows(Date.now())) this.set({ queue: r.queue, company_id: r.company }, r.ageSeconds);
    },
  });
  const outcomes = new Counter({
    name: 'mas_reply_jobs_total',
    help: 'Reply jobs finished, by result: replied, skipped (answered already or by a later message of the burst), unanswered (no agent, no credits, the LLM failed), dropped (a human took over), backlog (handed to people: AI backlog), failed (for good, after every delivery)',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  for (const result of REPLY_RESULTS) outcomes.inc({ result }, 0);
  const latency = new Histogram({
    name: 'mas_reply_latency_seconds',
    help: "From a customer's oldest unanswered message to the AI reply accepted by its channel (sent by this process)",
    buckets: [0.5, 1, 1.5, 2, 3, 5, 10, 30, 60, 120, 300, 600],
    registers: [registry],
  });

  return {
    watchBacklog: (queue, source) => void backlogs.set(queue, source),
    replyFinished: (result) => outcomes.inc({ result }),
    replyDelivered: (seconds) => latency.observe(seconds),
    jobStarted(queue): JobTracker {
      let current: string | null = null;
      const move = (next: string | null) => {
        if (current === next) return;
        if (current) add(current, -1);
        if (next) add(next, 1);
        current = next;
      };
      return {
        waiting: (companyId) => move(key(queue, companyId, 'waiting')),
        running: (companyId) => move(key(queue, companyId, 'running')),
        done: () => move(null),
      };
    },
  };
}
