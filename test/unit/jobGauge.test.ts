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
