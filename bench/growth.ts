/**
 * Does a webhook cost the same when the store (and a conversation) has grown? Back-to-back rounds of maximum
 * load against one service and one store, first spread over 500 conversations, then all into ONE conversation.
 *
 *   npm run bench:growth                                  (8 + 8 rounds of 10 s, ~4 minutes)
 *   npm run bench:growth -- --seconds=1 --rounds=2        smoke run (or BENCH_SECONDS / BENCH_ROUNDS)
 *   npm run bench:growth -- --rounds=12 --phases=B        phase B alone (or BENCH_PHASES=B), one conversation longer
 *
 * The service runs in its own process (bench/support/processes.ts startService; ALLOW_PRIVATE_PLATFORM_URLS=true
 * for the fake platform, everything else at its defaults, REPLY_BURST_WINDOW_MS included). One company, set up
 * through the HTTP API, with an agent on the builtin LLM (no key) and a knowledge-base document that answers the
 * bench's message, so the reply pipeline answers every burst of every conversation and sends the reply to the
 * fake platform (test/support/fakePlatform.ts, in this process): the reply pipeline is part of the load.
 *
 * Load: autocannon, 32 connections, one request in flight each, signed ~1 KB `inbox` webhooks, each its own
 * message_id. After a warm-up (BENCH_WARMUP_SECONDS, 3), phase A: BENCH_ROUNDS (8) rounds of BENCH_SECONDS (10)
 * over 500 client_ids (500 conversations) back to back; the bench waits until the service is idle; phase B: the
 * same number of rounds, all into one client_id. Per round: 200s/s, p50/p99, the service's RSS
 * (/proc/<pid>/status VmRSS) when the round ends, and its CPU ms per webhook acknowledged (/proc/<pid>/stat, in all
 * and for its four busiest threads): on a machine shared with other jobs the rate follows the CPU the service is
 * given, while CPU per webhook shows whether a message got dearer.
 * Targets: last round / first round ≥ 0.9x in each phase; RSS after the last round ≤ 1.5x RSS after the first.
 */
import { startFakePlatform } from '../test/support/fakePlatform.js';
import { cannon, type CannonResult } from './support/cannon.js';
import { numberOption } from './support/options.js';
import { startService, warningSummary, type Service } from './support/processes.js';
import { trackPlatform } from './support/replyTracker.js';
import { report } from './support/report.js';
import { setUpTenant } from './support/tenant.js';
import { count5xx, cpuMeter, fmt, machine, mib, processCpuSeconds, rssBytes, threadCpuSeconds, threadCpuSpent, waitUntilIdle } from './support/stats.js';

const SECONDS = numberOption('seconds', 'BENCH_SECONDS', 10);
const ROUNDS = Math.max(2, numberOption('rounds', 'BENCH_ROUNDS', 8));
const WARMUP_SECONDS = numberOption('warmup', 'BENCH_WARMUP_SECONDS', 3);
// --phases=B (or BENCH_PHASES=B) runs phase B alone, e.g. with more rounds, to watch one conversation grow.
const PHASE_LETTERS = (process.argv.find((a) => a.startsWith('--phases='))?.slice('--phases='.length) ?? process.env.BENCH_PHASES ?? 'AB').toUpperCase();
const PHASES = (['A', 'B'] as const).filter((p) => PHASE_LETTERS.includes(p));
const CONNECTIONS = 32;
const CONVERSATIONS = 500;
const IDLE_TIMEOUT_MS = 180_000;
const GOALS = { ratio: 0.9, rss: 1.5 };

interface Round {
  phase: 'A' | 'B';
  round: number;
  result: CannonResult;
  rss: number;
  cpu: number;
  /** The service's CPU milliseconds per webhook answered 200 in the round: growth shows here even when a shared machine makes rates noisy. */
  cpuMsPerWebhook: number;
}

const ms = (n: number) => fmt(n, n < 10 ? 1 : 0);

async function main() {
  console.log(`growth bench: ${ROUNDS} rounds × ${SECONDS} s over ${CONVERSATIONS} conversations, then ${ROUNDS} into one; ${CONNECTIONS} connections; ${machine()}`);
  const platform = await startFakePlatform({ token: 'bench-growth-token' });
  let service: Service | undefined;
  try {
    service = await startService('growth', { ALLOW_PRIVATE_PLATFORM_URLS: 'true' });
    const tenant = await setUpTenant(service.url, { name: 'Growth Inc', agent: true, platform: { url: platform.url, token: platform.token } });
    // Only counted: the fake's request log would hold every reply of the run.
    const platformSide = trackPlatform(platform, () => undefined, { keep: false });

    let seq = 0;
    const load = (seconds: number, clientOf: (n: number) => string) =>
      cannon({ url: service!.url, path: tenant.webhookPath, connections: CONNECTIONS, seconds, next: () => tenant.message(clientOf(seq++)) });
    const spread = (n: number) => `client-${n % CONVERSATIONS}`;
    const one = () => 'the-one-conversation';

    await load(WARMUP_SECONDS, spread);
    const warmIdleMs = await waitUntilIdle(service.pid, { timeoutMs: IDLE_TIMEOUT_MS });
    console.log(`warm-up ${WARMUP_SECONDS} s; idle again ${fmt(warmIdleMs / 1000, 1)} s later; RSS ${mib(rssBytes(service.pid))}`);

    const rounds: Round[] = [];
    const drains: Record<string, number> = {};
    for (const phase of PHASES) {
      const repliesBefore = platformSide.total;
      for (let r = 1; r <= ROUNDS; r++) {
        const meter = cpuMeter({ service: service.pid });
        const cpuBefore = processCpuSeconds(service.pid);
        const threadsBefore = threadCpuSeconds(service.pid);
        const result = await load(SECONDS, phase === 'A' ? spread : one);
        const cpuMsPerWebhook = (1000 * (processCpuSeconds(service.pid) - cpuBefore)) / result.ok;
        // Which thread a growth is in (HTTP, projections, reactors, workers): its CPU ms per webhook, busiest first.
        const byThread = threadCpuSpent(threadsBefore, threadCpuSeconds(service.pid))
          .slice(0, 4)
          .map(([thread, s]) => `${thread} ${fmt((1000 * s) / result.ok, 2)}`)
          .join(', ');
        const round: Round = { phase, round: r, result, rss: rssBytes(service.pid), cpu: meter().service!, cpuMsPerWebhook };
        rounds.push(round);
        console.log(
          `${phase} ${r}/${ROUNDS}: ${fmt(result.okRate)} webhooks/s (p50 ${ms(result.latency.p50)} / p99 ${ms(result.latency.p99)} / max ${ms(result.latency.max)} ms; ` +
            `non-200 ${result.non200}, errors ${result.errors}, timeouts ${result.timeouts}); RSS ${mib(round.rss)}; cpu ${fmt(round.cpu)}%, ${fmt(cpuMsPerWebhook, 2)} ms per webhook (${byThread})`,
        );
      }
      drains[phase] = await waitUntilIdle(service.pid, { timeoutMs: IDLE_TIMEOUT_MS });
      console.log(`phase ${phase}: ${fmt(platformSide.total - repliesBefore)} replies reached the platform; idle again ${fmt(drains[phase]! / 1000, 1)} s after its last round`);
    }

    const phase = (p: 'A' | 'B') => {
      const rs = rounds.filter((r) => r.phase === p);
      const first = rs[0];
      const last = rs.at(-1);
      if (!first || !last) return undefined;
      return {
        first: first.result.okRate,
        last: last.result.okRate,
        ratio: last.result.okRate / first.result.okRate,
        cpuMs: { first: first.cpuMsPerWebhook, last: last.cpuMsPerWebhook, ratio: last.cpuMsPerWebhook / first.cpuMsPerWebhook },
        rounds: rs,
      };
    };
    const a = phase('A');
    const b = phase('B');
    const phaseChecks = ([[`A (${CONVERSATIONS} conversations)`, a], ['B (one conversation)', b]] as const).flatMap(([label, x]) =>
      x
        ? [
            { metric: `${label}: last / first round`, value: `${fmt(x.last)} / ${fmt(x.first)} = ${fmt(x.ratio, 2)}x`, goal: `≥ ${GOALS.ratio}x`, ok: x.ratio >= GOALS.ratio },
            { metric: `${label}: service CPU ms per webhook, last / first round`, value: `${fmt(x.cpuMs.last, 2)} / ${fmt(x.cpuMs.first, 2)} = ${fmt(x.cpuMs.ratio, 2)}x` },
          ]
        : [],
    );
    const figuresOf = (x: typeof a) =>
      x && {
        ratio: x.ratio,
        webhooksPerSecond: x.rounds.map((r) => Math.round(r.result.okRate)),
        cpuMsPerWebhook: x.rounds.map((r) => Number(r.cpuMsPerWebhook.toFixed(3))),
        p50: x.rounds.map((r) => r.result.latency.p50),
        p99: x.rounds.map((r) => r.result.latency.p99),
      };
    const rssFirst = rounds[0]!.rss;
    const rssLast = rounds.at(-1)!.rss;
    const rssRatio = rssLast / rssFirst;
    const totals = rounds.reduce(
      (t, r) => ({ ok: t.ok + r.result.ok, non200: t.non200 + r.result.non200, s5xx: t.s5xx + count5xx(r.result.statusCodes), errors: t.errors + r.result.errors + r.result.timeouts }),
      { ok: 0, non200: 0, s5xx: 0, errors: 0 },
    );

    console.table(
      rounds.map((r) => ({
        round: `${r.phase}${r.round}`,
        'webhooks/s': fmt(r.result.okRate),
        'p50 ms': ms(r.result.latency.p50),
        'p99 ms': ms(r.result.latency.p99),
        'non-200': r.result.non200,
        RSS: mib(r.rss),
        'CPU ms/webhook': fmt(r.cpuMsPerWebhook, 2),
      })),
    );
    console.log(warningSummary(service.lines));
    report(
      'growth',
      [
        ...phaseChecks,
        { metric: 'RSS after the last round / after the first', value: `${mib(rssLast)} / ${mib(rssFirst)} = ${fmt(rssRatio, 2)}x`, goal: `≤ ${GOALS.rss}x`, ok: rssRatio <= GOALS.rss },
        { metric: 'webhooks answered 200 / non-200 / 5xx / errors+timeouts', value: `${fmt(totals.ok)} / ${totals.non200} / ${totals.s5xx} / ${totals.errors}` },
        { metric: 'replies that reached the platform', value: fmt(platformSide.total) },
      ],
      {
        seconds: SECONDS,
        rounds: ROUNDS,
        connections: CONNECTIONS,
        conversations: CONVERSATIONS,
        phaseA: figuresOf(a),
        phaseB: figuresOf(b),
        rssMiB: { first: rssFirst / 2 ** 20, last: rssLast / 2 ** 20, ratio: rssRatio, perRound: rounds.map((r) => Math.round(r.rss / 2 ** 20)) },
        idleAfterMs: drains,
        totals,
        replies: platformSide.total,
        machine: machine(),
      },
    );
  } finally {
    await service?.dispose();
    await platform.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
