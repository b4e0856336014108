/**
 * Reply pipeline benchmark: from the webhook's 200 to the reply arriving at the messaging platform, with a
 * zero-latency fake LLM and a fake platform, against the bare cost of the two HTTP calls, in the same run.
 *
 *   npm run bench:replies                    (tsx bench/replies.ts, ~1 minute)
 *   BENCH_SECONDS=5 npm run bench:replies    a shorter load phase
 *
 * The service runs in a child process (`node --import tsx src/main.ts`, embedded defaults, fresh DATA_DIR,
 * LOG_LEVEL=warn, ALLOW_PRIVATE_PLATFORM_URLS=true, REPLY_BURST_WINDOW_MS=0). This process hosts the load
 * generator and the two fakes of test/support (real HTTP servers on loopback): fakeLlm (OpenAI-compatible,
 * no delay) and fakePlatform. Set up through the HTTP API: an agent, the company's LLM configuration
 * (provider openai, the fake's base URL and key, model gpt-4o-mini) and a msgplatform integration with the
 * agent, the fake platform's apiUrl/token and a webhook secret.
 *
 * Load: BENCH_RATE (100) signed ~1 KB messages per second, evenly spaced, for BENCH_SECONDS (30) s, each
 * from its own client_id (so every message is answered on its own), after a warm-up of 50 messages.
 * Every time is taken in this process with performance.now(), so all of them share one clock:
 *   ack      the webhook's 200 has fully arrived
 *   llmIn    the fake LLM has read the request body (its `requests` log is appended)
 *   llmOut   the fake LLM computes its answer (its `reply` function runs; the response is written in the same
 *            tick)
 *   platform the fake platform has read the reply (its `received` log is appended)
 * The message is found in the LLM request by the `[ref=<message_id>]` at the start of its text, and in the
 * platform request by its client_id.
 *   end to end           = platform − ack
 *   overhead without LLM = (llmIn − ack) + (platform − llmOut), its two parts (a) and (b) reported too
 * (a) can be negative: the reply pipeline starts when MessageReceived is committed, while the webhook's 200
 * still waits for its delivery-log append. "webhook sent → platform" is reported for that reason too.
 * A message without a reply REPLY_WAIT_MS (30 s) after the load counts as ∞ in every percentile.
 * Baseline, interleaved with the load at BENCH_BASELINE_RATE (20) per second: this process makes the same two
 * calls itself, one after the other, with the payloads the service sent in the warm-up: the LLM request by
 * fetch (keep-alive, as the OpenAI SDK in the service) and the platform POST over a fresh connection (as the
 * service's platform client, which never pools sockets).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startFakeLlm, type ChatCompletionBody } from '../test/support/fakeLlm.js';
import { startFakePlatform } from '../test/support/fakePlatform.js';
import { inboundBody, signedHeaders } from './support/inbound.js';
import { lastUserText, REF, trackLlm, trackPlatform } from './support/replyTracker.js';
import { pacedLoad } from './support/pacedLoad.js';
import { startChild, tempDir, warnings, type Child } from './support/processes.js';
import { signUp } from './support/serviceApi.js';
import { cpuMeter, fmt, machine, sleep, summarize, waitUntilIdle, type Summary } from './support/stats.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const BASELINE_RATE = Number(process.env.BENCH_BASELINE_RATE ?? 20);
const WARMUP_MESSAGES = 50;
const SECRET = 'whsec_bench_replies_0123456789';
const PLATFORM_TOKEN = 'bench-platform-token';
const LLM_KEY = 'sk-bench-replies-key';
const GOAL_OVERHEAD_P99_MS = 5;
const REPLY_WAIT_MS = 30_000;

const run = randomUUID().slice(0, 8);
async function main() {
  console.log(`reply bench: ${RATE} messages/s for ${SECONDS} s, ${machine()}`);
  const llm = await startFakeLlm({ apiKey: LLM_KEY, usage: { prompt_tokens: 300, completion_tokens: 40 } });
  const platform = await startFakePlatform({ token: PLATFORM_TOKEN });
  // Time stamps at the moment each fake has read a request (support/replyTracker.ts); replies by client_id.
  const { llmIn, llmOut } = trackLlm(llm);
  const platformSide = trackPlatform(platform, (body) => (typeof body.client_id === 'string' ? body.client_id : undefined));
  const platformIn = platformSide.arrived;
  const platformCount = platformSide.counts;

  const dataDir = tempDir('replies');
  let service: Child | undefined;
  try {
    service = await startChild({
      name: 'service',
      script: 'src/main.ts',
      env: { DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'development', ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0' },
      readyPath: '/readyz',
    });
    const company = await signUp(service.url);
    const agent = await company.call('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava, a concise support agent of an outdoor shop.', handoffMessage: 'A colleague will reply soon.' }, 201);
    await company.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: llm.url, apiKey: LLM_KEY, model: 'gpt-4o-mini' }, 200);
    const created = await company.call(
      'POST',
      '/api/integrations',
      { name: 'Platform', connectorType: 'msgplatform', apiUrl: platform.url, apiToken: PLATFORM_TOKEN, webhookSecret: SECRET, agentId: agent.agent.id },
      201,
    );
    const webhookUrl = `${service.url}/api/webhook/msgplatform/${created.integration.id as number}`;

    const acked = new Map<string, number>();
    const sentAt = new Map<string, number>();
    const send = (phase: string, rate: number, seconds: number) =>
      pacedLoad({
        url: webhookUrl,
        rate,
        durationMs: seconds * 1000,
        connections: 16,
        next: (i) => {
          const id = `${run}-${phase}-${i}`;
          const body = inboundBody(id, id);
          return { id, body, headers: signedHeaders(body, SECRET) };
        },
        onDone: (r) => {
          sentAt.set(r.id, r.due);
          if (r.status === 200) acked.set(r.id, r.done);
        },
      });
    const waitForReplies = async (ids: string[], timeoutMs: number) => {
      const deadline = performance.now() + timeoutMs;
      while (ids.some((id) => !platformIn.has(id)) && performance.now() < deadline) await sleep(50);
      return ids.filter((id) => !platformIn.has(id)).length;
    };

    // Warm-up: JIT, connections, caches; also gives the payloads the baseline replays.
    const warm = await send('warmup', 25, WARMUP_MESSAGES / 25);
    const warmMissing = await waitForReplies(warm.records.map((r) => r.id), 20_000);
    if (warmMissing > 0) throw new Error(`warm-up: ${warmMissing} of ${warm.records.length} messages got no reply; service log:\n${service.lines.slice(-10).join('\n')}`);
    const llmTemplate = JSON.stringify(llm.completionRequests.at(-1)!.body);
    const platformTemplate = JSON.stringify(platform.messages().at(-1)!);
    const templateRef = REF.exec(lastUserText(llm.completionRequests.at(-1)!.body as ChatCompletionBody))![1]!;
    const lastPlatformClient = String(platform.messages().at(-1)!.client_id);

    // Baseline: the two calls, sequential, from this process.
    const platformUrl = new URL(platform.url);
    const postPlatform = (body: string) =>
      new Promise<void>((resolve, reject) => {
        const req = http.request(
          {
            host: platformUrl.hostname,
            port: platformUrl.port,
            path: '/v1/messages',
            method: 'POST',
            agent: false,
            headers: { authorization: PLATFORM_TOKEN, accept: 'application/json', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            res.on('data', () => {});
            res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`platform answered ${res.statusCode}`))));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const baseline: { llm: number[]; platform: number[]; total: number[] } = { llm: [], platform: [], total: [] };
    let loadDone = false;
    const baselineLoop = async () => {
      const interval = 1000 / BASELINE_RATE;
      for (let k = 0; !loadDone; k++) {
        const started = performance.now();
        const ref = `baseline-${run}-${k}`;
        const llmBody = llmTemplate.split(templateRef).join(ref);
        const platformBody = platformTemplate.split(lastPlatformClient).join(ref);
        const t0 = performance.now();
        const res = await fetch(`${llm.url}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${LLM_KEY}`, 'content-type': 'application/json', accept: 'application/json' },
          body: llmBody,
        });
        await res.json();
        const t1 = performance.now();
        await postPlatform(platformBody);
        const t2 = performance.now();
        baseline.llm.push(t1 - t0);
        baseline.platform.push(t2 - t1);
        baseline.total.push(t2 - t0);
        await sleep(Math.max(0, interval - (performance.now() - started)));
      }
    };

    // The measured run.
    const meter = cpuMeter({ service: service.pid, bench: process.pid });
    const baselineRun = baselineLoop();
    const load = await send('load', RATE, SECONDS);
    loadDone = true;
    await baselineRun;
    const ids = load.records.filter((r) => r.status === 200).map((r) => r.id);
    const missing = await waitForReplies(ids, REPLY_WAIT_MS);
    const cpu = meter();

    const timings = (messageIds: string[]) => {
      const t = { fromSend: [] as number[], e2e: [] as number[], partA: [] as number[], partB: [] as number[], overhead: [] as number[], llm: [] as number[], unmatched: 0 };
      for (const id of messageIds) {
        const ack = acked.get(id)!;
        const tIn = llmIn.get(id);
        const tOut = llmOut.get(id);
        const tPlatform = platformIn.get(id);
        if (tIn === undefined || tOut === undefined || tPlatform === undefined) {
          // No reply within the wait: it counts as infinitely late (∞), so percentiles are not flattered.
          t.unmatched++;
          t.fromSend.push(Infinity);
          t.e2e.push(Infinity);
          t.overhead.push(Infinity);
          t.partA.push(tIn === undefined ? Infinity : tIn - ack);
          if (tOut !== undefined) t.partB.push(Infinity);
          continue;
        }
        t.fromSend.push(tPlatform - sentAt.get(id)!);
        t.e2e.push(tPlatform - ack);
        t.partA.push(tIn - ack);
        t.partB.push(tPlatform - tOut);
        t.overhead.push(tIn - ack + (tPlatform - tOut));
        t.llm.push(tOut - tIn);
      }
      return t;
    };
    const { fromSend, e2e, partA, partB, overhead, llm: llmTime, unmatched } = timings(ids);
    const warmTimings = timings(warm.records.map((r) => r.id));
    // End to end by 5 s window of the load (by when the webhook was sent).
    const loadStart = load.records[0]!.due;
    const windows = new Map<number, string[]>();
    for (const r of load.records) {
      if (r.status !== 200) continue;
      const w = Math.floor((r.due - loadStart) / 5000);
      windows.set(w, [...(windows.get(w) ?? []), r.id]);
    }
    const repeated = ids.filter((id) => (platformCount.get(id) ?? 0) > 1).length;
    const webhookLatency = summarize(load.latencies);
    await waitUntilIdle(service.pid); // redeliveries, charges and delivery records done
    const exitCode = await service.stop();
    // Every reply the LLM produced must have been charged once (ConsumeCredits after AgentReplied).
    const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
    const count = (type: string) => (db.prepare('SELECT COUNT(*) AS n FROM events WHERE type = ?').get(type) as { n: number }).n;
    const replies = count('AgentReplied');
    const charges = count('CreditsConsumed');
    db.close();

    const s = {
      e2e: summarize(e2e),
      fromSend: summarize(fromSend),
      overhead: summarize(overhead),
      partA: summarize(partA),
      partB: summarize(partB),
      llm: summarize(llmTime),
      baseLlm: summarize(baseline.llm),
      basePlatform: summarize(baseline.platform),
      baseTotal: summarize(baseline.total),
    };
    const ms = (n: number) => fmt(n, 2);
    const pair = (x: Summary) => `${ms(x.p50)} / ${ms(x.p99)}`;
    const table = [
      { metric: 'end to end: webhook 200 → platform has the reply', pipeline: pair(s.e2e), baseline: `${pair(s.baseTotal)} (LLM call + platform POST)`, ratio: `${fmt(s.e2e.p99 / s.baseTotal.p99, 1)}x p99`, goal: '', ok: true },
      {
        metric: 'overhead without the LLM: (a) + (b)',
        pipeline: pair(s.overhead),
        baseline: pair(s.baseTotal),
        ratio: `${fmt(s.overhead.p99 / s.baseTotal.p99, 1)}x p99`,
        goal: `p99 ≤ ${GOAL_OVERHEAD_P99_MS} ms`,
        ok: s.overhead.p99 <= GOAL_OVERHEAD_P99_MS,
      },
      { metric: '(a) webhook 200 → LLM request received', pipeline: pair(s.partA), baseline: `${pair(s.baseLlm)} (LLM call)`, ratio: `${fmt(s.partA.p99 / s.baseLlm.p99, 1)}x p99`, goal: '', ok: true },
      { metric: '(b) LLM answer → platform has the reply', pipeline: pair(s.partB), baseline: `${pair(s.basePlatform)} (platform POST)`, ratio: `${fmt(s.partB.p99 / s.basePlatform.p99, 1)}x p99`, goal: '', ok: true },
      { metric: 'webhook sent → platform has the reply', pipeline: pair(s.fromSend), baseline: '', ratio: '', goal: '', ok: true },
      { metric: 'fake LLM: request read → answer', pipeline: pair(s.llm), baseline: '', ratio: '', goal: '', ok: true },
      { metric: 'replies: all, exactly once', pipeline: `${fmt(ids.length - missing)} of ${fmt(ids.length)}`, baseline: '', ratio: '', goal: 'all', ok: missing === 0 && repeated === 0 && unmatched === 0 },
      { metric: 'replies charged (CreditsConsumed)', pipeline: `${fmt(charges)} of ${fmt(replies)}`, baseline: '', ratio: '', goal: 'all', ok: charges === replies },
    ];
    console.table(table);
    console.log(
      `p50 / p99 ms; pipeline max: end to end ${ms(s.e2e.max)}, overhead ${ms(s.overhead.max)}, (a) ${ms(s.partA.max)}, (b) ${ms(s.partB.max)}; ` +
        `baseline max ${ms(s.baseTotal.max)} (${fmt(s.baseTotal.n)} pairs at ${BASELINE_RATE}/s during the load)`,
    );
    console.log(
      `load: ${fmt(load.records.length)} webhooks in ${fmt(load.durationMs / 1000, 1)} s, statuses ${JSON.stringify(load.statusCounts)}, ` +
        `ack p50 ${ms(webhookLatency.p50)} / p99 ${ms(webhookLatency.p99)} / max ${ms(webhookLatency.max)} ms; ${missing} without a reply ${REPLY_WAIT_MS / 1000} s after the load (counted as ∞), ` +
        `${repeated} answered twice, ${unmatched} not matched; cpu service ${fmt(cpu.service!)}%, bench ${fmt(cpu.bench!)}%; service exit code ${exitCode}`,
    );
    console.log(
      `end to end p50 / p99 ms per 5 s of load: ${[...windows.entries()]
        .sort(([a], [b]) => a - b)
        .map(([w, windowIds]) => {
          const x = summarize(timings(windowIds).e2e);
          return `${w * 5}-${w * 5 + 5} s ${ms(x.p50)} / ${ms(x.p99)}`;
        })
        .join('; ')}`,
    );
    const warmS = { e2e: summarize(warmTimings.e2e), overhead: summarize(warmTimings.overhead), partA: summarize(warmTimings.partA), partB: summarize(warmTimings.partB) };
    console.log(
      `warm-up (${WARMUP_MESSAGES} messages at 25/s, not in the table): end to end ${pair(warmS.e2e)}, overhead ${pair(warmS.overhead)}, ` +
        `(a) ${pair(warmS.partA)}, (b) ${pair(warmS.partB)} ms p50 / p99`,
    );
    console.log(`events: ${fmt(replies)} AgentReplied, ${fmt(charges)} CreditsConsumed (warm-up included)`);
    const warned = warnings(service.lines);
    if (warned.length > 0) console.log(`service logged ${warned.length} warning(s)/error(s), first: ${warned.slice(0, 3).join('\n')}`);
    console.log(machine());
    if (table.some((r) => !r.ok)) process.exitCode = 1;
  } finally {
    await service?.stop();
    await llm.close();
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
