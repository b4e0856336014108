import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createJobGauge } from '../../src/infrastructure/metrics/jobGauge.js';
import { parseSamples } from '../support/prometheus.js';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';

async function series(registry: Registry) {
  return parseSamples(await registry.metrics())
    .filter((s) => s.name === 'mas_worker_jobs')
    .map((s) => `${s.labels.queue} ${s.labels.company_id === A ? 'A' : 'B'} ${s.labels.state} ${s.value}`)
    .sort();
}

describe('mas_worker_jobs: jobs held per company', () => {
  it('moves a job between waiting and running, counts each job once, and drops a company at 0', async () => {
    const registry = new Registry();
    const jobs = createJobGauge(registry);
    const first = jobs.jobStarted('reply');
    const second = jobs.jobStarted('reply');
    const send = jobs.jobStarted('send');
    first.waiting(A);
    second.waiting(A);
    send.running(B);
    expect(await series(registry)).toEqual(['reply A waiting 2', 'send B running 1']);

    first.running(A);
    first.running(A); // a repeated report moves nothing
    expect(await series(registry)).toEqual(['reply A running 1', 'reply A waiting 1', 'send B running 1']);

    first.done();
    first.done(); // done twice counts once
    second.done();
    expect(await series(registry)).toEqual(['send B running 1']);
    send.done();
    expect(await series(registry)).toEqual([]);
  });

  it('does not count a job whose company is not known yet', async () => {
    const registry = new Registry();
    const job = createJobGauge(registry).jobStarted('send');
    expect(await series(registry)).toEqual([]);
    job.done();
    expect(await series(registry)).toEqual([]);
  });
});

describe('mas_queue_backlog and mas_queue_oldest_wait_seconds: what waits in the fair queues', () => {
  it('given 25 companies waiting, then the 10 with most are named and the other 15 are one "other" series with their sum and oldest age', async () => {
    const registry = new Registry();
    const jobs = createJobGauge(registry);
    const now = Date.now();
    const backlog = Array.from({ length: 25 }, (_, i) => ({ companyId: `company-${i}`, waiting: i + 1, oldestSince: now - (i + 1) * 1000 }));
    jobs.watchBacklog('reply', () => [...backlog, { companyId: 'idle', waiting: 0, oldestSince: null }]);
    const samples = parseSamples(await registry.metrics());
    const depth = samples.filter((s) => s.name === 'mas_queue_backlog');
    expect(depth).toHaveLength(11);
    expect(depth.find((s) => s.labels.company_id === 'company-24')!.value).toBe(25);
    expect(depth.find((s) => s.labels.company_id === 'other')!.value).toBe(((1 + 15) * 15) / 2);
    expect(depth.some((s) => s.labels.company_id === 'idle')).toBe(false);
    const other = samples.find((s) => s.name === 'mas_queue_oldest_wait_seconds' && s.labels.company_id === 'other')!;
    expect(other.value).toBeGreaterThanOrEqual(15);
    expect(other.value).toBeLessThan(20);
  });

  it('counts reply results from 0 and times delivered replies', async () => {
    const registry = new Registry();
    const jobs = createJobGauge(registry);
    jobs.replyFinished('backlog');
    jobs.replyDelivered(1.2);
    const samples = parseSamples(await registry.metrics());
    const results = Object.fromEntries(samples.filter((s) => s.name === 'mas_reply_jobs_total').map((s) => [s.labels.result, s.value]));
    expect(results).toEqual({ replied: 0, skipped: 0, unanswered: 0, dropped: 0, backlog: 1, failed: 0 });
    expect(samples.find((s) => s.name === 'mas_reply_latency_seconds_count')!.value).toBe(1);
    expect(samples.find((s) => s.name === 'mas_reply_latency_seconds_bucket' && s.labels.le === '1.5')!.value).toBe(1);
  });
});
