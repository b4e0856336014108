/**
 * Does one company's flood take the AI answers away from another company? Measured where the customer is: the
 * reply arriving at the messaging platform.
 *
 *   npm run bench:neighbour                         in-process (ROLE=all), 60 s flood, ~4 minutes
 *   npm run bench:neighbour -- --seconds=20         shorter flood (or BENCH_SECONDS)
 *   BENCH_MODE=nats npm run bench:neighbour         ROLE=api + two ROLE=processor instances on NATS JetStream
 *   BENCH_MODE=postgres npm run bench:neighbour     the same on PostgreSQL (DATABASE_URL) and NATS
 *
 * Two companies set up through the HTTP API, each with an agent on an instant OpenAI-compatible fake LLM and a
 * msgplatform integration sending to a fake platform (both in this process, test/support). Every message comes
 * from a new customer (its own conversation), so each one needs its own answer.
 * 1. Baseline: "Quiet Inc" alone sends one message every 500 ms for BENCH_BASELINE_SECONDS (20).
 * 2. Flood: "Noisy Inc" posts as fast as 16 connections allow for BENCH_SECONDS (60) while Quiet Inc keeps
 *    sending one message every 500 ms.
 * 3. The bench waits up to REPLY_WAIT_MS for Quiet Inc's replies, then reads Noisy Inc's outcome counts.
 * Latency: the webhook due (sent) → the reply at the platform; no reply within the wait counts as ∞.
 * Targets: Quiet Inc's p99 during the flood ≤ its baseline p99 + 1 s; every quiet message answered exactly once;
 * no 5xx anywhere.
 */
import { randomUUID } from 'node:crypto';
import { startFakeLlm } from '../test/support/fakeLlm.js';
import { startFakePlatform } from '../test/support/fakePlatform.js';
import { cannon } from './support/cannon.js';
import { numberOption } from './support/options.js';
import { pacedLoad, type PacedResult } from './support/pacedLoad.js';
import { warningSummary } from './support/processes.js';
import { benchMode, deploy, metricValue, progressLine } from './support/replyRig.js';
import { trackLlm, trackPlatform } from './support/replyTracker.js';
import { report } from './support/report.js';
import { count5xx, fmt, machine, mib, rssBytes, summarize } from './support/stats.js';
import { setUpTenant, type Tenant } from './support/tenant.js';

const SECONDS = numberOption('seconds', 'BENCH_SECONDS', 60);
const BASELINE_SECONDS = numberOption('baseline', 'BENCH_BASELINE_SECONDS', 20);
const REPLY_WAIT_MS = numberOption('wait', 'BENCH_REPLY_WAIT_MS', 120_000);
const MODE = benchMode();
const QUIET_EVERY_MS = 500;
const NOISY_CONNECTIONS = 16;
const LLM_KEY = 'sk-bench-neighbour';
const PLATFORM_TOKEN = 'bench-neighbour-token';

/** Quiet Inc: one message every 500 ms, each from a new customer; returns the run and the ids it sent. */
async function quietLoad(url: string, quiet: Tenant, seconds: number, tag: string) {
  const ids: string[] = [];
  const run = await pacedLoad({
    url: url + quiet.webhookPath,
    rate: 1000 / QUIET_EVERY_MS,
    durationMs: seconds * 1000,
    connections: 4,
    timeoutMs: 10_000,
    next: (i) => {
      const id = `quiet-${tag}-${i}`;
      ids.push(id);
      return quiet.message(id, id);
    },
  });
  return { run, ids };
}

function replyLatencies(run: PacedResult, arrived: Map<string, number>) {
  return run.records.map((r) => {
    const at = arrived.get(r.id);
    return r.status === 200 && at !== undefined ? at - r.due : Infinity;
  });
}

async function main() {
  console.log(`neighbour bench (${MODE}): baseline ${BASELINE_SECONDS} s, flood ${SECONDS} s × ${NOISY_CONNECTIONS} connections, ${machine()}`);
  const llm = await startFakeLlm({ apiKey: LLM_KEY, usage: { prompt_tokens: 300, completion_tokens: 40 } });
  // Request logs of the fakes would hold every request of a long flood: keep counts only.
  llm.requests.push = () => 0;
  // When each message's LLM request arrived: splits a reply's latency into before and after the model.
  const { llmIn } = trackLlm(llm);
  const platform = await startFakePlatform({ token: PLATFORM_TOKEN });
  const clientOf = (body: Record<string, unknown>) => (typeof body.client_id === 'string' ? body.client_id : undefined);
  const replies = trackPlatform(platform, clientOf, { keep: false });
  const deployment = await deploy(MODE, 'neighbour');
  const { url } = deployment;
  try {
    const llmConfig = { provider: 'openai' as const, baseUrl: llm.url, apiKey: LLM_KEY, model: 'gpt-4o-mini' };
    const platformRef = { url: platform.url, token: PLATFORM_TOKEN };
    const quiet = await setUpTenant(url, { name: 'Quiet Inc', agent: true, llm: llmConfig, platform: platformRef });
    const noisy = await setUpTenant(url, { name: 'Noisy Inc', agent: true, llm: llmConfig, platform: platformRef });
    const run = randomUUID().slice(0, 8);

    const baseline = await quietLoad(url, quiet, BASELINE_SECONDS, `${run}-base`);
    await replies.waitFor(baseline.ids, 30_000);
    const baselineReply = summarize(replyLatencies(baseline.run, replies.arrived));
    console.log(`baseline: Quiet Inc alone, ${baseline.ids.length} messages, reply p50 ${fmt(baselineReply.p50)} / p99 ${fmt(baselineReply.p99)} ms`);

    let seq = 0;
    const noisyAcked: string[] = [];
    const floodStart = performance.now();
    const sampler = setInterval(() => {
      void progressLine(deployment.metricsUrls)
        .then((line) => console.log(`  t+${fmt((performance.now() - floodStart) / 1000)} s: ${line}; quiet answered ${[...replies.arrived.keys()].filter((k) => k.startsWith(`quiet-${run}-flood`)).length}`))
        .catch(() => {});
    }, 5000);
    const [flood, during] = await Promise.all([
      cannon({
        url,
        path: noisy.webhookPath,
        connections: NOISY_CONNECTIONS,
        seconds: SECONDS,
        next: () => noisy.message(`noisy-${run}-${seq++}`),
        onOk: (id) => noisyAcked.push(id),
      }),
      quietLoad(url, quiet, SECONDS, `${run}-flood`),
    ]);
    const floodMs = performance.now() - floodStart;
    clearInterval(sampler);
    const answeredDuringFlood = [...replies.arrived.keys()].filter((k) => k.startsWith('noisy-')).length;
    const missing = await replies.waitFor(during.ids, REPLY_WAIT_MS);
    const floodReply = summarize(replyLatencies(during.run, replies.arrived));
    const toLlm = summarize(replyLatencies(during.run, llmIn));
    const afterLlm = summarize(during.run.records.map((r) => (replies.arrived.get(r.id) ?? Infinity) - (llmIn.get(r.id) ?? 0)));
    const quietIds = [...baseline.ids, ...during.ids];
    const duplicates = quietIds.filter((id) => (replies.counts.get(id) ?? 0) > 1).length;
    const noisyAnswered = [...replies.arrived.keys()].filter((k) => k.startsWith('noisy-')).length;
    const rss = deployment.children.map((c) => `${c.name} ${mib(rssBytes(c.pid))}`).join(', ');
    const metricLines = async (name: string) => (await Promise.all(deployment.metricsUrls.map((u) => metricValue(u, name).catch(() => [])))).flat();
    const backlog = await metricLines('mas_queue_backlog{queue="reply"');
    const outcomes = await metricLines('mas_reply_jobs_total');
    const fivexx = count5xx(flood.statusCodes) + count5xx(baseline.run.statusCounts) + count5xx(during.run.statusCounts);

    console.log(`flood: Noisy Inc ${fmt(flood.okRate)} acks/s, ${flood.ok} acknowledged, statuses ${JSON.stringify(flood.statusCodes)}, errors ${flood.errors}, timeouts ${flood.timeouts}`);
    console.log(`flood: Quiet Inc ${during.ids.length} messages, reply p50 ${fmt(floodReply.p50)} / p99 ${fmt(floodReply.p99)} / max ${fmt(floodReply.max)} ms, ${missing.length} unanswered ${REPLY_WAIT_MS / 1000} s after the flood`);
    console.log(`  of which webhook → LLM request p50 ${fmt(toLlm.p50)} / p99 ${fmt(toLlm.p99)} ms; LLM request → platform p50 ${fmt(afterLlm.p50)} / p99 ${fmt(afterLlm.p99)} ms`);
    console.log(`Noisy Inc: ${noisyAcked.length} acknowledged, ${answeredDuringFlood} answered during the flood (${fmt(answeredDuringFlood / (floodMs / 1000))}/s), ${noisyAnswered} answered by the end`);
    if (outcomes.length > 0) console.log(`reply outcomes (service metrics):\n  ${outcomes.join('\n  ')}`);
    if (backlog.length > 0) console.log(`backlog at the end:\n  ${backlog.slice(0, 12).join('\n  ')}`);
    console.log(`RSS at the end: ${rss}`);
    for (const child of deployment.children) console.log(`${child.name}: ${warningSummary(child.lines)}`);

    report(
      `neighbour-${MODE}`,
      [
        { metric: 'Quiet Inc reply p99, alone (baseline)', value: `${fmt(baselineReply.p99)} ms` },
        { metric: 'Quiet Inc reply p50 during the flood', value: `${fmt(floodReply.p50)} ms` },
        { metric: 'Quiet Inc reply p99 during the flood', value: `${fmt(floodReply.p99)} ms`, goal: `≤ ${fmt(baselineReply.p99 + 1000)} ms (baseline + 1 s)`, ok: floodReply.p99 <= baselineReply.p99 + 1000 },
        { metric: 'Quiet Inc messages answered exactly once', value: `${quietIds.length - missing.length - duplicates} of ${quietIds.length} (${duplicates} twice)`, goal: 'all', ok: missing.length === 0 && duplicates === 0 },
        { metric: '5xx answers', value: String(fivexx), goal: '0', ok: fivexx === 0 },
        { metric: 'Noisy Inc acknowledged / answered', value: `${noisyAcked.length} / ${noisyAnswered}` },
        { metric: 'RSS at the end', value: rss },
      ],
      { mode: MODE, baselineReply, floodReply, noisyAcked: noisyAcked.length, noisyAnswered, answeredDuringFlood, floodAcksPerSecond: flood.okRate, fivexx, duplicates, missing: missing.length },
    );
  } finally {
    await deployment.stop();
    await platform.close();
    await llm.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});

