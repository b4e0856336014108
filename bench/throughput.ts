/**
 * Does the pipeline answer what it accepts? Replies delivered per second at saturation, against webhook
 * acknowledgements per second measured in the same run.
 *
 *   npm run bench:throughput                        ROLE=all, 45 s of saturation, ~2 minutes
 *   npm run bench:throughput -- --seconds=20        shorter (or BENCH_SECONDS)
 *   BENCH_MODE=nats npm run bench:throughput        ROLE=api + two ROLE=processor instances on NATS JetStream
 *   BENCH_MODE=postgres npm run bench:throughput     the same on PostgreSQL (DATABASE_URL) and NATS
 *
 * One company with an agent on an instant OpenAI-compatible fake LLM and a msgplatform integration sending to a
 * fake platform (both in this process). 16 connections post signed webhooks as fast as the service answers, each
 * message from a new customer (its own conversation, so each needs its own answer). Replies are counted when the
 * fake platform has read them. The first BENCH_WARMUP_SECONDS (10) of the flood are not counted: the pipeline
 * starts empty. Target: replies/s ≥ 0.25 × acknowledgements/s over the same window.
 */
import { randomUUID } from 'node:crypto';
import { startFakeLlm } from '../test/support/fakeLlm.js';
import { startFakePlatform } from '../test/support/fakePlatform.js';
import { cannon } from './support/cannon.js';
import { numberOption } from './support/options.js';
import { warningSummary } from './support/processes.js';
import { benchMode, deploy, metricValue } from './support/replyRig.js';
import { trackPlatform } from './support/replyTracker.js';
import { report } from './support/report.js';
import { count5xx, fmt, machine, mib, rssBytes, sleep } from './support/stats.js';
import { setUpTenant } from './support/tenant.js';

const SECONDS = numberOption('seconds', 'BENCH_SECONDS', 45);
const WARMUP_SECONDS = numberOption('warmup', 'BENCH_WARMUP_SECONDS', 10);
const MODE = benchMode();
const CONNECTIONS = 16;
const LLM_KEY = 'sk-bench-throughput';
const PLATFORM_TOKEN = 'bench-throughput-token';
const GOAL_RATIO = 0.25;

async function main() {
  console.log(`throughput bench (${MODE}): ${SECONDS} s × ${CONNECTIONS} connections (first ${WARMUP_SECONDS} s not counted), ${machine()}`);
  const llm = await startFakeLlm({ apiKey: LLM_KEY, usage: { prompt_tokens: 300, completion_tokens: 40 } });
  llm.requests.push = () => 0;
  llm.reply = () => 'Thanks for your message. Your parcel left our warehouse on Wednesday and should arrive within two days.';
  const platform = await startFakePlatform({ token: PLATFORM_TOKEN });
  const replies = trackPlatform(platform, (body) => (typeof body.client_id === 'string' ? body.client_id : undefined), { keep: false });
  const deployment = await deploy(MODE, 'throughput');
  try {
    const company = await setUpTenant(deployment.url, {
      name: 'Busy Inc',
      agent: true,
      llm: { provider: 'openai', baseUrl: llm.url, apiKey: LLM_KEY, model: 'gpt-4o-mini' },
      platform: { url: platform.url, token: PLATFORM_TOKEN },
    });
    const run = randomUUID().slice(0, 8);
    let seq = 0;
    let acked = 0;
    const flood = cannon({
      url: deployment.url,
      path: company.webhookPath,
      connections: CONNECTIONS,
      seconds: SECONDS,
      next: () => company.message(`busy-${run}-${seq++}`),
      onOk: () => void acked++,
    });
    await sleep(WARMUP_SECONDS * 1000);
    const from = { t: performance.now(), acked, replied: replies.total };
    await sleep((SECONDS - WARMUP_SECONDS) * 1000 - 500);
    const to = { t: performance.now(), acked, replied: replies.total };
    const result = await flood;
    const seconds = (to.t - from.t) / 1000;
    const ackRate = (to.acked - from.acked) / seconds;
    const replyRate = (to.replied - from.replied) / seconds;
    const ratio = replyRate / ackRate;
    const rss = deployment.children.map((c) => `${c.name} ${mib(rssBytes(c.pid))}`).join(', ');
    const outcomes = (await Promise.all(deployment.metricsUrls.map((u) => metricValue(u, 'mas_reply_jobs_total').catch(() => [])))).flat();
    console.log(`flood: ${result.ok} acknowledged in all, statuses ${JSON.stringify(result.statusCodes)}, errors ${result.errors}, timeouts ${result.timeouts}`);
    console.log(`counted window ${fmt(seconds, 1)} s: ${fmt(ackRate)} acks/s, ${fmt(replyRate)} replies/s delivered at the platform`);
    if (outcomes.length > 0) console.log(`reply jobs (service metrics): ${outcomes.join('; ')}`);
    console.log(`RSS: ${rss}`);
    for (const child of deployment.children) console.log(`${child.name}: ${warningSummary(child.lines)}`);
    const fivexx = count5xx(result.statusCodes);
    report(
      `throughput-${MODE}`,
      [
        { metric: 'webhook acknowledgements/s (baseline, same window)', value: fmt(ackRate) },
        { metric: 'replies delivered/s', value: fmt(replyRate) },
        { metric: 'replies ÷ acknowledgements', value: `${fmt(ratio, 2)}x`, goal: `≥ ${GOAL_RATIO}x`, ok: ratio >= GOAL_RATIO },
        { metric: '5xx answers', value: String(fivexx), goal: '0', ok: fivexx === 0 },
      ],
      { mode: MODE, ackRate, replyRate, ratio, acked: result.ok, fivexx },
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
