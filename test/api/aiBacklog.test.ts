import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { AI_REPLIES_DELAYED_AFTER_MS } from '../../src/projections/conversations/aiBacklog.js';
import { createAgent, createPlatformIntegration, signUp, useOpenAiLlm, type Company } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * GET /api/ai-backlog: how many of the caller's company's conversations wait for an AI answer, since when the
 * oldest waits, and whether that is delayed. The companies' model takes its time (it answers after the test),
 * so the customers' messages wait for the whole test; the server's clock is moved forward to make them late.
 */

const SECRET = 'whsec_ai_backlog_0123456789abcdef';
const LLM_KEY = 'sk-ai-backlog';
const PLATFORM_TOKEN = 'platform-token-ai-backlog';
let clockOffsetMs = 0;
let llm: FakeLlm;
let platform: FakePlatform;
let server: TestServer;
let base: string;
let acme: Company & { integrationId: number };
let globex: Company & { integrationId: number };

type Backlog = { waiting: number; oldestWaitingSince: string | null; delayed: boolean };
const backlogOf = async (who: Pick<Company, 'call'>): Promise<Backlog> => {
  const res = await who.call('GET', '/api/ai-backlog');
  expect(res.statusCode).toBe(200);
  return res.json().aiBacklog;
};
const settled = <T>(check: () => Promise<T>) => eventually(check, 10_000, 50);

let clients = 0;
/** A customer of the company writes; resolves with the conversation once the read model shows it. */
async function customerWrites(who: Company & { integrationId: number }, text: string, clientId = `client-${++clients}`) {
  const body = JSON.stringify({ text, client_id: clientId, channel_id: 1, transport: 'telegram' });
  const res = await fetch(`${base}/api/webhook/msgplatform/${who.integrationId}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) } });
  expect(res.status).toBe(200);
  return settled(async () => {
    const list = (await who.call('GET', '/api/conversations?limit=200')).json().conversations as { id: string; customer: { clientId: string } }[];
    const found = list.find((c) => String(c.customer.clientId) === clientId);
    if (!found) throw new Error(`no conversation for ${clientId} yet`);
    return { ...found, clientId };
  });
}

/** A company whose integration is answered by an agent on the slow model. */
async function companyAnsweredByAi(name: string) {
  const co = await signUp(server, name);
  const agentId = await createAgent(co);
  await useOpenAiLlm(co, llm.url, { apiKey: LLM_KEY });
  return { ...co, integrationId: await createPlatformIntegration(co, { agentId, apiUrl: platform.url, apiToken: PLATFORM_TOKEN, webhookSecret: SECRET }) };
}

beforeAll(async () => {
  llm = await startFakeLlm({ apiKey: LLM_KEY, reply: 'Sure.', delayMs: 120_000 });
  platform = await startFakePlatform({ token: PLATFORM_TOKEN });
  server = await startTestServer(
    { ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', REPLY_MAX_DELAY_MS: '86400000', LLM_TIMEOUT_MS: '120000', LLM_MAX_RETRIES: '0' },
    undefined,
    { clock: { now: () => new Date(Date.now() + clockOffsetMs) } },
  );
  base = await server.listen(0, '127.0.0.1');
  acme = await companyAnsweredByAi('Acme');
  globex = await companyAnsweredByAi('Globex');
});
afterAll(async () => {
  // The model's pending answers fail first (their messages go to people), so no reply job holds the server open.
  await llm?.close();
  await server?.close();
  await platform?.close();
});

describe('GET /api/ai-backlog', () => {
  it('without a token: 401', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/api/ai-backlog' })).statusCode).toBe(401);
  });

  it('no customer waiting: nothing waits, nothing is delayed', async () => {
    expect(await backlogOf(acme)).toEqual({ waiting: 0, oldestWaitingSince: null, delayed: false });
  });

  it("counts the company's waiting conversations and their oldest message, delayed once it waited past the threshold; a pause takes one out; another company's never show", async () => {
    const first = await customerWrites(acme, 'where is my order?');
    const firstAt = ((await acme.call('GET', `/api/conversations/${first.id}`)).json().messages as { createdAt: string }[])[0]!.createdAt;
    clockOffsetMs += 10_000;
    await customerWrites(acme, 'hello?', first.clientId); // the same customer again: still one conversation, its oldest message counts
    const second = await customerWrites(acme, 'do you ship to Oslo?');

    const waiting = await settled(async () => {
      const b = await backlogOf(acme);
      expect(b.waiting).toBe(2);
      return b;
    });
    expect(waiting).toEqual({ waiting: 2, oldestWaitingSince: firstAt, delayed: false });

    // Globex sees only its own backlog, before and after its customer writes; Acme's is unchanged by it.
    expect(await backlogOf(globex)).toEqual({ waiting: 0, oldestWaitingSince: null, delayed: false });
    await customerWrites(globex, 'hi from globex');
    const globexBacklog = await settled(async () => {
      const b = await backlogOf(globex);
      expect(b.waiting).toBe(1);
      return b;
    });
    expect(globexBacklog.oldestWaitingSince).not.toBe(firstAt);
    expect((await backlogOf(acme)).waiting).toBe(2);

    // Past the threshold since Acme's oldest message: delayed. Globex's message is younger than the threshold.
    clockOffsetMs = Date.parse(firstAt) - Date.now() + AI_REPLIES_DELAYED_AFTER_MS + 5_000;
    expect(await backlogOf(acme)).toEqual({ waiting: 2, oldestWaitingSince: firstAt, delayed: true });
    expect((await backlogOf(globex)).delayed).toBe(false);

    // Pausing the AI on the oldest conversation: it no longer waits for the AI; the other one is the oldest now.
    expect((await acme.call('POST', `/api/conversations/${first.id}/pause`)).statusCode).toBe(200);
    const afterPause = await settled(async () => {
      const b = await backlogOf(acme);
      expect(b.waiting).toBe(1);
      return b;
    });
    const secondAt = ((await acme.call('GET', `/api/conversations/${second.id}`)).json().messages as { createdAt: string }[])[0]!.createdAt;
    expect(afterPause).toEqual({ waiting: 1, oldestWaitingSince: secondAt, delayed: false });
  });

  it('every role of the company reads it (an agent invited to the team)', async () => {
    const invited = await acme.call('POST', '/api/team/invitations', { email: uniqueEmail('agent'), role: 'agent' });
    expect(invited.statusCode).toBe(201);
    const url = invited.json().invitationUrl as string;
    const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
    const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Agent', password: 'agent password' } });
    expect(accepted.statusCode).toBe(200);
    const agentToken = accepted.json().session.access_token as string;
    const res = await acme.call('GET', '/api/ai-backlog', undefined, agentToken);
    expect(res.statusCode).toBe(200);
    expect(res.json().aiBacklog).toEqual(await backlogOf(acme));
  });
});
