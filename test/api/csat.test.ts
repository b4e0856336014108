import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { acmeAndGlobex, createAgent, createWebchatIntegration, type Company } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';
import { connectWebchat, PER_IP_WEBCHAT_LIMITS_LIFTED, type WebchatClient } from '../support/webchatClient.js';

/**
 * The satisfaction survey (CSAT): switched on per integration, sent when a conversation closes, answered inline
 * in the web chat or by a short reply on the platform, and counted per agent, teammate and integration.
 */

const ORIGIN = 'http://shop.example';
const SECRET = 'whsec_csat_platform_0123456789';
const KB = '# Shipping\n\nWe ship to Norway, Sweden and Denmark within 3 business days.';
let server: TestServer;
let base: string;
let acme: Company;
let globex: Company;
let agentId: string;
let webchatId: number;
let platformId: number;
const clients: WebchatClient[] = [];
const soon = <T>(check: () => Promise<T>) => eventually(check, 10_000, 50);

beforeAll(async () => {
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '0', ...PER_IP_WEBCHAT_LIMITS_LIFTED });
  base = await server.listen(0, '127.0.0.1');
  ({ acme, globex } = await acmeAndGlobex(server));
  expect((await acme.call('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: KB })).statusCode).toBe(201);
  agentId = await createAgent(acme, { name: 'Ava', handoffMessage: 'A colleague will reply.' });
  webchatId = await createWebchatIntegration(acme, agentId, [ORIGIN], { csat: { enabled: true, skipWithoutCustomerReply: false } });
  const platform = await acme.call('POST', '/api/integrations', { name: 'Sandbox', connectorType: 'msgplatform', webhookSecret: SECRET, agentId, csat: { enabled: true, skipWithoutCustomerReply: true } });
  expect(platform.statusCode).toBe(201);
  platformId = platform.json().integration.id;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await server?.close();
});

const conversationOf = async (match: (c: { customer: { clientId: string | number } }) => boolean) =>
  soon(async () => {
    const found = ((await acme.call('GET', '/api/conversations?limit=100')).json().conversations as { id: string; customer: { clientId: string | number } }[]).find(match);
    if (!found) throw new Error('no conversation yet');
    return found.id;
  });
const eventTypes = async (conversationId: string) => (await server.adapters.eventStore.readStream(`conversation-${conversationId}`)).map((e) => e.type);
const agentReplies = async (conversationId: string) =>
  (await server.adapters.eventStore.readStream(`conversation-${conversationId}`)).filter((e) => e.type === 'AgentReplied').length;

async function customerWrites(clientId: string, text: string) {
  const body = JSON.stringify({ text, client_id: clientId, channel_id: 1, transport: 'telegram' });
  const res = await fetch(`${base}/api/webhook/msgplatform/${platformId}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) } });
  expect(res.status).toBe(200);
}

describe('the CSAT setting of an integration', () => {
  it('is off by default, and set with the integration', async () => {
    const created = await acme.call('POST', '/api/integrations', { name: 'Plain', connectorType: 'msgplatform', webhookSecret: SECRET });
    expect(created.json().integration.csat).toEqual({ enabled: false, skipWithoutCustomerReply: true });
    const patched = await acme.call('PATCH', `/api/integrations/${created.json().integration.id}`, { csat: { enabled: true, skipWithoutCustomerReply: false } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().integration.csat).toEqual({ enabled: true, skipWithoutCustomerReply: false });
    expect((await acme.call('PATCH', `/api/integrations/${created.json().integration.id}`, { csat: { enabled: 'yes' } })).statusCode).toBe(400);
  });

  it("is managed by owners and admins only; another company's integration is 404", async () => {
    const invited = await acme.call('POST', '/api/team/invitations', { email: uniqueEmail('agent'), role: 'agent' });
    const url = invited.json().invitationUrl as string;
    const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
    const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Agent Al', password: 'agent password' } });
    const bearer = accepted.json().session.access_token as string;
    expect((await acme.call('PATCH', `/api/integrations/${platformId}`, { csat: { enabled: false, skipWithoutCustomerReply: true } }, bearer)).statusCode).toBe(403);
    expect((await acme.call('GET', '/api/analytics/csat', undefined, bearer)).statusCode).toBe(200);
    expect((await globex.call('PATCH', `/api/integrations/${platformId}`, { csat: { enabled: false, skipWithoutCustomerReply: true } })).statusCode).toBe(404);
  });
});

describe('CSAT over web chat', () => {
  it('given a closed conversation, the widget gets the survey; the rating is recorded once and the visitor sees it again on return until answered', async () => {
    const visitor = await connectWebchat(base, webchatId, { origin: ORIGIN });
    clients.push(visitor);
    const ready = await visitor.hello();
    expect(ready.csat).toBeNull();
    expect((await visitor.message('Do you ship to Norway?', 'c1')).type).toBe('ack');
    await visitor.waitFor((f) => f.type === 'message' && f.author === 'agent');
    expect((await visitor.message('Great, thanks', 'c2')).type).toBe('ack');
    await soon(async () => expect(await agentReplies(ready.conversationId)).toBe(2));

    expect((await acme.call('POST', `/api/conversations/${ready.conversationId}/close`, {})).statusCode).toBe(200);
    const survey = await visitor.waitFor((f) => f.type === 'csat');
    expect(survey).toMatchObject({ question: 'How would you rate the help you got?' });

    // Back on the page before answering: the survey is still there.
    const again = await connectWebchat(base, webchatId, { origin: ORIGIN });
    clients.push(again);
    expect((await again.hello({ visitorId: ready.visitorId, visitorToken: ready.visitorToken })).csat).toEqual({ surveyId: survey.surveyId, question: survey.question });

    visitor.send({ type: 'csat', surveyId: survey.surveyId, rating: 5, comment: 'Quick and kind' });
    expect(await visitor.waitFor((f) => f.type === 'csat_recorded')).toEqual({ type: 'csat_recorded', surveyId: survey.surveyId, rating: 5 });
    const from = visitor.frames.length;
    visitor.send({ type: 'csat', surveyId: survey.surveyId, rating: 1 });
    // Acknowledged with the rating that counts (the first), not the one ignored.
    expect(await visitor.waitFor((f) => f.type === 'csat_recorded', 10_000, from)).toEqual({ type: 'csat_recorded', surveyId: survey.surveyId, rating: 5 });
    expect((await eventTypes(ready.conversationId)).filter((t) => t === 'CsatSubmitted')).toHaveLength(1);

    const fresh = await connectWebchat(base, webchatId, { origin: ORIGIN });
    clients.push(fresh);
    expect((await fresh.hello({ visitorId: ready.visitorId, visitorToken: ready.visitorToken })).csat).toBeNull();
  });

  it('refuses an answer to a survey that does not wait, and malformed answers', async () => {
    const visitor = await connectWebchat(base, webchatId, { origin: ORIGIN });
    clients.push(visitor);
    await visitor.hello();
    visitor.send({ type: 'csat', surveyId: '66666666-6666-4666-8666-666666666666', rating: 4 });
    expect(await visitor.waitFor((f) => f.type === 'error')).toMatchObject({ code: 'NOT_FOUND' });
    for (const bad of [{ rating: 0 }, { rating: 6 }, { rating: 4.5 }, { rating: '5' }, { rating: 3, comment: 'x'.repeat(1001) }]) {
      const from = visitor.frames.length;
      visitor.send({ type: 'csat', surveyId: '66666666-6666-4666-8666-666666666666', ...bad });
      expect(await visitor.waitFor((f) => f.type === 'error', 10_000, from), JSON.stringify(bad)).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    // A survey id given but not a UUID is told so (not that it is missing).
    const from = visitor.frames.length;
    visitor.send({ type: 'csat', surveyId: 'survey-1', rating: 4 });
    const error = await visitor.waitFor((f) => f.type === 'error', 10_000, from);
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(String((error as { message?: unknown }).message)).toMatch(/surveyId must be a UUID/);
  });
});

describe('CSAT over the messaging platform', () => {
  it('given a closed conversation the customer wrote back in, the question goes out as a message and "4 thanks" is the answer', async () => {
    await customerWrites('csat-1', 'Do you ship to Norway?');
    const id = await conversationOf((c) => String(c.customer.clientId) === 'csat-1');
    await soon(async () => expect(await agentReplies(id)).toBe(1));
    await customerWrites('csat-1', 'ok thanks');
    await soon(async () => expect(await agentReplies(id)).toBe(2));
    expect((await acme.call('POST', `/api/conversations/${id}/close`, {})).statusCode).toBe(200);
    await soon(async () => expect(await eventTypes(id)).toContain('MessageDelivered'));
    const asked = await soon(async () => {
      const e = (await server.adapters.eventStore.readStream(`conversation-${id}`)).find((x) => x.type === 'CsatRequested');
      if (!e) throw new Error('not asked yet');
      return e.data as { messageId: string; text: string };
    });
    expect(asked.text).toMatch(/from 1 \(poor\) to 5 \(great\)/);
    await soon(async () => {
      const delivered = (await server.adapters.eventStore.readStream(`conversation-${id}`)).filter((x) => x.type === 'MessageDelivered').map((x) => (x.data as { messageId: string }).messageId);
      expect(delivered).toContain(asked.messageId);
    });

    await customerWrites('csat-1', '4 thanks');
    await soon(async () => expect(await eventTypes(id)).toContain('CsatSubmitted'));
    const types = await eventTypes(id);
    expect(types.filter((t) => t === 'AiSessionOpened')).toHaveLength(1); // the answer opened no new session

    // Not a rating: an ordinary message, answered by the AI in a new session.
    await customerWrites('csat-1', 'One more question about Sweden');
    await soon(async () => expect((await eventTypes(id)).filter((t) => t === 'AiSessionOpened')).toHaveLength(2));
  });

  it('given the integration skips conversations resolved without a customer reply, then one closed after a single answer gets no survey', async () => {
    await customerWrites('csat-2', 'Do you ship to Sweden?');
    const id = await conversationOf((c) => String(c.customer.clientId) === 'csat-2');
    await soon(async () => expect(await agentReplies(id)).toBe(1));
    expect((await acme.call('POST', `/api/conversations/${id}/close`, {})).statusCode).toBe(200);
    // The close is processed (the reactor runs after it): wait for a later event of another conversation to be sure.
    await customerWrites('csat-3', 'Do you ship to Denmark?');
    const other = await conversationOf((c) => String(c.customer.clientId) === 'csat-3');
    await soon(async () => expect(await agentReplies(other)).toBe(1));
    expect(await eventTypes(id)).not.toContain('CsatRequested');
  });
});

describe('GET /api/analytics/csat and /api/analytics/csat/responses', () => {
  it('count the answers overall, per agent, per teammate and per integration, and list them newest first', async () => {
    const report = await soon(async () => {
      const res = await acme.call('GET', '/api/analytics/csat');
      expect(res.statusCode).toBe(200);
      expect(res.json().totals.responses).toBe(2);
      return res.json();
    });
    expect(report.totals).toMatchObject({ requested: 2, responses: 2, average: 4.5, scores: [0, 0, 0, 1, 1] });
    expect(report.byAgent).toEqual([{ agentId, requested: 2, responses: 2, average: 4.5, scores: [0, 0, 0, 1, 1] }]);
    // Per agent version: the version that wrote the answers that were rated (as the replies record it).
    expect(report.byAgentVersion).toEqual([{ agentId, version: 1, requested: 2, responses: 2, average: 4.5, scores: [0, 0, 0, 1, 1] }]);
    expect(report.byIntegration.map((i: { integrationId: number }) => i.integrationId).sort()).toEqual([webchatId, platformId].sort());
    expect(report.byTeammate).toEqual([]); // nobody owned those conversations

    const list = await acme.call('GET', '/api/analytics/csat/responses?limit=1');
    expect(list.statusCode).toBe(200);
    expect(list.json().responses).toHaveLength(1);
    expect(list.json().responses[0]).toMatchObject({ rating: 4, comment: 'thanks', via: 'platform', agentId, agentVersion: 1 });
    const next = await acme.call('GET', `/api/analytics/csat/responses?limit=1&cursor=${encodeURIComponent(list.json().nextCursor)}`);
    expect(next.json().responses[0]).toMatchObject({ rating: 5, comment: 'Quick and kind', via: 'webchat' });
    expect((await acme.call('GET', '/api/analytics/csat/responses?cursor=garbage')).statusCode).toBe(400);
  });

  it('the OpenAPI document describes byAgentVersion and the answers\' agentVersion', async () => {
    const doc = (await server.app.inject('/docs/json')).json() as { paths: Record<string, { get: unknown }> };
    expect(JSON.stringify(doc.paths['/api/analytics/csat']?.get)).toContain('byAgentVersion');
    expect(JSON.stringify(doc.paths['/api/analytics/csat/responses']?.get)).toContain('agentVersion');
  });

  it("another company sees none of Acme's ratings; without a token 401; a bad range 400", async () => {
    expect((await globex.call('GET', '/api/analytics/csat')).json().totals).toEqual({ requested: 0, responses: 0, average: null, scores: [0, 0, 0, 0, 0] });
    expect((await globex.call('GET', '/api/analytics/csat/responses')).json().responses).toEqual([]);
    expect((await server.app.inject({ method: 'GET', url: '/api/analytics/csat' })).statusCode).toBe(401);
    expect((await acme.call('GET', '/api/analytics/csat?from=2026-02-30')).statusCode).toBe(400);
  });

  it('the rating of a conversation a teammate owned counts for that teammate', async () => {
    await customerWrites('csat-4', 'Do you ship to Norway?');
    const id = await conversationOf((c) => String(c.customer.clientId) === 'csat-4');
    await soon(async () => expect(await agentReplies(id)).toBe(1));
    await customerWrites('csat-4', 'and Denmark?');
    await soon(async () => expect(await agentReplies(id)).toBe(2));
    expect((await acme.call('POST', `/api/conversations/${id}/assign`, { assigneeId: acme.user.id })).statusCode).toBe(200);
    expect((await acme.call('POST', `/api/conversations/${id}/close`, {})).statusCode).toBe(200);
    await soon(async () => expect(await eventTypes(id)).toContain('CsatRequested'));
    await customerWrites('csat-4', '3');
    const report = await soon(async () => {
      const r = (await acme.call('GET', '/api/analytics/csat')).json();
      expect(r.byTeammate).toHaveLength(1);
      return r;
    });
    expect(report.byTeammate[0]).toMatchObject({ userId: acme.user.id, requested: 1, responses: 1, average: 3 });
  });
});
