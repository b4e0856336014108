import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { signUp } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * Triage through the HTTP API: a conversation's priority, and snoozing it out of the open queues until its time
 * (the service's clock, run ahead by the test), a customer message or a teammate brings it back.
 */

const SECRET = 'whsec_triage_0123456789abcdef';
let server: TestServer;
let base: string;
type Company = Awaited<ReturnType<typeof signUp>>;
let acme: Company;
let other: Company;
let acmeIntegration: number;
/** The service's clock runs this far ahead of the wall clock. */
let ahead = 0;

async function addAgent(owner: Company) {
  const email = uniqueEmail('agent');
  const invited = await owner.call('POST', '/api/team/invitations', { email, role: 'agent' });
  const url = invited.json().invitationUrl as string;
  const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
  const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Agent', password: 'agent password' } });
  const bearer = accepted.json().session.access_token as string;
  return { call: (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => owner.call(method, url, payload, bearer) };
}

let clients = 0;
async function customerWrites(integrationId: number, text: string, clientId = `client-${++clients}`) {
  const body = JSON.stringify({ text, client_id: clientId, channel_id: 1, transport: 'telegram' });
  const res = await fetch(`${base}/api/webhook/msgplatform/${integrationId}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) } });
  expect(res.status).toBe(200);
  return clientId;
}

async function conversationOf(clientId: string) {
  return eventually(async () => {
    const list = (await acme.call('GET', '/api/conversations?limit=200')).json().conversations as { id: string; customer: { clientId: string } }[];
    const found = list.find((c) => String(c.customer.clientId) === clientId);
    if (!found) throw new Error(`no conversation for ${clientId} yet`);
    return found.id;
  }, 10_000, 50);
}

const inView = async (view: string, id: string) => ((await acme.call('GET', `/api/conversations?view=${view}&limit=200`)).json().conversations as { id: string }[]).some((c) => c.id === id);
const inHours = (h: number) => new Date(Date.now() + ahead + h * 3_600_000).toISOString();

beforeAll(async () => {
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '0', ACTION_EXPIRY_SWEEP_INTERVAL_MS: '100' }, undefined, { clock: { now: () => new Date(Date.now() + ahead) } });
  base = await server.listen(0, '127.0.0.1');
  acme = await signUp(server, 'Triage Co');
  other = await signUp(server, 'Other Triage Co');
  acmeIntegration = (await acme.call('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret: SECRET })).json().integration.id;
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => {
  ahead = 0;
});

describe('priority', () => {
  it('a conversation starts at normal; an agent sets it to urgent, and the list shows it', async () => {
    const id = await conversationOf(await customerWrites(acmeIntegration, 'my card was charged twice'));
    expect((await acme.call('GET', `/api/conversations/${id}`)).json().conversation.priority).toBe('normal');
    const agent = await addAgent(acme);
    const res = await agent.call('PUT', `/api/conversations/${id}/priority`, { priority: 'urgent' });
    expect(res.statusCode).toBe(200);
    expect(res.json().conversation.priority).toBe('urgent');
    const listed = (await acme.call('GET', '/api/conversations?limit=200')).json().conversations.find((c: { id: string }) => c.id === id);
    expect(listed.priority).toBe('urgent');
    const events = await server.adapters.eventStore.readStream(`conversation-${id}`);
    expect(events.filter((e) => e.type === 'ConversationPrioritized').map((e) => e.data)).toMatchObject([{ priority: 'urgent', previousPriority: 'normal' }]);
  });

  it('an unknown priority is 400; another company gets 404 and changes nothing', async () => {
    const id = await conversationOf(await customerWrites(acmeIntegration, 'hello'));
    const bad = await acme.call('PUT', `/api/conversations/${id}/priority`, { priority: 'critical' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('VALIDATION_ERROR');
    const theirs = await other.call('PUT', `/api/conversations/${id}/priority`, { priority: 'low' });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().error.code).toBe('NOT_FOUND');
    expect((await other.call('POST', `/api/conversations/${id}/snooze`, { until: inHours(2) })).statusCode).toBe(404);
    expect((await other.call('POST', `/api/conversations/${id}/unsnooze`)).statusCode).toBe(404);
    expect((await acme.call('GET', `/api/conversations/${id}`)).json().conversation).toMatchObject({ priority: 'normal', snoozedUntil: null });
  });
});

describe('snooze', () => {
  it('a snoozed conversation leaves Unassigned for Snoozed, and comes back when its time comes', async () => {
    const id = await conversationOf(await customerWrites(acmeIntegration, 'call me back tomorrow'));
    expect(await inView('unassigned', id)).toBe(true);
    const until = inHours(0.1);
    const res = await acme.call('POST', `/api/conversations/${id}/snooze`, { until });
    expect(res.statusCode).toBe(200);
    expect(res.json().conversation.snoozedUntil).toBe(until);
    expect(await inView('unassigned', id)).toBe(false);
    expect(await inView('snoozed', id)).toBe(true);
    const views = (await acme.call('GET', '/api/conversations/views')).json().views;
    expect(views.snoozed.count).toBeGreaterThanOrEqual(1);
    // Six minutes later on the service's clock (sessions still valid): the sweep wakes it.
    ahead = 6 * 60_000 + 1000;
    await eventually(async () => expect(await inView('unassigned', id)).toBe(true), 10_000, 100);
    expect(await inView('snoozed', id)).toBe(false);
    const woke = (await server.adapters.eventStore.readStream(`conversation-${id}`)).find((e) => e.type === 'ConversationWoke');
    expect(woke?.data).toMatchObject({ reason: 'time', snoozedUntil: until });
    expect(woke?.metadata.actor).toBe('system:snooze');
  });

  it('a new customer message brings a snoozed conversation back at once', async () => {
    const clientId = await customerWrites(acmeIntegration, 'thanks, talk later');
    const id = await conversationOf(clientId);
    expect((await acme.call('POST', `/api/conversations/${id}/snooze`, { until: inHours(24) })).statusCode).toBe(200);
    expect(await inView('unassigned', id)).toBe(false);
    await customerWrites(acmeIntegration, 'actually, one more thing', clientId);
    await eventually(async () => expect(await inView('unassigned', id)).toBe(true), 10_000, 50);
    expect((await acme.call('GET', `/api/conversations/${id}`)).json().conversation.snoozedUntil).toBeNull();
  });

  it('unsnooze ends it now; a past time is 400; a resolved conversation cannot be snoozed (409)', async () => {
    const id = await conversationOf(await customerWrites(acmeIntegration, 'hi'));
    expect((await acme.call('POST', `/api/conversations/${id}/snooze`, { until: new Date(Date.now() - 60_000).toISOString() })).statusCode).toBe(400);
    await acme.call('POST', `/api/conversations/${id}/snooze`, { until: inHours(5) });
    const back = await acme.call('POST', `/api/conversations/${id}/unsnooze`);
    expect(back.statusCode).toBe(200);
    expect(back.json().conversation.snoozedUntil).toBeNull();
    expect(await inView('unassigned', id)).toBe(true);
    await acme.call('POST', `/api/conversations/${id}/close`);
    const closed = await acme.call('POST', `/api/conversations/${id}/snooze`, { until: inHours(5) });
    expect(closed.statusCode).toBe(409);
  });
});

const none = { firstResponseMinutes: null, nextResponseMinutes: null, resolutionMinutes: null };
const policy = {
  enabled: true,
  targets: { urgent: { firstResponseMinutes: 5, nextResponseMinutes: 5, resolutionMinutes: 60 }, high: none, normal: { firstResponseMinutes: 240, nextResponseMinutes: 240, resolutionMinutes: 1440 }, low: none },
};

describe('SLA', () => {
  it('owners set the policy; an agent may neither read nor set it (403); each company has its own', async () => {
    const agent = await addAgent(acme);
    const denied = await agent.call('PUT', '/api/settings/sla', policy);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.code).toBe('FORBIDDEN');
    expect((await agent.call('GET', '/api/settings/sla')).statusCode).toBe(403);
    const set = await acme.call('PUT', '/api/settings/sla', policy);
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual(policy);
    expect((await other.call('GET', '/api/settings/sla')).json().enabled).toBe(false);
    expect((await acme.call('PUT', '/api/settings/sla', { ...policy, targets: { ...policy.targets, low: { ...none, resolutionMinutes: 0 } } })).statusCode).toBe(400);
  });

  it('a handed-off conversation shows its due time; urgent moves it; a late first answer is a breach in Analytics, for that company only', async () => {
    await acme.call('PUT', '/api/settings/sla', policy);
    const id = await conversationOf(await customerWrites(acmeIntegration, 'can I talk to a human please'));
    const waiting = await eventually(async () => {
      const c = (await acme.call('GET', `/api/conversations/${id}`)).json().conversation;
      expect(c.sla?.response).not.toBeNull();
      return c;
    }, 10_000, 50);
    expect(waiting.sla.response.kind).toBe('firstResponse');
    const since = Date.parse(waiting.handoff.since);
    expect(Date.parse(waiting.sla.response.dueAt) - since).toBe(240 * 60_000);
    const urgent = (await acme.call('PUT', `/api/conversations/${id}/priority`, { priority: 'urgent' })).json().conversation;
    expect(Date.parse(urgent.sla.response.dueAt) - since).toBe(5 * 60_000);
    const listed = (await acme.call('GET', '/api/conversations?view=needs_human&limit=200')).json().conversations.find((c: { id: string }) => c.id === id);
    expect(listed.sla.response.dueAt).toBe(urgent.sla.response.dueAt);
    const before = (await acme.call('GET', '/api/analytics/sla')).json().totals.firstResponse.breached as number;
    // Ten minutes later on the service's clock, a teammate answers: five minutes late.
    ahead = 10 * 60_000;
    expect((await acme.call('POST', `/api/conversations/${id}/messages`, { text: 'Sorry for the wait!' })).statusCode).toBe(202);
    await eventually(async () => expect((await acme.call('GET', '/api/analytics/sla')).json().totals.firstResponse.breached).toBe(before + 1), 10_000, 50);
    expect((await other.call('GET', '/api/analytics/sla')).json().totals.firstResponse.breached).toBe(0);
    const after = (await acme.call('GET', `/api/conversations/${id}`)).json().conversation;
    expect(after.sla?.response ?? null).toBeNull();
  });
});

describe('the OpenAPI document', () => {
  it('lists the triage and SLA routes', async () => {
    const doc = (await server.app.inject('/docs/json')).json() as { paths: Record<string, object> };
    expect(Object.keys(doc.paths['/api/conversations/{id}/priority'] ?? {})).toEqual(['put']);
    expect(Object.keys(doc.paths['/api/conversations/{id}/snooze'] ?? {})).toEqual(['post']);
    expect(Object.keys(doc.paths['/api/conversations/{id}/unsnooze'] ?? {})).toEqual(['post']);
    expect(Object.keys(doc.paths['/api/settings/sla'] ?? {}).sort()).toEqual(['get', 'put']);
    expect(Object.keys(doc.paths['/api/analytics/sla'] ?? {})).toEqual(['get']);
  });
});
