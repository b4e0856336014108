import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPILED_MAIN, healthyAfter, startCompiled, type CompiledServer } from '../support/compiledServer.js';
import { eventually } from '../support/eventually.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { wireCompany } from '../support/faultFixtures.js';
import { freePort } from '../support/serviceProcess.js';

/**
 * Tracing on what `npm start` runs (docs/operations.md, "Tracing"): one customer message is one trace, from the
 * webhook's span on the HTTP thread through the reply and its model call on the replies thread to the send, each
 * thread exporting its own spans to an OTLP/HTTP receiver (this test's, which reads the exporter's JSON).
 */
const PLATFORM_TOKEN = 'platform-token-tracing';
const LLM_KEY = 'sk-fault';
const TEXT = 'Where is my parcel? Mail me at unique-customer-words@example.org';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
  thread: string;
}

let receiver: Server;
const bodies: string[] = [];
const spans: OtlpSpan[] = [];
let platform: FakePlatform;
let llm: FakeLlm;
let dataDir: string;
let proc: CompiledServer;
let base: string;

beforeAll(async () => {
  if (!existsSync(COMPILED_MAIN)) throw new Error(`${COMPILED_MAIN} is missing: run npm run build (npm test's pretest does)`);
  receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += String(d)));
    req.on('end', () => {
      // The OTLP/HTTP exporter posts JSON (ids as hex strings); a protobuf body would not parse here.
      expect(req.url).toBe('/v1/traces');
      expect(req.headers['content-type']).toMatch(/^application\/json/);
      bodies.push(raw);
      for (const rs of JSON.parse(raw).resourceSpans ?? []) {
        const thread = rs.resource.attributes.find((a: { key: string }) => a.key === 'thread.name')?.value.stringValue;
        for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spans.push({ ...s, thread });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const otlp = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
  platform = await startFakePlatform({ token: PLATFORM_TOKEN });
  llm = await startFakeLlm({ apiKey: LLM_KEY, reply: () => 'It left our warehouse today.', usage: { prompt_tokens: 123, completion_tokens: 45 } });
  dataDir = mkdtempSync(join(tmpdir(), 'mas-tracing-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  proc = startCompiled({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    // Processor threads (the test default runs everything on one).
    NODE_ENV: 'development',
    ALLOW_PRIVATE_PLATFORM_URLS: 'true',
    REPLY_BURST_WINDOW_MS: '0',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
    OTEL_SERVICE_NAME: 'mas-under-test',
    // The SDK's batch delay (default 5 s), shortened so the test does not wait on it.
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
  await healthyAfter(proc, base, 30_000);
  await eventually(async () => expect((await fetch(`${base}/readyz`)).status).toBe(200), 20_000, 50);
}, 60_000);

afterAll(async () => {
  proc?.child.kill('SIGKILL');
  await platform?.close();
  await llm?.close();
  await new Promise((r) => receiver?.close(r));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const attr = (span: OtlpSpan, key: string) => {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue !== undefined ? Number(v.intValue) : undefined);
};

describe('one customer message is one trace across the threads (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  it('webhook → reply → "chat <model>" → send share one trace id, each span the child of the one before, and no span carries the text', async () => {
    const company = await wireCompany(base, { platformUrl: platform.url, platformToken: PLATFORM_TOKEN, llmUrl: llm.url, name: 'Traced Co' });
    expect(await company.post({ clientId: 'traced-1', messageId: 'traced-m1', text: TEXT })).toBe(200);
    await platform.waitForMessages(1, 30_000);

    const named = (name: string) => spans.filter((s) => s.name === name);
    await eventually(() => {
      expect(named('POST /api/webhook/:connectorType/:integrationId')).toHaveLength(1);
      expect(named('send')).toHaveLength(1);
    }, 30_000);
    const [webhook] = named('POST /api/webhook/:connectorType/:integrationId');
    const reply = named('reply').find((s) => s.traceId === webhook!.traceId)!;
    const chat = named('chat gpt-4o-mini').find((s) => s.traceId === webhook!.traceId)!;
    const [send] = named('send');

    expect(reply.parentSpanId).toBe(webhook!.spanId);
    expect(chat.parentSpanId).toBe(reply.spanId);
    expect(send!.traceId).toBe(webhook!.traceId);
    expect(send!.parentSpanId).toBe(reply.spanId);
    // Across threads: the webhook on the HTTP thread, the reply and the send on the processor's replies thread.
    expect(webhook!.thread).toBe('main');
    expect([reply.thread, chat.thread, send!.thread]).toEqual(['replies', 'replies', 'replies']);
    expect(attr(webhook!, 'http.response.status_code')).toBe(200);
    // The GenAI semantic conventions on the model call.
    expect(attr(chat, 'gen_ai.operation.name')).toBe('chat');
    expect(attr(chat, 'gen_ai.request.model')).toBe('gpt-4o-mini');
    expect(attr(chat, 'gen_ai.usage.input_tokens')).toBe(123);
    expect(attr(chat, 'gen_ai.usage.output_tokens')).toBe(45);

    // Ids and counts only: neither the customer's words, nor the answer, nor a secret left the service.
    const exported = bodies.join('\n');
    expect(exported).toContain('mas-under-test');
    for (const secret of ['unique-customer-words', 'warehouse', LLM_KEY, company.secret, PLATFORM_TOKEN]) expect(exported).not.toContain(secret);
    // Nor did the service's own log (info and above, the default level) on the message's way through every thread.
    expect(proc.output()).toContain('reply job done');
    for (const text of ['unique-customer-words', 'warehouse', LLM_KEY]) expect(proc.output()).not.toContain(text);
  }, 90_000);
});
