import { Gauge, type Registry } from 'prom-client';
import type { JobMetrics, JobQueue, JobTracker } from '../../ports/metrics.js';

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

  return {
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
