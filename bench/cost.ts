/**
 * What one answered message costs the service in CPU time: a fixed number of messages (each from a new customer)
 * sent at a fixed, unsaturated rate, then a wait until every reply has reached the platform. Reports the
 * service's CPU milliseconds (user + system, all threads, from /proc) per answered message, which a loaded
 * machine inflates far less than it does rates, so two trees can be compared while other work runs.
 *
 *   npm run bench:cost                          800 messages at 80/s (BENCH_MESSAGES, BENCH_RATE)
 */
import { startFakeLlm } from '../test/support/fakeLlm.js';
import { startFakePlatform } from '../test/support/fakePlatform.js';
import { numberOption } from './support/options.js';
import { deploy } from './support/replyRig.js';
import { trackPlatform } from './support/replyTracker.js';
import { report } from './support/report.js';
import { fmt, machine, processCpuSeconds, sleep, threadCpuSeconds, threadCpuSpent } from './support/stats.js';
import { setUpTenant } from './support/tenant.js';

const MESSAGES = numberOption('messages', 'BENCH_MESSAGES', 800);
const RATE = numberOption('rate', 'BENCH_RATE', 80);
const LLM_KEY = 'sk-bench-cost';
const PLATFORM_TOKEN = 'bench-cost-token';

async function main() {
  console.log(`cost bench: ${MESSAGES} messages at ${RATE}/s, ${machine()}`);
  const llm = await startFakeLlm({ apiKey: LLM_KEY, usage: { prompt_tokens: 300, completion_tokens: 40 } });
  llm.requests.push = () => 0;
  llm.reply = () => 'Thanks for your message. Your parcel left our warehouse on Wednesday and should arrive within two days.';
  const platform = await startFakePlatform({ token: PLATFORM_TOKEN });
  const replies = trackPlatform(platform, (body) => (typeof body.client_id === 'string' ? body.client_id : undefined), { keep: false });
  const deployment = await deploy('all', 'cost');
  try {
    const company = await setUpTenant(deployment.url, {
      name: 'Cost Inc',
      agent: true,
      llm: { provider: 'openai', baseUrl: llm.url, apiKey: LLM_KEY, model: 'gpt-4o-mini' },
      platform: { url: platform.url, token: PLATFORM_TOKEN },
    });
    await sleep(2000);
    const pid = deployment.children[0]!.pid;
    const before = processCpuSeconds(pid);
    const threadsBefore = threadCpuSeconds(pid);
    const started = performance.now();
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < MESSAGES; i++) {
      const due = started + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const m = company.message(`cost-${i}`);
      sends.push(fetch(`${deployment.url}${company.webhookPath}`, { method: 'POST', headers: m.headers, body: new Uint8Array(m.body) }).then((r) => r.arrayBuffer()));
    }
    await Promise.all(sends);
    const deadline = performance.now() + 300_000;
    while (replies.total < MESSAGES && performance.now() < deadline) await sleep(200);
    const cpu = processCpuSeconds(pid) - before;
    const perMessage = (cpu * 1000) / MESSAGES;
    const perThread = threadCpuSpent(threadsBefore, threadCpuSeconds(pid))
      .map(([thread, seconds]) => [thread, (seconds * 1000) / MESSAGES] as const)
      .filter(([, ms]) => ms >= 0.05)
      .sort((a, b) => b[1] - a[1]);
    console.log(`per thread, ms per message: ${perThread.map(([t, ms]) => `${t} ${fmt(ms, 2)}`).join('; ')}`);
    console.log(`answered ${replies.total} of ${MESSAGES} in ${fmt((performance.now() - started) / 1000, 1)} s; service CPU ${fmt(cpu, 1)} s = ${fmt(perMessage, 2)} ms per answered message`);
    report('cost', [{ metric: 'every message answered', value: `${replies.total} / ${MESSAGES}`, goal: `${MESSAGES}`, ok: replies.total >= MESSAGES }], {
      messages: MESSAGES,
      answered: replies.total,
      cpuMsPerMessage: perMessage,
    });
  } finally {
    await deployment.stop();
    await llm.close();
    await platform.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
