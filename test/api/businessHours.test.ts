import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { acmeAndGlobex, createAgent, type Company } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * GET/PUT /api/settings/business-hours, and what they change: outside the hours the AI still answers, and when
 * it hands off it tells the customer when people are back and the conversation waits in the queue "after
 * hours" (handoff.backAt). The server's clock is injected: each test puts "now" on a chosen instant.
 */

const SECRET = 'whsec_business_hours_0123456789';
let server: TestServer;
let base: string;
let acme: Company;
let globex: Company;
let clockAt: number | null = null;
let setAtReal = 0;
const nowMs = () => (clockAt === null ? Date.now() : clockAt + (Date.now() - setAtReal));
/** Moves the server's clock to `iso`; the companies sign in again, so their tokens are valid at that time. */
async function setNow(iso: string) {
  clockAt = Date.parse(iso);
  setAtReal = Date.now();
  acme = await signIn(acme);
  globex = await signIn(globex);
}

async function signIn(co: Company): Promise<Company> {
  const login = await server.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: co.email, password: 'correct horse' } });
  expect(login.statusCode).toBe(200);
  const bearer = login.json().session.access_token as string;
  const call: Company['call'] = (method, url, payload, token = bearer) =>
    server.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload !== undefined ? { payload: payload as object } : {}) });
  return { ...co, bearer, call };
}

const open = [{ from: '09:00', to: '17:00' }];
const weekdays = { monday: open, tuesday: open, wednesday: open, thursday: open, friday: open, saturday: [], sunday: [] };
const closedWeek = { monday: [], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] };

beforeAll(async () => {
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '0' }, undefined, { clock: { now: () => new Date(nowMs()) } });
  base = await server.listen(0, '127.0.0.1');
  ({ acme, globex } = await acmeAndGlobex(server));
});
afterAll(async () => {
  await server?.close();
});

async function agentRoleBearer(owner: Company): Promise<string> {
  const invited = await owner.call('POST', '/api/team/invitations', { email: uniqueEmail('agent'), role: 'agent' });
  expect(invited.statusCode).toBe(201);
  const url = invited.json().invitationUrl as string;
  const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
  const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Agent Al', password: 'agent password' } });
  expect(accepted.statusCode).toBe(200);
  return accepted.json().session.access_token as string;
}

describe('GET/PUT /api/settings/business-hours', () => {
  it('given nothing set, then business hours are off: always open, in UTC', async () => {
    await setNow('2026-01-10T10:00:00.000Z'); // a Saturday
    const res = await acme.call('GET', '/api/settings/business-hours');
    expect(res.statusCode).toBe(200);
    const { nextOpening, ...rest } = res.json();
    expect(rest).toEqual({ enabled: false, weekly: closedWeek, holidays: [], timezone: 'UTC', openNow: true });
    expect(nextOpening).toMatch(/^2026-01-10T10:00:/); // now
  });

  it('without a token: 401', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/api/settings/business-hours' })).statusCode).toBe(401);
  });

  it('an owner sets weekday hours and a holiday in the company timezone; the answer says whether it is open and when it opens', async () => {
    expect((await acme.call('PUT', '/api/settings/timezone', { timezone: 'Europe/Berlin' })).statusCode).toBe(200);
    await setNow('2026-12-24T17:00:00.000Z'); // Thursday 18:00 in Berlin; Friday is Christmas
    const res = await acme.call('PUT', '/api/settings/business-hours', { enabled: true, weekly: weekdays, holidays: [{ date: '2026-12-25', name: 'Christmas' }] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ enabled: true, timezone: 'Europe/Berlin', openNow: false, nextOpening: '2026-12-28T08:00:00.000Z' });
    await setNow('2026-12-28T08:30:00.000Z');
    expect((await acme.call('GET', '/api/settings/business-hours')).json()).toMatchObject({ openNow: true, holidays: [{ date: '2026-12-25', name: 'Christmas' }] });
  });

  it('refuses malformed and contradictory hours with VALIDATION_ERROR, keeping what was set', async () => {
    const bad = [
      { enabled: true, weekly: { ...weekdays, monday: [{ from: '25:00', to: '26:00' }] } },
      { enabled: true, weekly: { ...weekdays, monday: [{ from: '17:00', to: '09:00' }] } },
      { enabled: true, weekly: { ...weekdays, monday: [{ from: '09:00', to: '13:00' }, { from: '12:00', to: '18:00' }] } },
      { enabled: true, weekly: closedWeek },
      { enabled: true, weekly: weekdays, holidays: [{ date: '2026-02-30' }] },
      { enabled: true, weekly: { ...weekdays, funday: open } },
      { enabled: true },
    ];
    for (const body of bad) {
      const res = await acme.call('PUT', '/api/settings/business-hours', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    expect((await acme.call('GET', '/api/settings/business-hours')).json()).toMatchObject({ enabled: true, weekly: weekdays });
  });

  it('an agent-role teammate reads the hours but cannot set them (403)', async () => {
    const bearer = await agentRoleBearer(acme);
    const read = await acme.call('GET', '/api/settings/business-hours', undefined, bearer);
    expect(read.statusCode).toBe(200);
    expect(read.json().enabled).toBe(true);
    const put = await acme.call('PUT', '/api/settings/business-hours', { enabled: false, weekly: weekdays }, bearer);
    expect(put.statusCode).toBe(403);
    expect(put.json().error.code).toBe('FORBIDDEN');
  });

  it("another company neither sees nor changes Acme's hours", async () => {
    expect((await globex.call('GET', '/api/settings/business-hours')).json()).toMatchObject({ enabled: false, timezone: 'UTC' });
    expect((await globex.call('PUT', '/api/settings/business-hours', { enabled: true, weekly: { ...closedWeek, sunday: open } })).statusCode).toBe(200);
    expect((await acme.call('GET', '/api/settings/business-hours')).json()).toMatchObject({ weekly: weekdays });
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await server.app.inject('/docs/json')).json() as { paths: Record<string, object> };
    expect(Object.keys(doc.paths['/api/settings/business-hours'] ?? {}).sort()).toEqual(['get', 'put']);
  });
});

describe('outside business hours', () => {
  let integrationId: number;
  let clients = 0;

  /** A new customer asks something the knowledge base cannot answer: the builtin agent hands off. */
  async function customerAsks(text: string) {
    const clientId = `bh-client-${++clients}`;
    const body = JSON.stringify({ text, client_id: clientId, channel_id: 1, transport: 'telegram' });
    const res = await fetch(`${base}/api/webhook/msgplatform/${integrationId}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) } });
    expect(res.status).toBe(200);
    return eventually(async () => {
      const list = (await acme.call('GET', '/api/conversations?view=needs_human&limit=100')).json().conversations as { id: string; customer: { clientId: string }; handoff: { backAt?: string } }[];
      const found = list.find((c) => String(c.customer.clientId) === clientId);
      if (!found) throw new Error('not handed off yet');
      const { messages } = (await acme.call('GET', `/api/conversations/${found.id}`)).json() as { messages: { author: string; text: string }[] };
      const reply = messages.find((m) => m.author === 'agent');
      if (!reply) throw new Error('no reply yet');
      return { handoff: found.handoff, reply: reply.text };
    }, 15_000, 50);
  }

  beforeAll(async () => {
    const agentId = await createAgent(acme, { name: 'Ava', handoffMessage: 'A colleague will reply.', afterHoursMessage: 'We are back {{back}}.' });
    const created = await acme.call('POST', '/api/integrations', { name: 'Sandbox', connectorType: 'msgplatform', webhookSecret: SECRET, agentId });
    expect(created.statusCode).toBe(201);
    integrationId = created.json().integration.id;
  });

  it('given Saturday in Berlin, when the AI hands off, then it says when people are back and the handoff waits "after hours" until then', async () => {
    await setNow('2026-01-10T10:00:00.000Z');
    const { handoff, reply } = await customerAsks('Can you recommend a pizza topping?');
    expect(reply).toBe('A colleague will reply.\n\nWe are back Monday 12 January at 09:00 (Europe/Berlin).');
    expect(handoff.backAt).toBe('2026-01-12T08:00:00.000Z');
  });

  it('given Monday 10:00 in Berlin, when the AI hands off, then the reply is the plain handoff and the queue entry is not after hours', async () => {
    await setNow('2026-01-12T09:00:00.000Z');
    const { handoff, reply } = await customerAsks('Which pizza do you like best?');
    expect(reply).toBe('A colleague will reply.');
    expect(handoff.backAt).toBeUndefined();
  });

  it('analytics split the first responses: the Saturday wait outside business hours, the Monday one inside', async () => {
    const totals = await eventually(async () => {
      const res = await acme.call('GET', '/api/analytics?from=2026-01-10&to=2026-01-12');
      expect(res.statusCode).toBe(200);
      const t = res.json().totals;
      expect(t.aiFirstResponse.count).toBe(2);
      return t;
    }, 10_000, 50);
    expect(totals.firstResponseByHours.outsideHours.ai.count).toBe(1);
    expect(totals.firstResponseByHours.inHours.ai.count).toBe(1);
    expect(totals.firstResponseByHours.outsideHours.human.count).toBe(0);
  });

  it('given Saturday in Berlin, when a customer asks for a person, then the reply says when people are back and the request waits "after hours" until then', async () => {
    await setNow('2026-01-17T10:00:00.000Z');
    const { reply } = await customerAsks('Can I talk to a real person please?');
    expect(reply).toContain('We are back Monday 19 January at 09:00 (Europe/Berlin).');
    const handoff = await eventually(async () => {
      const list = (await acme.call('GET', '/api/conversations?view=needs_human&limit=100')).json().conversations as { customer: { clientId: string }; handoff: { reason: string; backAt?: string } }[];
      const found = list.find((c) => String(c.customer.clientId) === `bh-client-${clients}`);
      expect(found?.handoff.backAt).toBeDefined();
      return found!.handoff;
    }, 15_000, 50);
    expect(handoff).toMatchObject({ reason: 'customer_request', backAt: '2026-01-19T08:00:00.000Z' });
  });

  it('given Saturday in Berlin, when a customer who asks for a person is answered by the AI (no handoff), then that answer too says when people are back', async () => {
    expect((await acme.call('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: '# Shipping\n\nWe ship to Norway, Sweden and Denmark within 3 business days.' })).statusCode).toBe(201);
    await setNow('2026-01-24T10:00:00.000Z');
    // The document is searchable once an ordinary question gets it as an answer.
    await eventually(async () => {
      const body = JSON.stringify({ text: 'Do you ship to Norway?', client_id: `bh-probe-${Date.now()}`, channel_id: 1, transport: 'telegram' });
      await fetch(`${base}/api/webhook/msgplatform/${integrationId}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) } });
      await eventually(async () => {
        const list = (await acme.call('GET', '/api/conversations?limit=100')).json().conversations as { lastMessage?: { text: string } | null }[];
        expect(list.some((c) => c.lastMessage?.text.startsWith('We ship to Norway'))).toBe(true);
      }, 3_000, 100);
    }, 20_000, 0);
    const { handoff, reply } = await customerAsks('Do you ship to Norway, real person?');
    expect(reply).toContain('We ship to Norway');
    expect(reply).toContain('We are back Monday 26 January at 09:00 (Europe/Berlin).');
    expect(handoff).toMatchObject({ reason: 'customer_request', backAt: '2026-01-26T08:00:00.000Z' });
  });

  it("the agent's after-hours sentence is a setting of the agent, with a default", async () => {
    const created = await acme.call('POST', '/api/agents', { name: 'Bo' });
    expect(created.json().agent.afterHoursMessage).toBe('Our team is away right now and will be back {{back}}.');
    const updated = await acme.call('PATCH', `/api/agents/${created.json().agent.id}`, { afterHoursMessage: 'Back {{back}}!' });
    expect(updated.statusCode).toBe(200);
    expect(updated.json().agent.afterHoursMessage).toBe('Back {{back}}!');
  });
});
