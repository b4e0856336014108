import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * GET /api/analytics?from&to[&integrationId|&agentId]: every day of the range (zeros for empty days) with the
 * company's, an integration's or an agent's series and the range's totals, in the company timezone; at most 366
 * days; company-scoped; any teammate role. PUT /api/settings/timezone: an IANA name, owners and admins.
 */

let server: TestServer;
let base: string;
type Company = Awaited<ReturnType<typeof signUp>> & { integrationId: number; agentId: string };
let acme: Company;
let globex: Company;

async function withIntegration(name: string): Promise<Company> {
  const company = await signUp(server, name);
  const agent = await company.call('POST', '/api/agents', { name: `${name} bot` });
  expect(agent.statusCode).toBe(201);
  const agentId = agent.json().agent.id as string;
  const integration = await company.call('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret: 'whsec_analytics_0123456789', agentId });
  expect(integration.statusCode).toBe(201);
  return { ...company, agentId, integrationId: integration.json().integration.id as number };
}

/** One conversation: two customer messages, an AI answer after 4 s, closed by the AI alone; then a charge. */
async function answeredConversation(c: Company, day: string) {
  const id = randomUUID();
  const stream = `conversation-${id}`;
  const session = randomUUID();
  const [m1, m2, reply] = [randomUUID(), randomUUID(), randomUUID()];
  const at = (t: string) => `${day}T${t}.000Z`;
  const { eventStore } = server.adapters;
  const metadata = { companyId: c.company.companyId };
  const events = [
    { type: 'ConversationStarted', data: { conversationId: id, companyId: c.company.companyId, integrationId: c.integrationId, connectorType: 'msgplatform', customer: { clientId: id.slice(0, 8), channelId: null, transport: 'telegram' }, stageId: null, at: at('10:00:00') } },
    { type: 'AiSessionOpened', data: { sessionId: session, at: at('10:00:00') } },
    { type: 'MessageReceived', data: { messageId: m1, dedupeKey: `k${m1}`, dedupeUntil: null, text: 'Hi', platform: {}, at: at('10:00:00') } },
    { type: 'MessageReceived', data: { messageId: m2, dedupeKey: `k${m2}`, dedupeUntil: null, text: 'Where is my order?', platform: {}, at: at('10:00:01') } },
    { type: 'AgentReplied', data: { messageId: reply, sessionId: session, agentId: c.agentId, text: 'Today.', inReplyTo: [m1, m2], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: false, at: at('10:00:04') } },
    { type: 'AiSessionClosed', data: { sessionId: session, reason: 'api', action: 'session_close', by: null, at: at('10:10:00') } },
  ];
  await eventStore.append(stream, events.map((e) => ({ id: randomUUID(), ...e, metadata })), 'no_stream');
  const charge = await eventStore.append(`credits-${c.company.companyId}`, [{ id: randomUUID(), type: 'CreditsConsumed', data: { amountMicros: 1234, model: 'builtin', inputTokens: 10, outputTokens: 5, conversationId: id, replyId: reply, at: at('10:00:04') }, metadata }], 'any');
  await server.projections.waitForPosition(charge.position);
}

const analytics = (c: Company, query: string) => c.call('GET', `/api/analytics${query}`);

beforeAll(async () => {
  server = await startTestServer();
  base = await server.listen(0, '127.0.0.1');
  acme = await withIntegration('Acme');
  globex = await withIntegration('Globex');
  await answeredConversation(acme, '2025-03-10');
  await answeredConversation(acme, '2025-03-10');
  await answeredConversation(acme, '2025-03-12');
}, 60_000);
afterAll(() => server?.close());

describe('GET /api/analytics', () => {
  it('gives every day of the range, zeros for empty days, and the totals', async () => {
    const res = await analytics(acme, '?from=2025-03-09&to=2025-03-12');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ timezone: 'UTC', from: '2025-03-09', to: '2025-03-12' });
    expect(body.days.map((d: { date: string }) => d.date)).toEqual(['2025-03-09', '2025-03-10', '2025-03-11', '2025-03-12']);
    expect(body.days[0]).toMatchObject({ conversationsStarted: 0, customerMessages: 0, aiReplies: 0, creditsSpentMicros: 0, aiFirstResponse: { count: 0, p50Ms: null, p90Ms: null } });
    expect(body.days[1]).toMatchObject({ conversationsStarted: 2, conversationsActive: 2, customerMessages: 4, aiReplies: 2, aiResolved: 2, handedOff: 0, repliesFailed: 0, creditsSpentMicros: 2468 });
    expect(body.totals).toMatchObject({ conversationsStarted: 3, customerMessages: 6, aiReplies: 3, aiResolved: 3, creditsSpentMicros: 3702, handoffReasons: { agent_handoff: 0, ai_unanswered: 0, customer_request: 0, dialog_transferred: 0 } });
    // Measured from the first unanswered message (4 s), reported from the histogram within ±12 %.
    expect(body.totals.aiFirstResponse.count).toBe(3);
    expect(Math.abs(body.totals.aiFirstResponse.p50Ms - 4000)).toBeLessThanOrEqual(480);
    expect(body.totals.humanFirstResponse).toEqual({ count: 0, p50Ms: null, p90Ms: null });
  });

  it('filters by integration or agent; an integration or agent of another company is not found', async () => {
    const byIntegration = await analytics(acme, `?from=2025-03-10&to=2025-03-10&integrationId=${acme.integrationId}`);
    expect(byIntegration.statusCode).toBe(200);
    expect(byIntegration.json().totals).toMatchObject({ conversationsStarted: 2, aiReplies: 2, creditsSpentMicros: 2468 });
    const byAgent = await analytics(acme, `?from=2025-03-10&to=2025-03-12&agentId=${acme.agentId}`);
    expect(byAgent.json().totals).toMatchObject({ conversationsStarted: 3, aiReplies: 3 });
    for (const q of [`integrationId=${globex.integrationId}`, `agentId=${globex.agentId}`, 'integrationId=999999', `agentId=${randomUUID()}`]) {
      const res = await analytics(acme, `?from=2025-03-10&to=2025-03-12&${q}`);
      expect(res.statusCode, q).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
    }
  });

  it('is company-scoped: another company sees only its own (empty) days', async () => {
    const res = await analytics(globex, '?from=2025-03-09&to=2025-03-12');
    expect(res.statusCode).toBe(200);
    expect(res.json().days).toHaveLength(4);
    expect(res.json().totals).toMatchObject({ conversationsStarted: 0, customerMessages: 0, aiReplies: 0, creditsSpentMicros: 0 });
  });

  it('takes the largest range (366 days) and refuses 367, a malformed or impossible date, to before from, and both filters', async () => {
    const largest = await analytics(acme, '?from=2024-03-13&to=2025-03-13');
    expect(largest.statusCode).toBe(200);
    expect(largest.json().days).toHaveLength(366);
    expect(largest.json().totals.conversationsStarted).toBe(3);
    for (const q of [
      '?from=2024-03-12&to=2025-03-13',
      '?from=2025-02-30&to=2025-03-02',
      '?from=2025-3-1&to=2025-03-02',
      '?from=yesterday',
      '?from=2025-03-12&to=2025-03-10',
      `?from=2025-03-10&to=2025-03-12&integrationId=${acme.integrationId}&agentId=${acme.agentId}`,
      '?integrationId=abc',
      '?agentId=not-a-uuid',
      '?unknown=1',
    ]) {
      const res = await analytics(acme, q);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error.code, q).toBe('VALIDATION_ERROR');
      expect(res.json().error.message, q).toBeTruthy();
    }
  });

  it('is in the OpenAPI document with its query parameters', async () => {
    const doc = (await server.app.inject('/docs/json')).json() as { paths: Record<string, Record<string, { parameters?: { name: string }[] }>> };
    expect(doc.paths['/api/analytics']?.get?.parameters?.map((p) => p.name).sort()).toEqual(['agentId', 'from', 'integrationId', 'to']);
    expect(Object.keys(doc.paths['/api/settings/timezone'] ?? {}).sort()).toEqual(['get', 'put']);
  });

  it('defaults to the last 30 days ending today in the company timezone', async () => {
    const res = await analytics(acme, '');
    expect(res.statusCode).toBe(200);
    expect(res.json().days).toHaveLength(30);
    expect(res.json().to).toBe(new Date().toISOString().slice(0, 10));
  });

  it('is readable by an agent-role teammate; the timezone setting is not writable by one', async () => {
    const invited = await acme.call('POST', '/api/team/invitations', { email: `agent-${randomUUID()}@example.com`, role: 'agent' });
    expect(invited.statusCode).toBe(201);
    const url = invited.json().invitationUrl as string;
    const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
    const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Agent Al', password: 'agent password' } });
    expect(accepted.statusCode).toBe(200);
    const bearer = accepted.json().session.access_token as string;
    const res = await acme.call('GET', '/api/analytics?from=2025-03-10&to=2025-03-10', undefined, bearer);
    expect(res.statusCode).toBe(200);
    expect(res.json().totals.conversationsStarted).toBe(2);
    const put = await acme.call('PUT', '/api/settings/timezone', { timezone: 'Asia/Tokyo' }, bearer);
    expect(put.statusCode).toBe(403);
  });
});

describe('PUT /api/settings/timezone', () => {
  it('refuses what is not an IANA name, keeps the setting, and takes a valid one in its canonical spelling', async () => {
    const company = await withIntegration('Tz Co');
    expect((await company.call('GET', '/api/settings/timezone')).json()).toEqual({ timezone: 'UTC' });
    for (const timezone of ['Mars/Olympus', '+02:00', 'UTC+2', '', 'x'.repeat(65), '../etc/passwd']) {
      const res = await company.call('PUT', '/api/settings/timezone', { timezone });
      expect(res.statusCode, timezone).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    expect((await company.call('GET', '/api/settings/timezone')).json()).toEqual({ timezone: 'UTC' });
    const set = await company.call('PUT', '/api/settings/timezone', { timezone: 'europe/berlin' });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({ timezone: 'Europe/Berlin' });
    expect((await company.call('GET', '/api/analytics?from=2025-03-10&to=2025-03-10')).json().timezone).toBe('Europe/Berlin');
  });

  it('two concurrent changes both succeed and leave one of them, recorded in order on the company stream', async () => {
    const company = await withIntegration('Race Co');
    const put = (timezone: string) =>
      fetch(`${base}/api/settings/timezone`, { method: 'PUT', headers: { authorization: `Bearer ${company.bearer}`, 'content-type': 'application/json' }, body: JSON.stringify({ timezone }) });
    const results = await Promise.all([put('Asia/Tokyo'), put('America/Chicago')]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    const final = (await company.call('GET', '/api/settings/timezone')).json().timezone;
    expect(['Asia/Tokyo', 'America/Chicago']).toContain(final);
    const events = (await server.adapters.eventStore.readStream(`company-${company.company.companyId}`)).filter((e) => e.type === 'CompanyTimezoneSet');
    expect(events).toHaveLength(2);
    // Each change names the one before it: the second was decided on the first (no lost update).
    expect((events[1]!.data as { previousTimezone: string }).previousTimezone).toBe((events[0]!.data as { timezone: string }).timezone);
    expect((events[1]!.data as { timezone: string }).timezone).toBe(final);
    expect((await company.call('GET', '/api/analytics?from=2025-03-10&to=2025-03-10')).json().timezone).toBe(final);
  });
});
