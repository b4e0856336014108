/**
 * Does answering a message cost the same in a long conversation? The reply pipeline's own overhead (the LLM's
 * time taken out) for message ~10 of a conversation against message ~10,000 of the same conversation.
 *
 *   npm run bench:conversation                                       (10,000 messages; minutes: see README)
 *   npm run bench:conversation -- --messages=300 --samples=6          smoke run (or BENCH_MESSAGES / BENCH_SAMPLES)
 *
 * The service runs in its own process (startService; ALLOW_PRIVATE_PLATFORM_URLS=true, REPLY_BURST_WINDOW_MS=0
 * so each message is answered on its own, everything else at its defaults). One company through the HTTP API:
 * an agent, the company's LLM configuration `openai` pointing at the fake OpenAI-compatible server of
 * test/support/fakeLlm.ts (no delay; it records when it read each request and when it answered), and a
 * msgplatform integration whose replies go to test/support/fakePlatform.ts; both fakes run in this process,
 * so every time below is on one clock (performance.now()).
 *
 * Point 1: after a warm-up (20 messages, each in its own conversation), BENCH_SAMPLES (20) messages are sent
 * into one new conversation one at a time, each after the previous one's reply arrived: messages 1–20.
 * Growth: the same conversation is then filled, 4 connections, without waiting for replies (the pipeline answers
 * the unanswered messages of each moment together), until it holds BENCH_MESSAGES − samples/2 customer messages
 * (at most BENCH_GROW_BUDGET_SECONDS, 600 s: past it the bench measures at the size reached and says so, and the
 * size check fails); the bench then waits until the service is idle (at most 300 s).
 * Point 2: samples messages one at a time again, around message BENCH_MESSAGES (9,991–10,010).
 * Per message: overhead = (reply at the platform − webhook 200) − (LLM answered − LLM read the request).
 * Target: median overhead at point 2 / median at point 1 ≤ 1.2x. A reply missing after 30 s counts as ∞.
 */
import { startFakeLlm } from '../test/support/fakeLlm.js';
import { startFakePlatform } from '../test/support/fakePlatform.js';
import { cannon } from './support/cannon.js';
import { numberOption } from './support/options.js';
import { startService, warningSummary, type Service } from './support/processes.js';
import { REF, trackLlm, trackPlatform } from './support/replyTracker.js';
import { report } from './support/report.js';
import { fmt, machine, median, rssBytes, mib, waitUntilIdle } from './support/stats.js';
import { setUpTenant, type Tenant } from './support/tenant.js';

const TARGET = Math.round(numberOption('messages', 'BENCH_MESSAGES', 10_000));
const SAMPLES = Math.max(2, Math.round(numberOption('samples', 'BENCH_SAMPLES', 20)));
const GROW_BUDGET_MS = numberOption('grow-budget', 'BENCH_GROW_BUDGET_SECONDS', 600) * 1000;
const GROW_CONNECTIONS = 4;
const REPLY_TIMEOUT_MS = 30_000;
const IDLE_TIMEOUT_MS = 300_000;
const GOAL_RATIO = 1.2;
const LLM_KEY = 'sk-bench-conversation-key';

interface Sample {
  status: number;
  /** webhook 200 → reply at the platform, minus the LLM's own time. */
  overhead: number;
  e2e: number;
  llm: number;
  /** webhook 200 → the LLM has read the request. */
  toLlm: number;
  /** the LLM answered → the reply is at the platform. */
  fromLlm: number;
}

const ms = (n: number) => fmt(n, 2);

async function main() {
  console.log(`conversation bench: overhead at messages 1–${SAMPLES} vs around message ${fmt(TARGET)} of one conversation; ${machine()}`);
  const llm = await startFakeLlm({ apiKey: LLM_KEY, usage: { prompt_tokens: 20, completion_tokens: 10 } });
  const llmSide = trackLlm(llm);
  const platform = await startFakePlatform({ token: 'bench-conversation-token' });
  const replies = trackPlatform(platform, (body) => REF.exec(String(body.text ?? ''))?.[1], { keep: false });
  llm.requests.length = 0;
  let service: Service | undefined;
  try {
    service = await startService('conversation', { ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0' });
    const tenant = await setUpTenant(service.url, {
      name: 'Long Talk Inc',
      agent: true,
      llm: { provider: 'openai', baseUrl: llm.url, apiKey: LLM_KEY, model: 'gpt-4o-mini' },
      platform: { url: platform.url, token: platform.token },
    });
    // The fake LLM's request log would hold every prompt of the run: keep it empty (trackLlm has the times).
    const trim = setInterval(() => (llm.requests.length = 0), 1000);
    try {
      await run(service, tenant, llmSide, replies);
    } finally {
      clearInterval(trim);
    }
  } finally {
    await service?.dispose();
    await llm.close();
    await platform.close();
  }
}

async function run(service: Service, tenant: Tenant, llmSide: ReturnType<typeof trackLlm>, replies: ReturnType<typeof trackPlatform>) {
  const url = service.url + tenant.webhookPath;
  /** One message, then its reply; nothing else is in flight. */
  const measureOne = async (clientId: string): Promise<Sample> => {
    const m = tenant.message(clientId);
    let status = 0;
    try {
      const res = await fetch(url, { method: 'POST', headers: m.headers, body: new Uint8Array(m.body), signal: AbortSignal.timeout(10_000) });
      await res.text();
      status = res.status;
    } catch {
      status = -1;
    }
    const ack = performance.now();
    const never = { status, overhead: Infinity, e2e: Infinity, llm: Number.NaN, toLlm: Infinity, fromLlm: Infinity };
    if (status !== 200) return never;
    if ((await replies.waitFor([m.id], REPLY_TIMEOUT_MS)).length > 0) return never;
    const at = replies.arrived.get(m.id)!;
    const llmIn = llmSide.llmIn.get(m.id);
    const llmOut = llmSide.llmOut.get(m.id);
    if (llmIn === undefined || llmOut === undefined) return never;
    return { status, overhead: at - ack - (llmOut - llmIn), e2e: at - ack, llm: llmOut - llmIn, toLlm: llmIn - ack, fromLlm: at - llmOut };
  };
  const measure = async (clientId: string, n: number) => {
    const samples: Sample[] = [];
    for (let i = 0; i < n; i++) {
      samples.push(await measureOne(clientId));
      // A service that no longer answers: do not wait 30 s for each of the remaining samples.
      if (samples.length >= 3 && samples.slice(-3).every((s) => s.overhead === Infinity)) break;
    }
    while (samples.length < n) samples.push({ status: 0, overhead: Infinity, e2e: Infinity, llm: Number.NaN, toLlm: Infinity, fromLlm: Infinity });
    return samples;
  };

  // Warm-up: JIT, connections, caches; each message in its own conversation.
  for (let i = 0; i < 20; i++) await measureOne(`warm-${i}`);

  const conversation = 'the-long-conversation';
  let size = 0;
  const point1 = await measure(conversation, SAMPLES);
  size += SAMPLES;
  console.log(`point 1 (messages 1–${size}): ${describe(point1)}`);

  const growTo = TARGET - Math.floor(SAMPLES / 2);
  const growStart = performance.now();
  let growNon200 = 0;
  let rate = 50; // webhooks/s of the last chunk: chunks of ~5 s, so the budget is checked often
  let lastPrint = 0;
  while (size < growTo && performance.now() - growStart < GROW_BUDGET_MS) {
    const amount = Math.min(growTo - size, Math.max(GROW_CONNECTIONS, Math.round(rate * 5)));
    const chunkStart = performance.now();
    const result = await cannon({
      url: service.url,
      path: tenant.webhookPath,
      connections: Math.min(GROW_CONNECTIONS, amount),
      seconds: 3600, // ignored: `amount` ends the run
      amount,
      next: () => tenant.message(conversation),
    });
    size += result.ok;
    growNon200 += result.non200 + result.errors + result.timeouts;
    rate = Math.max(1, result.ok / ((performance.now() - chunkStart) / 1000));
    if (performance.now() - lastPrint > 30_000 || size >= growTo) {
      lastPrint = performance.now();
      console.log(
        `growth: ${fmt(size)} messages after ${fmt((performance.now() - growStart) / 1000)} s (last chunk ${fmt(rate)} webhooks/s, p99 ${fmt(result.latency.p99)} ms); ` +
          `${growNon200} not answered 200 so far; ${fmt(replies.total)} replies so far; RSS ${mib(rssBytes(service.pid))}`,
      );
    }
  }
  const growSeconds = (performance.now() - growStart) / 1000;
  const idleMs = await waitUntilIdle(service.pid, { timeoutMs: IDLE_TIMEOUT_MS });
  console.log(`grown to ${fmt(size)} messages in ${fmt(growSeconds, 1)} s; idle again ${fmt(idleMs / 1000, 1)} s later`);

  const point2Start = size + 1;
  const point2 = await measure(conversation, SAMPLES);
  size += SAMPLES;
  console.log(`point 2 (messages ${fmt(point2Start)}–${fmt(size)}): ${describe(point2)}`);

  const m1 = median(point1.map((s) => s.overhead));
  const m2 = median(point2.map((s) => s.overhead));
  const ratio = m2 / m1;
  const reached = point2Start + Math.floor(SAMPLES / 2) - 1;
  console.log(warningSummary(service.lines));
  report(
    'conversation',
    [
      { metric: `overhead without the LLM, median: message ~${fmt(reached)} / messages 1–${SAMPLES}`, value: `${ms(m2)} / ${ms(m1)} ms = ${fmt(ratio, 2)}x`, goal: `≤ ${GOAL_RATIO}x`, ok: ratio <= GOAL_RATIO },
      { metric: 'conversation size at point 2 (customer messages)', value: `${fmt(point2Start)}–${fmt(size)}`, goal: `around ${fmt(TARGET)}`, ok: reached >= TARGET },
      { metric: 'webhook 200 → reply at the platform, median (point 1 → 2)', value: `${ms(median(point1.map((s) => s.e2e)))} → ${ms(median(point2.map((s) => s.e2e)))} ms` },
      { metric: '(a) webhook 200 → LLM has the request, median', value: `${ms(median(point1.map((s) => s.toLlm)))} → ${ms(median(point2.map((s) => s.toLlm)))} ms` },
      { metric: '(b) LLM answered → reply at the platform, median', value: `${ms(median(point1.map((s) => s.fromLlm)))} → ${ms(median(point2.map((s) => s.fromLlm)))} ms` },
      { metric: 'growth: time, webhooks not answered 200', value: `${fmt(growSeconds, 1)} s, ${growNon200}` },
    ],
    {
      target: TARGET,
      samples: SAMPLES,
      overheadMs: { point1: m1, point2: m2, ratio },
      point1: summary(point1),
      point2: summary(point2),
      point2Messages: [point2Start, size],
      growth: { seconds: growSeconds, messages: size - 2 * SAMPLES, notOk: growNon200, idleAfterMs: idleMs },
      repliesTotal: replies.total,
      machine: machine(),
    },
  );
}

function summary(samples: Sample[]) {
  const med = (f: (s: Sample) => number) => median(samples.map(f));
  return {
    overhead: med((s) => s.overhead),
    e2e: med((s) => s.e2e),
    llm: med((s) => s.llm),
    toLlm: med((s) => s.toLlm),
    fromLlm: med((s) => s.fromLlm),
    overheadAll: samples.map((s) => Math.round(s.overhead * 100) / 100),
    notAnswered: samples.filter((s) => s.overhead === Infinity).length,
  };
}

function describe(samples: Sample[]) {
  const s = summary(samples);
  return (
    `overhead median ${ms(s.overhead)} ms (min ${ms(Math.min(...samples.map((x) => x.overhead)))}, max ${ms(Math.max(...samples.map((x) => x.overhead)))}); ` +
    `end to end ${ms(s.e2e)}, (a) ${ms(s.toLlm)}, (b) ${ms(s.fromLlm)}, LLM ${ms(s.llm)} ms; ${s.notAnswered} without a reply`
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
