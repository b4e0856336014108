import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { signUp } from '../support/api.js';
import { hostileString, nestedJson, plausibleMessage, platformBody, pollutedJson } from '../support/arbitraries.js';
import { storedPlatformMessageIds, storeProblems } from '../support/storeCheck.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * Random webhook requests against a real listening server: random bodies (platform-shaped, any JSON, broken
 * text, raw bytes, deep nesting, polluting keys), signed right, wrong or not at all, with random content types
 * and headers, to live, unknown, inactive and web-chat integrations. The answer is always one of the statuses
 * the API documents, never a 5xx, and afterwards the store holds only whole, valid events and the server is
 * healthy. The seed of a failure is printed by fast-check.
 */
const SECRET = 'whsec_property_0123456789';
const ALLOWED = [200, 400, 401, 403, 404, 413, 415, 429];
let server: TestServer;
let base: string;
let live: number;
let inactive: number;
let webchat: number;
let noSecret: number;

beforeAll(async () => {
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '0' });
  base = await server.listen(0, '127.0.0.1');
  const co = await signUp(server, 'Fuzz Co');
  const create = async (body: object) => {
    const res = await co.call('POST', '/api/integrations', { name: 'I', connectorType: 'msgplatform', webhookSecret: SECRET, ...body });
    expect(res.statusCode).toBe(201);
    return res.json().integration.id as number;
  };
  live = await create({});
  inactive = await create({ active: false });
  noSecret = await create({ webhookSecret: undefined });
  webchat = await create({ connectorType: 'webchat', allowedOrigins: ['http://shop.example'], webhookSecret: undefined });
});
afterAll(async () => {
  await server?.close();
});

const body = fc.oneof(
  { weight: 6, arbitrary: plausibleMessage().map((b) => Buffer.from(JSON.stringify(b))) },
  { weight: 3, arbitrary: platformBody().map((b) => Buffer.from(JSON.stringify(b))) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify(v))) },
  { weight: 1, arbitrary: nestedJson(80).map((v) => Buffer.from(JSON.stringify(v))) },
  { weight: 1, arbitrary: pollutedJson().map((t) => Buffer.from(t)) },
  { weight: 1, arbitrary: hostileString(200).map((t) => Buffer.from(t)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)) },
  { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
);
const signing = fc.constantFrom('right', 'right', 'right', 'right', 'right', 'right', 'hub', 'both', 'wrong', 'none', 'garbage', 'upper', 'other-secret');
const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/vnd.api+json', undefined, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '') },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z]{1,10}\/[a-z+.-]{1,12}$/) },
);
// Header names and values a real client can send (fetch refuses others before they leave).
const extraHeaders = fc.dictionary(
  fc.stringMatching(/^x-[a-z0-9-]{1,20}$/),
  fc.stringMatching(/^[\x21-\x7e]{0,60}$/),
  { maxKeys: 4 },
);
const target = fc.oneof(
  { weight: 8, arbitrary: fc.constant('live') },
  { weight: 1, arbitrary: fc.constantFrom('inactive', 'webchat', 'no-secret', 'unknown', 'not-a-number', 'huge', 'other-connector') },
);

function pathOf(t: string): string {
  switch (t) {
    case 'live': return `/api/webhook/msgplatform/${live}`;
    case 'inactive': return `/api/webhook/msgplatform/${inactive}`;
    case 'no-secret': return `/api/webhook/msgplatform/${noSecret}`;
    case 'webchat': return `/api/webhook/webchat/${webchat}`;
    case 'unknown': return '/api/webhook/msgplatform/987654';
    case 'huge': return `/api/webhook/msgplatform/${'9'.repeat(30)}`;
    case 'other-connector': return `/api/webhook/telegram/${live}`;
    default: return '/api/webhook/msgplatform/%E2%82%AC..%2F1';
  }
}

function signatureHeaders(mode: string, raw: Buffer): Record<string, string> {
  const right = signWebhookBody(raw, SECRET);
  switch (mode) {
    case 'right': return { 'x-webhook-signature': right };
    case 'hub': return { 'x-hub-signature-256': right };
    case 'both': return { 'x-webhook-signature': right, 'x-hub-signature-256': right };
    case 'upper': return { 'x-webhook-signature': `sha256=${right.slice(7).toUpperCase()}` };
    case 'wrong': return { 'x-webhook-signature': `sha256=${'0'.repeat(64)}` };
    case 'other-secret': return { 'x-webhook-signature': signWebhookBody(raw, `${SECRET}x`) };
    case 'garbage': return { 'x-webhook-signature': 'sha256=zz' };
    default: return {};
  }
}

describe('property: random webhook requests against a real server', () => {
  it('are answered with a documented status (never 5xx), and leave only whole, valid events behind', async () => {
    const acked: string[] = [];
    /** The acknowledged bodies by message id, so a failure names what was acknowledged and not stored. */
    const ackedBodies = new Map<string, string[]>();
    /**
     * Message ids acknowledged with a hook_type (an operator's message, for one). The platform numbers all of a
     * channel's messages in one sequence, so a later customer message with the same id is a redelivery of that
     * message to the service, rightly acknowledged as a duplicate: only the generator can make such a pair.
     */
    const ackedWithHookType = new Set<string>();
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(body, signing, contentType, extraHeaders, target, async (raw, mode, type, extra, t) => {
        const headers: Record<string, string> = { ...extra, ...signatureHeaders(mode, raw) };
        if (type !== undefined) headers['content-type'] = type;
        const res = await fetch(base + pathOf(t), { method: 'POST', body: raw, headers });
        const text = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(ALLOWED, `status ${res.status}: ${text}`).toContain(res.status);
        const json = JSON.parse(text) as { ok?: boolean; error?: { code: unknown; message: unknown } };
        if (res.status === 200) {
          expect(json).toEqual({ ok: true });
          const parsed = (() => { try { return JSON.parse(raw.toString('utf8')) as { message_id?: unknown; hook_type?: unknown }; } catch { return null; } })();
          if (parsed && typeof parsed === 'object' && parsed.message_id != null && parsed.hook_type != null) ackedWithHookType.add(String(parsed.message_id));
          if (parsed && typeof parsed === 'object' && parsed.message_id != null && parsed.hook_type == null) {
            acked.push(String(parsed.message_id));
            ackedBodies.set(String(parsed.message_id), [...(ackedBodies.get(String(parsed.message_id)) ?? []), `${pathOf(t)} ${raw.toString('utf8').slice(0, 500)}`]);
          }
        } else {
          expect(typeof json.error?.code).toBe('string');
          expect(typeof json.error?.message).toBe('string');
        }
      }),
      { numRuns: 400 },
    );
    // Signed, accepted customer messages with a message id are stored (duplicates of one id once).
    const stored = await storedPlatformMessageIds(server.adapters.eventStore);
    expect(acked.filter((id) => !stored.has(id) && !ackedWithHookType.has(id)).map((id) => ({ id, bodies: ackedBodies.get(id) }))).toEqual([]);
    expect([...stored.values()].filter((n) => n !== 1)).toEqual([]);
    expect(await storeProblems(server.adapters.eventStore)).toEqual([]);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    process.stdout.write(`[property] 400 random webhook requests: statuses ${JSON.stringify(Object.fromEntries(statuses))}, ${acked.length} acked messages all stored, store consistent\n`);
  }, 120_000);

  it('regressions found by the fuzzer: 51 attachments is a 400, a 256-character message_id is stored (both were 500s)', async () => {
    const post = async (payload: object) => {
      const raw = JSON.stringify(payload);
      return fetch(`${base}/api/webhook/msgplatform/${live}`, { method: 'POST', body: raw, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(raw, SECRET) } });
    };
    const message = { client_id: 'reg-1', channel_id: 1, transport: 'telegram', text: 'hi' };
    const tooMany = await post({ ...message, message_id: 'reg-att', attachments: Array.from({ length: 51 }, (_, i) => ({ link: `https://cdn.example/${i}` })) });
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).error.code).toBe('VALIDATION_ERROR');
    const longId = 'm'.repeat(256);
    expect((await post({ ...message, message_id: longId })).status).toBe(200);
    expect((await storedPlatformMessageIds(server.adapters.eventStore)).get(longId)).toBe(1);
  });
});
