/**
 * Webhook ingestion benchmark: the real service against a bare fastify HMAC route, in the same run.
 *
 *   npm run bench:webhooks                   (tsx bench/webhooks.ts, ~2 minutes)
 *   BENCH_SECONDS=3 npm run bench:webhooks   shorter phases, for a quick look
 *
 * Both servers run in child processes (`node --import tsx …`) on free loopback ports, so the load generator
 * in this process does not share their event loop:
 * - service: `src/main.ts` on embedded defaults (SQLite event store and read models in a fresh DATA_DIR,
 *   in-process bus), LOG_LEVEL=warn, reply and send workers on. The integration has no agent, so every
 *   message is also marked unanswered by the reply pipeline in the background: realistic write load.
 *   Set up through the HTTP API (register, login, create a msgplatform integration with a webhook secret).
 * - baseline: `bench/support/baselineServer.ts`, one fastify POST route that reads the raw body and checks
 *   its HMAC with the service's own verifyWebhookSignature, nothing else.
 *
 * Requests: native `inbox` bodies of ~1 KB, each with its own message_id (never a redelivery), 1,000
 * distinct client_ids (round robin) so conversations spread, signed `x-webhook-signature: sha256=<hex>`.
 *
 * Phase 1, throughput: autocannon, 32 connections, one request in flight each; baseline then service,
 *   BENCH_ROUNDS (2) rounds of BENCH_SECONDS (10) s each, after a 3 s warm-up of both. Medians reported,
 *   ratio taken per round. After each service run the bench waits until the service is idle again (the
 *   reply pipeline has caught up) before the next measurement.
 * Phase 2, latency: open-loop load at half the service's rate in the last phase-1 round (its rate falls as
 *   the store grows, so the latest one is its maximum now): evenly spaced requests, latency counted from when
 *   each request was due (no coordinated omission; autocannon's overallRate sends each second's quota in a
 *   burst at the start of the second, which is why it is not used here), 2 × BENCH_SECONDS, at most 32
 *   connections; the baseline at the same rate for comparison.
 * Then the service is stopped (SIGTERM) and its events.sqlite opened read-only: every message_id answered
 *   200 must be there as exactly one MessageReceived event.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cannon, type CannonResult } from './support/cannon.js';
import { inboundBody, signedHeaders } from './support/inbound.js';
import { pacedLoad, type PacedResult } from './support/pacedLoad.js';
import { jsonLine } from './support/report.js';
import { startChild, tempDir, warnings, type Child } from './support/processes.js';
import { signUp } from './support/serviceApi.js';
import { cpuMeter, fmt, machine, median, summarize, waitUntilIdle } from './support/stats.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = 32;
const CLIENTS = 1000;
const WARMUP_SECONDS = 3;
const LATENCY_SECONDS = 2 * SECONDS;
const SECRET = 'whsec_bench_0123456789abcdef';
const GOALS = { ratio: 0.5, p99Ms: 50, maxAckMs: 3000 };

const run = randomUUID().slice(0, 8);
let seq = 0;
function nextMessage() {
  const n = seq++;
  const id = `${run}-${n}`;
  const body = inboundBody(id, `client-${n % CLIENTS}`);
  return { id, body, headers: signedHeaders(body, SECRET) };
}

const ms = (n: number) => fmt(n, n < 10 ? 1 : 0);
const pct = (n: number) => `${fmt(n)}%`;

async function main() {
  console.log(`webhook bench: ${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s per target, ~${nextMessage().body.length} B bodies, ${machine()}`);
  seq = 0;
  const dataDir = tempDir('webhooks');
  let service: Child | undefined;
  let baseline: Child | undefined;
  try {
    [service, baseline] = await Promise.all([
      startChild({ name: 'service', script: 'src/main.ts', env: { DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'development' }, readyPath: '/readyz' }),
      startChild({ name: 'baseline', script: 'bench/support/baselineServer.ts', env: { WEBHOOK_SECRET: SECRET }, readyPath: '/ready' }),
    ]);
    const company = await signUp(service.url);
    const created = await company.call('POST', '/api/integrations', { name: 'Bench', connectorType: 'msgplatform', webhookSecret: SECRET }, 201);
    const path = `/api/webhook/msgplatform/${created.integration.id as number}`;

    const acked = new Set<string>();
    const onOk = (id: string) => acked.add(id);
    const serviceRuns: CannonResult[] = [];
    const load = (target: Child, seconds: number) =>
      cannon({ url: target.url, path, connections: CONNECTIONS, seconds, next: nextMessage, ...(target === service ? { onOk } : {}) });

    // Warm-up (JIT, SQLite page cache, connections); counted in the durability check, not in the figures.
    await load(baseline, WARMUP_SECONDS);
    serviceRuns.push(await load(service, WARMUP_SECONDS));
    await waitUntilIdle(service.pid);

    // Phase 1: maximum throughput, alternating.
    const rounds: { base: CannonResult; svc: CannonResult; baseCpu: Record<string, number>; svcCpu: Record<string, number>; drainMs: number }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      let meter = cpuMeter({ server: baseline.pid, bench: process.pid });
      const base = await load(baseline, SECONDS);
      const baseCpu = meter();
      meter = cpuMeter({ server: service.pid, bench: process.pid });
      const svc = await load(service, SECONDS);
      const svcCpu = meter();
      serviceRuns.push(svc);
      const drainMs = await waitUntilIdle(service.pid);
      rounds.push({ base, svc, baseCpu, svcCpu, drainMs });
      const line = (c: CannonResult, cpu: Record<string, number>) =>
        `${fmt(c.okRate)} req/s 200 (p50 ${ms(c.latency.p50)} / p99 ${ms(c.latency.p99)} / max ${ms(c.latency.max)} ms; ` +
        `non-200 ${c.non200}, errors ${c.errors}; cpu server ${pct(cpu.server!)}, bench ${pct(cpu.bench!)})`;
      console.log(`(1) round ${r + 1}/${ROUNDS}: baseline ${line(base, baseCpu)}`);
      console.log(`    round ${r + 1}/${ROUNDS}: service  ${line(svc, svcCpu)}; idle again ${fmt(drainMs / 1000, 1)} s later`);
    }
    const throughput = {
      service: median(rounds.map((r) => r.svc.okRate)),
      baseline: median(rounds.map((r) => r.base.okRate)),
      ratio: median(rounds.map((r) => r.svc.okRate / r.base.okRate)),
      serviceP99: median(rounds.map((r) => r.svc.latency.p99)),
      baselineP99: median(rounds.map((r) => r.base.latency.p99)),
    };

    // Phase 2: latency at half the service's maximum rate. The service's rate goes down as its store grows
    // (see the rounds), so the maximum that applies is the one of the latest round, not the median.
    const latestMax = rounds.at(-1)!.svc.okRate;
    const rate = Math.max(1, Math.round(latestMax / 2));
    const paced = (target: Child) =>
      pacedLoad({
        url: target.url + path,
        rate,
        durationMs: LATENCY_SECONDS * 1000,
        connections: CONNECTIONS,
        next: () => nextMessage(),
        ...(target === service ? { onDone: (r: { id: string; status: number }) => r.status === 200 && acked.add(r.id) } : {}),
      });
    let meter = cpuMeter({ server: service.pid, bench: process.pid });
    const svcPaced = await paced(service);
    const svcPacedCpu = meter();
    const pacedDrainMs = await waitUntilIdle(service.pid);
    meter = cpuMeter({ server: baseline.pid, bench: process.pid });
    const basePaced = await paced(baseline);
    const basePacedCpu = meter();
    const lat = { service: summarize(svcPaced.latencies), baseline: summarize(basePaced.latencies) };
    const describe = (p: PacedResult, s: ReturnType<typeof summarize>, cpu: Record<string, number>) =>
      `${fmt(s.n)} answered in ${fmt(p.durationMs / 1000, 1)} s: p50 ${ms(s.p50)} / p99 ${ms(s.p99)} / max ${ms(s.max)} ms; ` +
      `statuses ${JSON.stringify(p.statusCounts)}; cpu server ${pct(cpu.server!)}, bench ${pct(cpu.bench!)}`;
    console.log(`(2) half of the latest round's ${fmt(latestMax)} req/s (the median of the rounds is ${fmt(throughput.service)} req/s)`);
    console.log(`    ${fmt(rate)} req/s for ${LATENCY_SECONDS} s: service  ${describe(svcPaced, lat.service, svcPacedCpu)}; idle again ${fmt(pacedDrainMs / 1000, 1)} s later`);
    console.log(`    ${fmt(rate)} req/s for ${LATENCY_SECONDS} s: baseline ${describe(basePaced, lat.baseline, basePacedCpu)}`);

    // Durability: stop the service, then read its event store file.
    const exitCode = await service.stop();
    await baseline.stop();
    const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
    const stored = new Map<string, number>();
    for (const row of db.prepare(`SELECT data FROM events WHERE type = 'MessageReceived'`).iterate() as Iterable<{ data: string }>) {
      const key = (JSON.parse(row.data) as { dedupeKey: string }).dedupeKey;
      stored.set(key, (stored.get(key) ?? 0) + 1);
    }
    db.close();
    let missing = 0;
    for (const id of acked) if (stored.get(`msg:${id}`) !== 1) missing++;
    const duplicates = [...stored.values()].filter((n) => n > 1).length;
    const storedTotal = [...stored.values()].reduce((a, b) => a + b, 0);
    const unacked = [...stored.keys()].filter((k) => !acked.has(k.slice('msg:'.length))).length;

    const non200 = serviceRuns.reduce((n, c) => n + c.non200, 0) + svcPaced.records.filter((r) => r.status > 0 && r.status !== 200).length;
    const failures = serviceRuns.reduce((n, c) => n + c.errors, 0) + svcPaced.errors + svcPaced.timeouts;
    const maxAck = Math.max(...serviceRuns.map((c) => c.latency.max), lat.service.max);

    const table = [
      {
        metric: '(1) max throughput, 200/s, 32 conns',
        service: fmt(throughput.service),
        baseline: `${fmt(throughput.baseline)} bare fastify + HMAC`,
        ratio: `${fmt(throughput.ratio, 2)}x`,
        goal: `≥ ${GOALS.ratio}x baseline`,
        ok: throughput.ratio >= GOALS.ratio,
      },
      {
        metric: '(1) latency at max, p99 ms',
        service: ms(throughput.serviceP99),
        baseline: ms(throughput.baselineP99),
        ratio: `${fmt(throughput.serviceP99 / throughput.baselineP99, 1)}x`,
        goal: '',
        ok: true,
      },
      {
        metric: `(2) at ${fmt(rate)} req/s: p50 / p99 ms`,
        service: `${ms(lat.service.p50)} / ${ms(lat.service.p99)}`,
        baseline: `${ms(lat.baseline.p50)} / ${ms(lat.baseline.p99)}`,
        ratio: `${fmt(lat.service.p99 / lat.baseline.p99, 1)}x p99`,
        goal: `p99 ≤ ${GOALS.p99Ms} ms`,
        ok: lat.service.p99 <= GOALS.p99Ms,
      },
      {
        metric: 'slowest acknowledgement, ms (all runs)',
        service: ms(maxAck),
        baseline: ms(Math.max(...rounds.map((r) => r.base.latency.max), lat.baseline.max)),
        ratio: '',
        goal: `≤ ${GOALS.maxAckMs} ms, no timeout`,
        ok: maxAck <= GOALS.maxAckMs && failures === 0,
      },
      {
        metric: '200s not durably stored',
        service: `${missing} of ${fmt(acked.size)}`,
        baseline: '',
        ratio: '',
        goal: '0, and 0 non-200',
        ok: missing === 0 && non200 === 0 && duplicates === 0,
      },
    ];
    console.table(table);
    console.log(
      `durability: ${fmt(acked.size)} message_ids answered 200 (warm-up included), ${fmt(storedTotal)} MessageReceived events ` +
        `(${duplicates} message_id stored twice; ${unacked} stored without a 200 seen: in flight when a load run stopped); ` +
        `service non-200 ${non200}, connection errors/timeouts ${failures}; service exit code ${exitCode}`,
    );
    const warned = warnings(service.lines);
    if (warned.length > 0) console.log(`service logged ${warned.length} warning(s)/error(s), first: ${warned.slice(0, 3).join('\n')}`);
    console.log(`(1) medians of ${ROUNDS} rounds of ${SECONDS} s; (2) ${LATENCY_SECONDS} s open loop; ${machine()}`);
    jsonLine(
      'webhooks',
      table.filter((r) => r.goal !== '').map((r) => ({ metric: r.metric, value: r.service, goal: r.goal, ok: r.ok })),
      {
        throughput,
        halfRate: { rate, service: lat.service, baseline: lat.baseline, statuses: svcPaced.statusCounts },
        maxAckMs: maxAck,
        durability: { acked: acked.size, missing, duplicates, non200, failures },
        machine: machine(),
      },
    );
  } finally {
    await service?.stop();
    await baseline?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
