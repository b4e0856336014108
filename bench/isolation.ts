/**
 * Does one busy conversation (or one tenant's broken LLM) slow down everybody else?
 *
 *   npm run bench:isolation                         (2 scenarios × 60 s, ~3 minutes)
 *   npm run bench:isolation -- --seconds=5          shorter runs (or BENCH_SECONDS)
 *
 * Each scenario runs against a fresh service in its own process (startService, ALLOW_PRIVATE_PLATFORM_URLS=true
 * so integrations and LLM base URLs may point at loopback fakes; every other setting at its default, the 1.5 s
 * reply burst window included) with two companies set up through the HTTP API, each with an agent on the builtin
 * LLM, a knowledge-base document answering the bench's message, and a msgplatform integration whose replies go
 * to one fake platform (test/support/fakePlatform.ts) in this process:
 * - "Hot Inc": 16 connections (autocannon, one request in flight each) post signed ~1 KB webhooks into ONE
 *   conversation for BENCH_SECONDS (60).
 * - "Probe Inc": a probe posts a webhook every 250 ms, each into a new conversation (evenly spaced, latency
 *   from when it was due, 5 s timeout), and the bench waits for each one's reply at the fake platform.
 * - a second probe GETs /healthz every 100 ms (same rules).
 * Scenario 1 "hot conversation": just that. Scenario 2 "hung LLM + 1 MiB upload": Hot Inc's LLM configuration
 * is switched (after the warm-up) to `openai` with a base URL on a local TCP server that accepts connections and
 * never answers (bench/support/hangingServer.ts; LLM_TIMEOUT_MS and retries at their defaults), and Hot Inc
 * uploads a 1 MiB knowledge-base document, deletes it and uploads it again, back to back, for the whole run.
 * Hot Inc's other customers also write, every 250 ms each into a new conversation: the hot conversation itself
 * never leaves its reply burst window while 16 connections post into it (each message is superseded by the next
 * before REPLY_BURST_WINDOW_MS), so without them the hung LLM would not be called during the run.
 * Reported per scenario: probe ack p99 (≤ 250 ms), /healthz p99 (≤ 100 ms), the hot conversation's 200s/s
 * (≥ 100), 5xx answers (0), and Probe Inc's reply latency (its webhook sent → reply at the platform; a reply
 * missing REPLY_WAIT_MS after the run counts as ∞).
 */
import { randomUUID } from 'node:crypto';
import { startFakePlatform } from '../test/support/fakePlatform.js';
import { cannon, type CannonResult } from './support/cannon.js';
import { startHangingServer } from './support/hangingServer.js';
import { bigDocumentContent } from './support/inbound.js';
import { numberOption } from './support/options.js';
import { pacedLoad, type PacedResult } from './support/pacedLoad.js';
import { startService, warningSummary, type Service } from './support/processes.js';
import { trackPlatform } from './support/replyTracker.js';
import { report, type Row } from './support/report.js';
import { count5xx, fmt, machine, summarize, waitUntilIdle, type Summary } from './support/stats.js';
import { setUpTenant } from './support/tenant.js';

const SECONDS = numberOption('seconds', 'BENCH_SECONDS', 60);
const WARMUP_SECONDS = numberOption('warmup', 'BENCH_WARMUP_SECONDS', 3);
const HOT_CONNECTIONS = 16;
const PROBE_EVERY_MS = 250;
const HEALTH_EVERY_MS = 100;
const PROBE_TIMEOUT_MS = 5000;
const REPLY_WAIT_MS = 15_000;
const UPLOAD_BYTES = 1024 * 1024;
const UPLOAD_TIMEOUT_MS = 60_000;
const GOALS = { probeP99Ms: 250, healthP99Ms: 100, hotAcksPerSecond: 100, fivexx: 0 };

interface Uploads {
  done: number;
  failed: number;
  latencies: number[];
  statuses: Record<string, number>;
}

interface ScenarioResult {
  name: string;
  hot: CannonResult;
  probe: PacedResult;
  health: PacedResult;
  probeAck: Summary;
  healthLatency: Summary;
  reply: Summary;
  repliesMissing: number;
  fivexx: number;
  uploads: Uploads | null;
  hangingConnections: number | null;
  log: string;
}

const ms = (n: number) => fmt(n, n < 10 ? 1 : 0);

/** Hot Inc uploads a 1 MiB document, deletes it, uploads it again… until `signal` aborts (each call bounded). */
async function uploadLoop(base: string, bearer: string, signal: AbortSignal): Promise<Uploads> {
  const uploads: Uploads = { done: 0, failed: 0, latencies: [], statuses: {} };
  const body = JSON.stringify({ title: 'Catalogue (1 MiB)', content: bigDocumentContent(UPLOAD_BYTES) });
  const headers = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' };
  while (!signal.aborted) {
    const t0 = performance.now();
    try {
      const bounded = AbortSignal.any([signal, AbortSignal.timeout(UPLOAD_TIMEOUT_MS)]);
      const res = await fetch(`${base}/api/knowledge-base/documents`, { method: 'POST', headers, body, signal: bounded });
      const text = await res.text();
      uploads.statuses[res.status] = (uploads.statuses[res.status] ?? 0) + 1;
      if (res.status !== 201) {
        uploads.failed++;
        continue;
      }
      uploads.done++;
      uploads.latencies.push(performance.now() - t0);
      const id = (JSON.parse(text) as { document: { id: string } }).document.id;
      await fetch(`${base}/api/knowledge-base/documents/${id}`, { method: 'DELETE', headers: { authorization: headers.authorization }, signal: bounded }).then((r) => r.text());
    } catch {
      if (!signal.aborted) uploads.failed++;
    }
  }
  return uploads;
}

async function scenario(name: string, hang: boolean): Promise<ScenarioResult> {
  const platform = await startFakePlatform({ token: 'bench-isolation-token' });
  const replies = trackPlatform(platform, (body) => (typeof body.client_id === 'string' && body.client_id.startsWith('probe-') ? body.client_id : undefined), { keep: false });
  const hanging = hang ? await startHangingServer() : undefined;
  let service: Service | undefined;
  try {
    service = await startService(`isolation-${hang ? 'hang' : 'hot'}`, { ALLOW_PRIVATE_PLATFORM_URLS: 'true' });
    const platformRef = { url: platform.url, token: platform.token };
    const hot = await setUpTenant(service.url, { name: 'Hot Inc', agent: true, platform: platformRef });
    const probe = await setUpTenant(service.url, { name: 'Probe Inc', agent: true, platform: platformRef });
    const hotLoad = (seconds: number) =>
      cannon({ url: service!.url, path: hot.webhookPath, connections: HOT_CONNECTIONS, seconds, next: () => hot.message('the-hot-conversation') });

    await hotLoad(WARMUP_SECONDS);
    await waitUntilIdle(service.pid, { timeoutMs: 60_000 });
    if (hanging) await hot.setLlm({ provider: 'openai', baseUrl: hanging.url, apiKey: 'sk-bench-hanging-llm', model: 'gpt-4o-mini' });

    const run = randomUUID().slice(0, 8);
    const stopUploads = new AbortController();
    const uploads = hang ? uploadLoop(service.url, hot.bearer, stopUploads.signal) : Promise.resolve(null);
    const probeIds: string[] = [];
    // Scenario 2 only: Hot Inc's other conversations, whose replies go to the hung LLM (see the header).
    const hotOthers = hang
      ? pacedLoad({
          url: service.url + hot.webhookPath,
          rate: 1000 / PROBE_EVERY_MS,
          durationMs: SECONDS * 1000,
          connections: 4,
          timeoutMs: PROBE_TIMEOUT_MS,
          next: (i) => hot.message(`hot-other-${run}-${i}`),
        })
      : Promise.resolve(null);
    const [hotRun, probeRun, healthRun, othersRun] = await Promise.all([
      hotLoad(SECONDS),
      pacedLoad({
        url: service.url + probe.webhookPath,
        rate: 1000 / PROBE_EVERY_MS,
        durationMs: SECONDS * 1000,
        connections: 8,
        timeoutMs: PROBE_TIMEOUT_MS,
        next: (i) => {
          const id = `probe-${run}-${i}`;
          probeIds.push(id);
          return probe.message(id, id);
        },
      }),
      pacedLoad({
        url: `${service.url}/healthz`,
        method: 'GET',
        rate: 1000 / HEALTH_EVERY_MS,
        durationMs: SECONDS * 1000,
        connections: 8,
        timeoutMs: PROBE_TIMEOUT_MS,
        next: (i) => ({ id: String(i), body: Buffer.alloc(0), headers: {} }),
      }),
      hotOthers,
    ]);
    stopUploads.abort();
    const uploaded = await uploads;

    const acked = probeRun.records.filter((r) => r.status === 200);
    const missing = await replies.waitFor(acked.map((r) => r.id), REPLY_WAIT_MS);
    // Webhook sent (due) → reply at the platform; no reply (or no 200) counts as ∞.
    const replyLatency = probeRun.records.map((r) => {
      const at = replies.arrived.get(r.id);
      return r.status === 200 && at !== undefined ? at - r.due : Infinity;
    });
    const fivexx = count5xx(hotRun.statusCodes) + count5xx(probeRun.statusCounts) + count5xx(healthRun.statusCounts) + count5xx(othersRun?.statusCounts ?? {});
    const result: ScenarioResult = {
      name,
      hot: hotRun,
      probe: probeRun,
      health: healthRun,
      // Unanswered probes (timeouts, errors) count as ∞: a stalled service must not look fast.
      probeAck: summarize(probeRun.records.map((r) => (r.status > 0 ? r.done - r.due : Infinity))),
      healthLatency: summarize(healthRun.records.map((r) => (r.status > 0 ? r.done - r.due : Infinity))),
      reply: summarize(replyLatency),
      repliesMissing: replyLatency.filter((x) => x === Infinity).length,
      fivexx,
      uploads: uploaded,
      hangingConnections: hanging ? hanging.connections : null,
      log: warningSummary(service.lines),
    };
    console.log(
      `[${name}] hot: ${fmt(hotRun.okRate)} acks/s (p50 ${ms(hotRun.latency.p50)} / p99 ${ms(hotRun.latency.p99)} / max ${ms(hotRun.latency.max)} ms; statuses ${JSON.stringify(hotRun.statusCodes)}, errors ${hotRun.errors}, timeouts ${hotRun.timeouts})`,
    );
    console.log(
      `[${name}] probe: ${probeRun.records.length} webhooks, statuses ${JSON.stringify(probeRun.statusCounts)}, ack p50 ${ms(result.probeAck.p50)} / p99 ${ms(result.probeAck.p99)} / max ${ms(result.probeAck.max)} ms; ` +
        `reply p50 ${ms(result.reply.p50)} / p99 ${ms(result.reply.p99)} ms, ${result.repliesMissing} without a reply ${REPLY_WAIT_MS / 1000} s after the run (${missing.length} of them acknowledged)`,
    );
    console.log(`[${name}] /healthz: ${healthRun.records.length} GETs, statuses ${JSON.stringify(healthRun.statusCounts)}, p50 ${ms(result.healthLatency.p50)} / p99 ${ms(result.healthLatency.p99)} / max ${ms(result.healthLatency.max)} ms`);
    if (othersRun) console.log(`[${name}] Hot Inc's other conversations: ${othersRun.records.length} webhooks, statuses ${JSON.stringify(othersRun.statusCounts)}`);
    if (uploaded) {
      const u = summarize(uploaded.latencies);
      console.log(
        `[${name}] 1 MiB uploads: ${uploaded.done} done (p50 ${ms(u.p50)} / max ${ms(u.max)} ms), ${uploaded.failed} failed, statuses ${JSON.stringify(uploaded.statuses)}; ` +
          `hanging LLM got ${hanging!.connections} connection(s)`,
      );
    }
    console.log(`[${name}] ${result.log}`);
    return result;
  } finally {
    await service?.dispose();
    await hanging?.close();
    await platform.close();
  }
}

function rows(s: ScenarioResult): Row[] {
  const tag = (m: string) => `${s.name}: ${m}`;
  const list: Row[] = [
    { metric: tag('probe webhook ack p99'), value: `${ms(s.probeAck.p99)} ms`, goal: `≤ ${GOALS.probeP99Ms} ms`, ok: s.probeAck.p99 <= GOALS.probeP99Ms },
    { metric: tag('/healthz p99'), value: `${ms(s.healthLatency.p99)} ms`, goal: `≤ ${GOALS.healthP99Ms} ms`, ok: s.healthLatency.p99 <= GOALS.healthP99Ms },
    { metric: tag('hot conversation acks/s'), value: fmt(s.hot.okRate), goal: `≥ ${GOALS.hotAcksPerSecond}`, ok: s.hot.okRate >= GOALS.hotAcksPerSecond },
    { metric: tag('5xx answers'), value: String(s.fivexx), goal: `${GOALS.fivexx}`, ok: s.fivexx === GOALS.fivexx },
    { metric: tag('other tenant reply p50 / p99'), value: `${ms(s.reply.p50)} / ${ms(s.reply.p99)} ms (${s.repliesMissing} missing)` },
  ];
  if (s.uploads) list.push({ metric: tag('1 MiB uploads done / failed'), value: `${s.uploads.done} / ${s.uploads.failed}` });
  return list;
}

const figures = (s: ScenarioResult) => ({
  probeAckMs: { p50: s.probeAck.p50, p99: s.probeAck.p99, max: s.probeAck.max, n: s.probe.records.length, statuses: s.probe.statusCounts },
  healthzMs: { p50: s.healthLatency.p50, p99: s.healthLatency.p99, max: s.healthLatency.max, n: s.health.records.length, statuses: s.health.statusCounts },
  hot: { acksPerSecond: s.hot.okRate, p50: s.hot.latency.p50, p99: s.hot.latency.p99, statuses: s.hot.statusCodes, errors: s.hot.errors, timeouts: s.hot.timeouts },
  fivexx: s.fivexx,
  otherTenantReplyMs: { p50: s.reply.p50, p99: s.reply.p99, max: s.reply.max, missing: s.repliesMissing },
  ...(s.uploads ? { uploads: { done: s.uploads.done, failed: s.uploads.failed, p50Ms: summarize(s.uploads.latencies).p50, statuses: s.uploads.statuses } } : {}),
  ...(s.hangingConnections !== null ? { hangingLlmConnections: s.hangingConnections } : {}),
});

async function main() {
  console.log(`isolation bench: ${SECONDS} s per scenario, ${HOT_CONNECTIONS} connections into one conversation, probes every ${PROBE_EVERY_MS} / ${HEALTH_EVERY_MS} ms; ${machine()}`);
  const quiet = await scenario('hot conversation', false);
  const hung = await scenario('hung LLM + upload', true);
  report('isolation', [...rows(quiet), ...rows(hung)], { seconds: SECONDS, hotConversation: figures(quiet), hungLlmAndUpload: figures(hung), machine: machine() });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
