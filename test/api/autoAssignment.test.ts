import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { signUp, type Company } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * Availability and automatic assignment (issue 25): a teammate says whether they take conversations; owners and
 * admins turn on round-robin assignment of handed-off conversations with a per-person capacity; a conversation
 * nobody has room for waits and is assigned as soon as someone frees up. Through a real listening server.
 */

const SECRET = 'whsec_auto_assign_0123456789abcdef';
let server: TestServer;
let base: string;

async function addTeammate(owner: Company, name: string, role: 'agent' | 'admin' = 'agent') {
  const invited = await owner.call('POST', '/api/team/invitations', { email: uniqueEmail('mate'), role });
  expect(invited.statusCode).toBe(201);
  const url = invited.json().invitationUrl as string;
  const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
  const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name, password: 'teammate password' } });
  expect(accepted.statusCode).toBe(200);
  const bearer = accepted.json().session.access_token as string;
  return { userId: accepted.json().user.id as string, call: (method: 'GET' | 'POST' | 'PUT', path: string, payload?: unknown) => owner.call(method, path, payload, bearer) };
}

/** A company whose builtin agent hands every question off (its knowledge base is empty). */
async function companyWithHandoffs(name: string) {
  const owner = await signUp(server, name);
  const agent = (await owner.call('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava.', handoffMessage: 'A colleague will answer shortly.' })).json().agent.id as string;
  const integrationId = (await owner.call('POST', '/api/integrations', { name: 'Line', connectorType: 'msgplatform', agentId: agent, webhookSecret: SECRET })).json().integration.id as number;
  return { owner, integrationId };
}

const settled = <T>(check: () => Promise<T>) => eventually(check, 10_000, 50);

/** A customer's question is handed off; resolves with the conversation id once it waits in "Needs human". */
async function handedOff(co: { owner: Company; integrationId: number }, clientId: string): Promise<string> {
  const body = JSON.stringify({ text: 'Do you sell gift cards for the winter collection?', client_id: clientId, channel_id: 1, transport: 'telegram' });
  const res = await fetch(`${base}/api/webhook/msgplatform/${co.integrationId}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) } });
  expect(res.status).toBe(200);
  return settled(async () => {
    const list = (await co.owner.call('GET', '/api/conversations?view=needs_human&limit=200')).json().conversations as { id: string; customer: { clientId: string } }[];
    const found = list.find((c) => String(c.customer.clientId) === clientId);
    if (!found) throw new Error(`${clientId} is not waiting yet`);
    return found.id;
  });
}

const assigneeOf = async (owner: Company, id: string) => (await owner.call('GET', `/api/conversations/${id}`)).json().conversation.assigneeId as string | null;
const assignments = async (owner: Company, id: string) =>
  ((await owner.call('GET', `/api/conversations/${id}/events`)).json().events as { type: string; data: Record<string, unknown> }[]).filter((e) => e.type === 'ConversationAssigned').map((e) => e.data);

beforeAll(async () => {
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '0' });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await server?.close();
});

describe('availability', () => {
  it('given a teammate of any role, when they set their availability, then the team list shows it with how many open conversations they own', async () => {
    const owner = await signUp(server, 'Availability Co');
    const bob = await addTeammate(owner, 'Bob Agent');
    const before = (await owner.call('GET', '/api/team')).json().teammates as { id: string; availability: string; openAssigned: number }[];
    expect(before.find((t) => t.id === bob.userId)).toMatchObject({ availability: 'online', openAssigned: 0 });

    const away = await bob.call('PUT', '/api/team/me/availability', { availability: 'away' });
    expect(away.statusCode).toBe(200);
    expect(away.json()).toEqual({ availability: 'away' });
    const after = (await owner.call('GET', '/api/team')).json().teammates as { id: string; availability: string }[];
    expect(after.find((t) => t.id === bob.userId)!.availability).toBe('away');
    expect(after.find((t) => t.id === owner.user.id)!.availability).toBe('online');
    // Saying it again records nothing new and answers the same.
    expect((await bob.call('PUT', '/api/team/me/availability', { availability: 'away' })).json()).toEqual({ availability: 'away' });
  });

  it('an unknown availability is 400 with the error shape; no session is 401', async () => {
    const owner = await signUp(server, 'Availability Errors Co');
    const res = await owner.call('PUT', '/api/team/me/availability', { availability: 'busy' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect((await server.app.inject({ method: 'PUT', url: '/api/team/me/availability', payload: { availability: 'away' } })).statusCode).toBe(401);
  });
});

describe('automatic assignment settings', () => {
  it('given a new company, it is off with a capacity of 3; owners and admins change it, agents may neither read nor change it (403)', async () => {
    const owner = await signUp(server, 'Settings Co');
    const admin = await addTeammate(owner, 'Ada Admin', 'admin');
    const agent = await addTeammate(owner, 'Al Agent');
    expect((await owner.call('GET', '/api/settings/auto-assignment')).json()).toEqual({ autoAssignment: { enabled: false, capacity: 3 } });
    for (const [method, payload] of [['GET', undefined], ['PUT', { enabled: true, capacity: 2 }]] as const) {
      const res = await agent.call(method, '/api/settings/auto-assignment', payload);
      expect(res.statusCode, method).toBe(403);
      expect(res.json().error.code).toBe('FORBIDDEN');
    }
    const set = await admin.call('PUT', '/api/settings/auto-assignment', { enabled: true, capacity: 2 });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({ autoAssignment: { enabled: true, capacity: 2 } });
    expect((await owner.call('GET', '/api/settings/auto-assignment')).json()).toEqual({ autoAssignment: { enabled: true, capacity: 2 } });
    for (const bad of [{ enabled: true, capacity: 0 }, { enabled: true, capacity: 101 }, { enabled: 'yes', capacity: 2 }, { enabled: true }]) {
      expect((await owner.call('PUT', '/api/settings/auto-assignment', bad)).statusCode, JSON.stringify(bad)).toBe(400);
    }
  });

  it("each company sees and changes only its own settings", async () => {
    const acme = await signUp(server, 'Acme Settings');
    const globex = await signUp(server, 'Globex Settings');
    expect((await acme.call('PUT', '/api/settings/auto-assignment', { enabled: true, capacity: 5 })).statusCode).toBe(200);
    expect((await globex.call('GET', '/api/settings/auto-assignment')).json()).toEqual({ autoAssignment: { enabled: false, capacity: 3 } });
  });
});

describe('round-robin with a capacity', () => {
  it('given three waiting conversations and two online teammates with room for one each, when it is turned on, then the two oldest go one to each and the third waits until a place frees up', async () => {
    const co = await companyWithHandoffs('Round Robin Co');
    const bob = await addTeammate(co.owner, 'Bob Agent');
    const carol = await addTeammate(co.owner, 'Carol Agent');
    // The owner does not take conversations today.
    expect((await co.owner.call('PUT', '/api/team/me/availability', { availability: 'away' })).statusCode).toBe(200);
    const first = await handedOff(co, 'rr-1');
    const second = await handedOff(co, 'rr-2');
    const third = await handedOff(co, 'rr-3');
    expect([await assigneeOf(co.owner, first), await assigneeOf(co.owner, second), await assigneeOf(co.owner, third)]).toEqual([null, null, null]);

    expect((await co.owner.call('PUT', '/api/settings/auto-assignment', { enabled: true, capacity: 1 })).statusCode).toBe(200);
    await settled(async () => expect(await assigneeOf(co.owner, second)).not.toBeNull());
    const firstOwner = await assigneeOf(co.owner, first);
    const secondOwner = await assigneeOf(co.owner, second);
    expect([firstOwner, secondOwner].sort()).toEqual([bob.userId, carol.userId].sort());
    expect(await assigneeOf(co.owner, third)).toBeNull();
    // Every automatic assignment is an event saying who and why.
    expect(await assignments(co.owner, first)).toEqual([expect.objectContaining({ assigneeId: firstOwner, previousAssigneeId: null, by: 'auto-assignment', reason: 'auto' })]);
    const team = (await co.owner.call('GET', '/api/team')).json().teammates as { id: string; openAssigned: number }[];
    expect(team.find((t) => t.id === bob.userId)!.openAssigned).toBe(1);

    // Resolving the first frees its owner's place: the waiting one is theirs at once.
    expect((await co.owner.call('POST', `/api/conversations/${first}/close`, {})).statusCode).toBe(200);
    await settled(async () => expect(await assigneeOf(co.owner, third)).toBe(firstOwner));
    expect(await assignments(co.owner, third)).toEqual([expect.objectContaining({ assigneeId: firstOwner, by: 'auto-assignment', reason: 'auto' })]);
  });

  it('given room for two each, when three conversations wait, then they alternate between the teammates (round-robin), oldest first', async () => {
    const co = await companyWithHandoffs('Alternating Co');
    const bob = await addTeammate(co.owner, 'Bob Agent');
    const carol = await addTeammate(co.owner, 'Carol Agent');
    expect((await co.owner.call('PUT', '/api/team/me/availability', { availability: 'away' })).statusCode).toBe(200);
    const waiting = [await handedOff(co, 'alt-1'), await handedOff(co, 'alt-2'), await handedOff(co, 'alt-3')];
    expect((await co.owner.call('PUT', '/api/settings/auto-assignment', { enabled: true, capacity: 2 })).statusCode).toBe(200);
    await settled(async () => expect(await assigneeOf(co.owner, waiting[2]!)).not.toBeNull());
    const owners = await Promise.all(waiting.map((id) => assigneeOf(co.owner, id)));
    expect(new Set([owners[0], owners[1]])).toEqual(new Set([bob.userId, carol.userId]));
    expect(owners[2]).toBe(owners[0]);
  });

  it('a teammate who is away gets nothing; unassigning frees a place; a manual assignment is never overridden', async () => {
    const co = await companyWithHandoffs('Away Co');
    const bob = await addTeammate(co.owner, 'Bob Agent');
    expect((await co.owner.call('PUT', '/api/team/me/availability', { availability: 'away' })).statusCode).toBe(200);
    expect((await bob.call('PUT', '/api/team/me/availability', { availability: 'away' })).statusCode).toBe(200);
    expect((await co.owner.call('PUT', '/api/settings/auto-assignment', { enabled: true, capacity: 1 })).statusCode).toBe(200);
    const first = await handedOff(co, 'away-1');
    const second = await handedOff(co, 'away-2');
    // Everyone away: both wait.
    await new Promise((r) => setTimeout(r, 300));
    expect(await assigneeOf(co.owner, first)).toBeNull();

    // Bob comes online: the oldest is his; the second waits (his one place is taken).
    expect((await bob.call('PUT', '/api/team/me/availability', { availability: 'online' })).statusCode).toBe(200);
    await settled(async () => expect(await assigneeOf(co.owner, first)).toBe(bob.userId));
    expect(await assigneeOf(co.owner, second)).toBeNull();

    // The owner takes the second by hand; Bob gives the first back: it goes to Bob again (he is the one online with room), and the owner's stays theirs.
    expect((await co.owner.call('POST', `/api/conversations/${second}/assign`, { assigneeId: co.owner.user.id })).statusCode).toBe(200);
    expect((await bob.call('POST', `/api/conversations/${first}/unassign`)).statusCode).toBe(200);
    await settled(async () => expect(await assignments(co.owner, first)).toHaveLength(2));
    await settled(async () => expect(await assigneeOf(co.owner, first)).toBe(bob.userId));
    expect(await assigneeOf(co.owner, second)).toBe(co.owner.user.id);
    expect(await assignments(co.owner, second)).toEqual([expect.objectContaining({ reason: 'manual', by: `user:${co.owner.user.id}` })]);
  });

  it("another company's conversations are never given to this company's teammates, and its settings do not apply here", async () => {
    const acme = await companyWithHandoffs('Acme Auto');
    const globex = await companyWithHandoffs('Globex Auto');
    expect((await acme.owner.call('PUT', '/api/settings/auto-assignment', { enabled: true, capacity: 5 })).statusCode).toBe(200);
    const acmeWaiting = await handedOff(acme, 'iso-acme');
    const globexWaiting = await handedOff(globex, 'iso-globex');
    await settled(async () => expect(await assigneeOf(acme.owner, acmeWaiting)).toBe(acme.owner.user.id));
    // Globex has not turned it on: its conversation waits, and Acme cannot see it.
    expect(await assigneeOf(globex.owner, globexWaiting)).toBeNull();
    expect((await acme.owner.call('GET', `/api/conversations/${globexWaiting}`)).statusCode).toBe(404);
  });
});
