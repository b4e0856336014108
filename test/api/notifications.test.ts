import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type Company } from '../support/api.js';
import { startSmtpSink, type SmtpSink } from '../support/smtpSink.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * Email notifications, each teammate's own choice: an email to the assignee when someone assigns them a
 * conversation, and when a handed-off conversation waits longer than their chosen time (an injected clock).
 * Against the local SMTP sink, as the invitation emails are tested.
 */

const SECRET = 'whsec_notifications_0123456789abcdef';
let sink: SmtpSink;
let server: TestServer;
let clockAheadMs = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The notifications emailed to `email` (their invitation left out). */
const mailTo = (email: string) =>
  sink.messages.map((m) => m.replace(/=\n/g, '').replace(/=3D/g, '=')).filter((m) => new RegExp(`^To: ${email}$`, 'm').test(m) && !/^Subject: You are invited/m.test(m));

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer(
    { SMTP_URL: sink.url, SMTP_FROM: 'Support <noreply@example.com>', DASHBOARD_URL: 'https://app.example.com', REPLY_BURST_WINDOW_MS: '0', NOTIFICATION_SWEEP_INTERVAL_MS: '200', ACCESS_TOKEN_TTL_SECONDS: '86400' },
    undefined,
    { clock: { now: () => new Date(Date.now() + clockAheadMs) } },
  );
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

/** A teammate invited into `co` with `role`, signed in: their id, email and authenticated call. */
async function teammate(co: Company, role: 'agent' | 'admin') {
  const email = uniqueEmail(role);
  const invited = await co.call('POST', '/api/team/invitations', { email, role });
  expect(invited.statusCode).toBe(201);
  const token = (invited.json().invitationUrl as string).split('#/accept-invitation/')[1];
  expect((await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Mate', password: 'correct horse' } })).statusCode).toBe(200);
  const login = (await server.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: 'correct horse' } })).json();
  const bearer = login.session.access_token as string;
  const call = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown) =>
    server.app.inject({ method, url, headers: { authorization: `Bearer ${bearer}` }, ...(payload !== undefined ? { payload: payload as object } : {}) });
  return { userId: login.user.id as string, email, call };
}

/** A conversation the builtin agent hands off (nothing in the knowledge base answers it). */
async function handedOffConversation(co: Company): Promise<string> {
  const agent = (await co.call('POST', '/api/agents', { name: 'Ava' })).json().agent.id as string;
  const integration = (await co.call('POST', '/api/integrations', { name: 'Try-out', connectorType: 'msgplatform', webhookSecret: SECRET, agentId: agent })).json().integration.id as number;
  const id = (await co.call('POST', `/api/integrations/${integration}/test-message`, { text: 'What is the meaning of life?' })).json().conversationId as string;
  await expect.poll(async () => (await co.call('GET', `/api/conversations/${id}`)).json().conversation.handoff?.reason, { timeout: 10_000 }).toBe('no_confident_answer');
  return id;
}

describe('GET/PUT /api/me/notifications', () => {
  it('every role reads its own choices (defaults first) and sets them; another teammate\'s are untouched; bad values are 400', async () => {
    const acme = await signUp(server, 'Prefs');
    const agent = await teammate(acme, 'agent');
    expect((await agent.call('GET', '/api/me/notifications')).json()).toEqual({ notifications: { assigned: true, handoffWaiting: true, handoffWaitingMinutes: 15, emailAvailable: true } });
    const set = await agent.call('PUT', '/api/me/notifications', { assigned: false, handoffWaitingMinutes: 30 });
    expect(set.statusCode).toBe(200);
    expect(set.json().notifications).toMatchObject({ assigned: false, handoffWaiting: true, handoffWaitingMinutes: 30 });
    expect((await agent.call('GET', '/api/me/notifications')).json().notifications).toMatchObject({ assigned: false, handoffWaitingMinutes: 30 });
    expect((await acme.call('GET', '/api/me/notifications')).json().notifications).toMatchObject({ assigned: true, handoffWaitingMinutes: 15 });
    expect((await agent.call('PUT', '/api/me/notifications', { handoffWaitingMinutes: 0 })).statusCode).toBe(400);
    expect((await agent.call('PUT', '/api/me/notifications', { userId: acme.user.id })).statusCode).toBe(400);
    expect((await server.app.inject({ method: 'GET', url: '/api/me/notifications' })).statusCode).toBe(401);
  });
});

describe('the assignment email', () => {
  it('given a teammate who wants it, when the owner assigns them a conversation, then they get one email with its link; assigning yourself, or a teammate who opted out, sends none', async () => {
    const acme = await signUp(server, 'Assign');
    const ann = await teammate(acme, 'agent');
    const bob = await teammate(acme, 'agent');
    await bob.call('PUT', '/api/me/notifications', { assigned: false });
    const id = await handedOffConversation(acme);

    expect((await acme.call('POST', `/api/conversations/${id}/assign`, { assigneeId: ann.userId })).statusCode).toBe(200);
    await expect.poll(() => mailTo(ann.email).length, { timeout: 10_000 }).toBe(1);
    const mail = mailTo(ann.email)[0]!;
    // A test message's customer has no name of their own: the mail uses the same generated name as the dashboard.
    const name = (await acme.call('GET', `/api/conversations/${id}`)).json().conversation.customer.displayName as string;
    expect(name).toMatch(/^[A-Z][a-z]+ [A-Z][a-z]+$/);
    expect(mail).toMatch(new RegExp(`^Subject: A conversation with ${name} was assigned to you$`, 'm'));
    expect(mail).toContain(`https://app.example.com/#/conversations/${id}`);
    expect(mail).not.toContain('meaning of life');

    expect((await acme.call('POST', `/api/conversations/${id}/assign`, { assigneeId: bob.userId })).statusCode).toBe(200);
    expect((await acme.call('POST', `/api/conversations/${id}/assign`, { assigneeId: acme.user.id })).statusCode).toBe(200);
    await sleep(800);
    expect(mailTo(bob.email)).toEqual([]);
    expect(mailTo(acme.email)).toEqual([]);
    expect(mailTo(ann.email)).toHaveLength(1);
  });
});

describe('the waiting-handoff email', () => {
  it('given an unassigned handoff, when it has waited longer than each owner\'s or admin\'s chosen time, then each gets one email; an agent gets none', async () => {
    const acme = await signUp(server, 'Waiting');
    const admin = await teammate(acme, 'admin');
    const agent = await teammate(acme, 'agent');
    await admin.call('PUT', '/api/me/notifications', { handoffWaitingMinutes: 60 });
    const before = sink.messages.length;
    const id = await handedOffConversation(acme);

    clockAheadMs += 16 * 60_000;
    await expect.poll(() => mailTo(acme.email).length, { timeout: 10_000 }).toBe(1);
    const name = (await acme.call('GET', `/api/conversations/${id}`)).json().conversation.customer.displayName as string;
    expect(mailTo(acme.email)[0]).toMatch(new RegExp(`^Subject: ${name} has waited 1[67] minutes for a person$`, 'm'));
    expect(mailTo(acme.email)[0]).toContain(`https://app.example.com/#/conversations/${id}`);
    expect(mailTo(admin.email)).toEqual([]);

    clockAheadMs += 45 * 60_000;
    await expect.poll(() => mailTo(admin.email).length, { timeout: 10_000 }).toBe(1);
    await sleep(600);
    // One email each per handoff, however many sweeps pass; the agent (no owner of unassigned work) gets none.
    expect(mailTo(acme.email)).toHaveLength(1);
    expect(mailTo(agent.email)).toEqual([]);
    expect(sink.messages.length).toBeGreaterThan(before);
  });
});
