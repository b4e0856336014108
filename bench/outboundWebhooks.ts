/**
 * Outbound webhook benchmark: 100 endpoints, one of them hanging, while the service ingests at half its rate.
 *
 *   npm run bench:webhooks-out                                 (tsx bench/outboundWebhooks.ts, ~2 minutes)
 *   BENCH_SECONDS=5 BENCH_LOAD_SECONDS=10 npm run bench:webhooks-out   quicker
 *
 * The service (`src/main.ts`, embedded defaults, fresh DATA_DIR, ALLOW_PRIVATE_PLATFORM_URLS so loopback receivers
 * are allowed, delivery settings at their defaults) runs in its own process; the load generator and every receiver
 * run in this one.
 *
 * 1. Maximum: autocannon, 32 connections, on a company that has no endpoint (3 s warm-up, then BENCH_SECONDS),
 *    as bench:webhooks measures it. Its rate is the service's maximum now.
 * 2. Endpoints: BENCH_COMPANIES (10) companies with BENCH_ENDPOINTS / BENCH_COMPANIES endpoints each (100 in all;
 *    at most 20 per company), every event type. One endpoint of the first company points at a server that accepts
 *    the connection and never answers (bench/support/hangingServer.ts); the others at receivers that verify each
 *    delivery with the `standardwebhooks` package and answer 204.
 * 3. The end-to-end rate: as many webhooks as the service takes in BENCH_BURST_SECONDS (4) s, closed loop over the
 *    companies, then until every healthy endpoint has every public event of its company (step 5's check): the
 *    webhooks ÷ the time from the first one to the last delivery. It is the rate at which the service finishes
 *    what a webhook asks of it with these endpoints (acknowledge, project, answer, deliver), where step 1's is the
 *    rate at which it acknowledges alone.
 * 4. Load: half the service's rate, open loop (evenly spaced, bench/support/pacedLoad.ts), spread evenly over the
 *    companies' integrations, for BENCH_LOAD_SECONDS (20) s; each message a new one, 200 customers per company.
 *    "Its rate" is step 3's (BENCH_RATE_OF=end-to-end, the default) or step 1's (BENCH_RATE_OF=acknowledgements:
 *    the acknowledgement rate without endpoints, which asks ~16 deliveries per webhook of the same two cores;
 *    bench/README.md, "What half its rate halves").
 * 5. Drain: until the service is idle again and deliveries stop arriving (15 s without one, at most 5 minutes);
 *    then every healthy endpoint must hold every public event of its company (the count of the events feed,
 *    GET /api/events), each verified.
 *
 * Lag: a public event's time (`timestamp`, when the domain event was recorded) → the receiver got its first
 * delivery. "The hanging endpoint delayed nothing": the healthy endpoints of its own company have the lag of the
 * other companies' (both under the target), and none of them misses an event.
 */
import { randomUUID } from 'node:crypto';
import { cannon } from './support/cannon.js';
import { startHangingServer } from './support/hangingServer.js';
import { inboundBody, signedHeaders } from './support/inbound.js';
import { numberOption } from './support/options.js';
import { pacedLoad, type PacedResult } from './support/pacedLoad.js';
import { startService, warningSummary } from './support/processes.js';
import { report, type Row } from './support/report.js';
import { signUp } from './support/serviceApi.js';
import { cpuMeter, fmt, machine, processCpuSeconds, sleep, summarize, threadCpuSeconds, threadCpuSpent, waitUntilIdle } from './support/stats.js';
import { startWebhookReceivers, type ReceiverLog } from './support/webhookReceivers.js';

const SECONDS = numberOption('seconds', 'BENCH_SECONDS', 10);
const LOAD_SECONDS = numberOption('load-seconds', 'BENCH_LOAD_SECONDS', 20);
const COMPANIES = numberOption('companies', 'BENCH_COMPANIES', 10);
const ENDPOINTS = numberOption('endpoints', 'BENCH_ENDPOINTS', 100);
const BURST_SECONDS = numberOption('burst-seconds', 'BENCH_BURST_SECONDS', 4);
const RATE_OF = process.env.BENCH_RATE_OF ?? 'end-to-end';
if (RATE_OF !== 'end-to-end' && RATE_OF !== 'acknowledgements') throw new Error('BENCH_RATE_OF is end-to-end or acknowledgements');
const CONNECTIONS = 32;
const CUSTOMERS = 200;
const SECRET = 'whsec_bench_inbound_0123456789abcdef';
const GOAL_P99_MS = 1000;
const DRAIN_TIMEOUT_MS = 300_000;
const STALL_MS = 15_000;

const run = randomUUID().slice(0, 8);
let seq = 0;
const message = (secret: string) => {
  const n = seq++;
  const id = `${run}-${n}`;
  const body = inboundBody(id, `client-${n % CUSTOMERS}`);
  return { id, body, headers: signedHeaders(body, secret) };
};
const ms = (n: number) => fmt(n, n < 10 ? 1 : 0);

type Api = Awaited<ReturnType<typeof signUp>>;
interface Company {
  api: Api;
  path: string;
  healthy: { name: string; log: ReceiverLog }[];
}

async function integration(api: Api): Promise<string> {
  const created = await api.call('POST', '/api/integrations', { name: 'Bench', connectorType: 'msgplatform', webhookSecret: SECRET }, 201);
  return `/api/webhook/msgplatform/${created.integration.id as number}`;
}

/** The company's public events, counted through the feed in pages of 200. */
async function feedCount(base: string, api: Api): Promise<number> {
  let n = 0;
  let after = '';
  for (;;) {
    const res = await fetch(`${base}/api/events?limit=200${after ? `&after=${encodeURIComponent(after)}` : ''}`, { headers: { authorization: `Bearer ${api.bearer}` } });
    if (res.status !== 200) throw new Error(`GET /api/events: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as { events: unknown[]; nextCursor: string; hasMore: boolean };
    n += page.events.length;
    if (!page.hasMore) return n;
    after = page.nextCursor;
  }
}

/** How many events of the store the publicEvents projection (the feed deliveries read) has still to apply. */
async function publicEventsLag(base: string): Promise<number> {
  try {
    const text = await (await fetch(`${base}/metrics`)).text();
    return Number(/^mas_projection_lag_positions\{projection="publicEvents"\} (\d+)/m.exec(text)?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

/**
 * The service's CPU per delivery (CPU-seconds of its threads from /proc, which a shared machine inflates far less
 * than it does latencies): gross, everything from the load's start to the last second deliveries arrived in, over
 * the deliveries; net,
 * less what the webhooks ingested meanwhile cost without endpoints (phase 1); and after the load, when the service
 * did nothing but deliver (empty when deliveries kept up with the load).
 */
function cpuPerDelivery(m: { cpuAtStart: Map<string, number>; cpuAtLoadEnd: Map<string, number>; cpuAtEnd: Map<string, number>; delivered: number; deliveredAtLoadEnd: number; webhooks: number; cpuPerWebhook: number }) {
  const total = (spent: [string, number][]) => spent.reduce((a, [, s]) => a + s, 0);
  const all = threadCpuSpent(m.cpuAtStart, m.cpuAtEnd);
  const drainDeliveries = m.delivered - m.deliveredAtLoadEnd;
  const perDelivery = (seconds: number, n: number) => (n > 0 ? (seconds * 1000) / n : Number.NaN);
  return {
    grossMs: perDelivery(total(all), m.delivered),
    netMs: perDelivery(total(all) - m.webhooks * m.cpuPerWebhook, m.delivered),
    drainMs: drainDeliveries >= 1000 ? perDelivery(total(threadCpuSpent(m.cpuAtLoadEnd, m.cpuAtEnd)), drainDeliveries) : Number.NaN,
    drainDeliveries,
    perThread: all.filter(([, s]) => s > 0.05).map(([t, s]) => [t, perDelivery(s, m.delivered)] as [string, number]),
    // After the load a thread's CPU is the deliveries' alone (the gross figure also holds the ingestion's projections).
    drainPerThread: drainDeliveries >= 1000 ? threadCpuSpent(m.cpuAtLoadEnd, m.cpuAtEnd).filter(([, s]) => s > 0.05).map(([t, s]) => [t, perDelivery(s, drainDeliveries)] as [string, number]) : [],
  };
}

const healthyLogs = (companies: Company[]) => companies.flatMap((co) => co.healthy.map((h) => h.log));
const latestArrival = (companies: Company[]) => Math.max(...healthyLogs(companies).map((l) => l.lastAt));

/**
 * Waits until the service is idle and deliveries stop arriving, then counts the public events of each company its
 * healthy endpoints never got (the feed is the truth).
 */
async function drain(service: { url: string; pid: number }, companies: Company[]) {
  const drainMs = await waitUntilIdle(service.pid, { timeoutMs: DRAIN_TIMEOUT_MS });
  const expected = await Promise.all(companies.map((co) => feedCount(service.url, co.api)));
  const missingOf = () => companies.flatMap((co, i) => co.healthy.map((h) => Math.max(0, expected[i]! - h.log.counts.size)));
  // Deliveries go on at low CPU after the service looks idle (they wait on receivers and commits): wait while
  // they still arrive, and give up only after STALL_MS without any.
  const deadline = performance.now() + DRAIN_TIMEOUT_MS;
  while (missingOf().some((m) => m > 0) && performance.now() - latestArrival(companies) < STALL_MS && performance.now() < deadline) await sleep(500);
  return { drainMs, expected, missing: missingOf().reduce((a, b) => a + b, 0) };
}

/**
 * Step 3: the webhooks the service finishes per second with these endpoints, each acknowledged, projected, answered
 * and delivered to every healthy endpoint of its company. The receivers' lags of this step are not kept.
 */
async function endToEndRate(service: { url: string; pid: number }, companies: Company[]) {
  const started = performance.now();
  const results = await Promise.all(
    companies.map((co) =>
      cannon({ url: service.url, path: co.path, connections: Math.max(2, Math.floor(CONNECTIONS / COMPANIES)), seconds: BURST_SECONDS, next: () => message(SECRET) }),
    ),
  );
  const webhooks = results.reduce((n, r) => n + r.ok, 0);
  const { missing, expected } = await drain(service, companies);
  if (missing > 0) throw new Error(`${missing} public events never reached a healthy endpoint after ${webhooks} webhooks at full speed`);
  const seconds = (latestArrival(companies) - started) / 1000;
  for (const log of healthyLogs(companies)) log.lags.length = 0;
  return { webhooks, seconds, rate: webhooks / seconds, events: expected.reduce((a, b) => a + b, 0) };
}

async function main() {
  const perCompany = Math.ceil(ENDPOINTS / COMPANIES);
  console.log(`outbound webhook bench: ${ENDPOINTS} endpoints over ${COMPANIES} companies (${perCompany} each, 1 hanging), ${machine()}`);
  const receivers = await startWebhookReceivers();
  const hanging = await startHangingServer();
  // Up to 50 companies sign up within seconds: above the default sign-up rate limit.
  const service = await startService('hooks-out', { ALLOW_PRIVATE_PLATFORM_URLS: 'true', AUTH_RATE_LIMIT_PER_MINUTE: '10000', AUTH_EMAIL_RATE_LIMIT_PER_MINUTE: '10000' });
  try {
    // 1. The maximum, on a company without endpoints.
    const probe = await signUp(service.url, 'Bench max');
    const probePath = await integration(probe);
    const load = (seconds: number) => cannon({ url: service.url, path: probePath, connections: CONNECTIONS, seconds, next: () => message(SECRET) });
    await load(3);
    await waitUntilIdle(service.pid);
    const maxCpuBefore = processCpuSeconds(service.pid);
    const max = await load(SECONDS);
    await waitUntilIdle(service.pid);
    // What one acknowledged webhook costs the service without any endpoint: subtracted below to see a delivery's own cost.
    const cpuPerWebhook = (processCpuSeconds(service.pid) - maxCpuBefore) / Math.max(1, max.ok);
    console.log(`(1) maximum: ${fmt(max.okRate)} webhooks/s (p99 ${ms(max.latency.p99)} ms, non-200 ${max.non200}, errors ${max.errors})`);

    // 2. The companies and their endpoints.
    const companies: Company[] = [];
    for (let c = 0; c < COMPANIES; c++) {
      const api = await signUp(service.url, `Bench ${c}`);
      const company: Company = { api, path: await integration(api), healthy: [] };
      for (let e = 0; e < perCompany && c * perCompany + e < ENDPOINTS; e++) {
        const name = `c${c}-e${e}`;
        const isHanging = c === 0 && e === 0;
        const url = isHanging ? hanging.url.replace(/\/v1$/, '/hook') : receivers.url(name);
        const created = await api.call('POST', '/api/webhook-endpoints', { url, eventTypes: ['*'], description: name }, 201);
        if (!isHanging) company.healthy.push({ name, log: receivers.arm(name, created.secret as string) });
      }
      companies.push(company);
    }

    // 3. The service's end-to-end rate with these endpoints.
    const e2e = await endToEndRate(service, companies);
    console.log(
      `(3) end to end: ${fmt(e2e.webhooks)} webhooks in ${BURST_SECONDS} s at full speed, the last of their deliveries ${fmt(e2e.seconds, 1)} s after the first webhook: ` +
        `${fmt(e2e.rate)} webhooks/s (${fmt((e2e.rate / max.okRate) * 100)} % of the acknowledgements alone)`,
    );
    const rate = Math.max(1, Math.round((RATE_OF === 'end-to-end' ? e2e.rate : max.okRate) / 2));

    // 4. Half its rate, spread over the companies. Every 5 s: deliveries in that window and the service's CPU.
    const logs = healthyLogs(companies);
    const deliveredBefore = logs.reduce((n, l) => n + l.counts.size, 0);
    const deliveredSoFar = () => logs.reduce((n, l) => n + l.counts.size, 0) - deliveredBefore;
    const timeline: { t: number; deliveries: number; cpu: number; feedLag: number }[] = [];
    let meter = cpuMeter({ service: service.pid });
    let before = 0;
    const sampler = setInterval(() => {
      const now = deliveredSoFar();
      const sample = { t: (timeline.length + 1) * 5, deliveries: now - before, cpu: Math.round(meter().service!), feedLag: Number.NaN };
      timeline.push(sample);
      before = now;
      meter = cpuMeter({ service: service.pid });
      void publicEventsLag(service.url).then((lag) => (sample.feedLag = lag));
    }, 5000);
    const cpuAtStart = threadCpuSeconds(service.pid);
    // The service's CPU as of the last second deliveries arrived in: an idle wait at the end does not count.
    let cpuAtLastDelivery = cpuAtStart;
    let deliveredAtLastSecond = 0;
    const cpuSampler = setInterval(() => {
      const now = deliveredSoFar();
      if (now !== deliveredAtLastSecond) cpuAtLastDelivery = threadCpuSeconds(service.pid);
      deliveredAtLastSecond = now;
    }, 1000);
    const started = performance.now();
    const results: PacedResult[] = await Promise.all(
      companies.map((co) =>
        pacedLoad({
          url: service.url + co.path,
          rate: rate / COMPANIES,
          durationMs: LOAD_SECONDS * 1000,
          connections: Math.max(2, Math.floor(CONNECTIONS / COMPANIES)),
          next: () => message(SECRET),
        }),
      ),
    );
    const loadEnded = performance.now();
    const cpuAtLoadEnd = threadCpuSeconds(service.pid);
    const deliveredAtLoadEnd = deliveredSoFar();

    // 5. Drain, then check every healthy endpoint against its company's feed.
    const { drainMs, expected, missing } = await drain(service, companies);

    clearInterval(sampler);
    clearInterval(cpuSampler);
    const cpuAtEnd = deliveredSoFar() !== deliveredAtLastSecond ? threadCpuSeconds(service.pid) : cpuAtLastDelivery;
    const healthy = logs;
    const lagsOf = (logs: ReceiverLog[]) => summarize(logs.flatMap((l) => l.lags));
    const all = lagsOf(healthy);
    const sameCompany = lagsOf(companies[0]!.healthy.map((h) => h.log));
    const others = lagsOf(companies.slice(1).flatMap((co) => co.healthy.map((h) => h.log)));
    const delivered = deliveredSoFar();
    const lastArrival = Math.max(...healthy.map((l) => l.lastAt));
    const duplicates = healthy.reduce((n, l) => n + [...l.counts.values()].filter((k) => k > 1).length, 0);
    const rejected = healthy.reduce((n, l) => n + l.rejected, 0);
    const acks = summarize(results.flatMap((r) => r.latencies));
    const statuses: Record<string, number> = {};
    for (const r of results) for (const [k, v] of Object.entries(r.statusCounts)) statuses[k] = (statuses[k] ?? 0) + v;
    const events = expected.reduce((a, b) => a + b, 0) - e2e.events;
    const deliveriesPerSecond = delivered / ((lastArrival - started) / 1000);
    const cpu = cpuPerDelivery({ cpuAtStart, cpuAtLoadEnd, cpuAtEnd, delivered, deliveredAtLoadEnd, webhooks: results.reduce((n, r) => n + r.latencies.length, 0), cpuPerWebhook });
    console.log(
      `(4) ${fmt(rate)} webhooks/s for ${LOAD_SECONDS} s over ${COMPANIES} companies: acks p50 ${ms(acks.p50)} / p99 ${ms(acks.p99)} ms, statuses ${JSON.stringify(statuses)}; ` +
        `${fmt(events)} public events; last delivery ${fmt((lastArrival - loadEnded) / 1000, 1)} s after the load ended; service idle ${fmt(drainMs / 1000, 1)} s after it`,
    );
    console.log(
      `    every 5 s from the load's start: deliveries/s (service CPU %, events the public events projection is behind): ` +
        timeline.map((w) => `${fmt(w.deliveries / 5)} (${w.cpu}%, ${fmt(w.feedLag)})`).join(' '),
    );
    console.log(
      `    service CPU per delivery: ${ms(cpu.grossMs)} ms gross (all its CPU from the load's start to the last delivery ÷ deliveries), ` +
        `${ms(cpu.netMs)} ms net of ingestion (${ms(cpuPerWebhook * 1000)} ms per webhook without endpoints); ` +
        `after the load: ${ms(cpu.drainMs)} ms (${fmt(cpu.drainDeliveries)} deliveries)`,
    );
    console.log(`    per thread, ms per delivery (gross): ${cpu.perThread.map(([t, v]) => `${t} ${fmt(v, 3)}`).join('; ')}`);
    console.log(`    per thread, ms per delivery (after the load): ${cpu.drainPerThread.map(([t, v]) => `${t} ${fmt(v, 3)}`).join('; ')}`);
    console.log(`    hanging endpoint: ${hanging.connections} connection(s) accepted, never answered`);

    const rows: Row[] = [
      { metric: 'maximum ingest (no endpoints), webhooks/s', value: fmt(max.okRate) },
      { metric: 'end-to-end rate with the endpoints, webhooks/s (every delivery made)', value: fmt(e2e.rate) },
      { metric: `ingest during the run, webhooks/s (half the ${RATE_OF === 'end-to-end' ? 'end-to-end rate' : 'maximum without endpoints'})`, value: `${fmt(rate)}; acks p99 ${ms(acks.p99)} ms; non-200 ${Object.entries(statuses).filter(([k]) => k !== '200').reduce((n, [, v]) => n + v, 0)}` },
      { metric: `healthy endpoints' lag p50 / p99 / max, ms (${fmt(all.n)} deliveries)`, value: `${ms(all.p50)} / ${ms(all.p99)} / ${ms(all.max)}`, goal: `p99 < ${GOAL_P99_MS} ms`, ok: all.p99 < GOAL_P99_MS },
      { metric: 'deliveries/s (healthy, first arrivals, load start → last arrival)', value: fmt(deliveriesPerSecond) },
      { metric: 'service CPU per delivery, ms: gross / net of ingestion / after the load', value: `${fmt(cpu.grossMs, 3)} / ${fmt(cpu.netMs, 3)} / ${fmt(cpu.drainMs, 3)}` },
      { metric: "hanging endpoint's company: its healthy endpoints' lag p50 / p99", value: `${ms(sameCompany.p50)} / ${ms(sameCompany.p99)}`, goal: `p99 < ${GOAL_P99_MS} ms`, ok: sameCompany.p99 < GOAL_P99_MS },
      { metric: "other companies' endpoints' lag p50 / p99", value: `${ms(others.p50)} / ${ms(others.p99)}`, goal: `p99 < ${GOAL_P99_MS} ms`, ok: others.p99 < GOAL_P99_MS },
      { metric: 'public events missing at a healthy endpoint', value: `${missing} of ${fmt(delivered + missing)}`, goal: '0', ok: missing === 0 },
      { metric: 'deliveries failing verification', value: String(rejected), goal: '0', ok: rejected === 0 },
      { metric: 'deliveries received twice (same webhook-id)', value: String(duplicates) },
    ];
    console.log(warningSummary(service.lines));
    report('webhooks-out', rows, {
      maxRate: max.okRate,
      endToEnd: e2e,
      rateOf: RATE_OF,
      rate,
      acks,
      statuses,
      events,
      lag: { all, sameCompany, others },
      deliveriesPerSecond,
      cpuPerDelivery: cpu,
      cpuPerWebhookMs: cpuPerWebhook * 1000,
      delivered,
      missing,
      duplicates,
      rejected,
      hangingConnections: hanging.connections,
      timeline,
      machine: machine(),
    });
  } finally {
    await service.dispose();
    await receivers.close();
    await hanging.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
