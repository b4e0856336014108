import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { signUp, type Company } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * Support teams and routing (issue 39): owners and admins make teams of teammates and route an integration's
 * handoffs to one; the conversation carries the team, the inbox filters by it, and automatic assignment picks
 * among the team's members only. Through a real listening server (the webhook starts the handoff).
 */

const SECRET = 'whsec_support_teams_0123456789abcdef';
let server: TestServer;
let base: string;

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
async function addTeammate(owner: Company, name: string, role: 'agent' | 'admin' = 'agent') {
  const invited = await owner.call('POST', '/api/team/invitations', { email: uniqueEmail('mate'), role });
  expect(invited.statusCode).toBe(201);
  const url = invited.json().invitationUrl as string;
  const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
  const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name, password: 'teammate password' } });
  expect(accepted.statusCode).toBe(200);
  const bearer = accepted.json().session.access_token as string;
  return { userId: accepted.json().user.id as string, call: (method: Method, path: string, payload?: unknown) => owner.call(method as 'GET', path, payload, bearer) };
}

async function companyWithHandoffs(name: string) {
  const owner = await signUp(server, name);
  const agent = (await owner.call('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava.', handoffMessage: 'A colleague will answer shortly.' })).json().agent.id as string;
  const integrationId = (await owner.call('POST', '/api/integrations', { name: 'Line', connectorType: 'msgplatform', agentId: agent, webhookSecret: SECRET })).json().integration.id as number;
  return { owner, integrationId };
}

const settled = <T>(check: () => Promise<T>) => eventually(check, 15_000, 50);

async function handedOff(co: { owner: Company; integrationId: number }, clientId: string): Promise<string> {
  const body = JSON.stringify({ text: 'Do you sell gift cards for the winter collection?', client_id: clientId, channel_id: 1, transport: 'telegram' });
  const res = await fetch(`${base}/api/webhook/msgplatform/${co.integrationId}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) } });
  expect(res.status).toBe(200);
  return settled(async () => {
    const list = (await co.owner.call('GET', '/api/conversations?limit=200')).json().conversations as { id: string; customer: { clientId: string } }[];
    const found = list.find((c) => String(c.customer.clientId) === clientId);
    if (!found) throw new Error(`${clientId} has no conversation yet`);
    return found.id;
  });
}

beforeAll(async () => {
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '0' });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await server?.close();
});

describe('support teams', () => {
  it('owners and admins create, rename and staff a team; every role reads them; agents get 403', async () => {
    const owner = await signUp(server, 'Teams Co');
    const admin = await addTeammate(owner, 'Ada Admin', 'admin');
    const agent = await addTeammate(owner, 'Al Agent');
    const created = await admin.call('POST', '/api/teams', { name: 'Billing', memberIds: [agent.userId] });
    expect(created.statusCode).toBe(201);
    const team = created.json().team;
    expect(team).toMatchObject({ name: 'Billing', memberIds: [agent.userId], capacity: null });

    expect((await agent.call('GET', '/api/teams')).json()).toEqual({ teams: [team], routes: [] });
    expect((await agent.call('GET', `/api/teams/${team.id}`)).json().team).toEqual(team);
    for (const [method, path, body] of [
      ['POST', '/api/teams', { name: 'Mine' }],
      ['PATCH', `/api/teams/${team.id}`, { name: 'Mine' }],
      ['DELETE', `/api/teams/${team.id}`, undefined],
      ['PUT', '/api/teams/routes/1', { teamId: null }],
    ] as const) {
      const res = await agent.call(method, path, body);
      expect(res.statusCode, `${method} ${path}`).toBe(403);
      expect(res.json().error.code).toBe('FORBIDDEN');
    }

    const patched = await owner.call('PATCH', `/api/teams/${team.id}`, { name: 'Billing & refunds', memberIds: [agent.userId, admin.userId], capacity: 2 });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().team).toMatchObject({ name: 'Billing & refunds', memberIds: [agent.userId, admin.userId], capacity: 2 });
  });

  it('bad input is 400 (a stranger as member, a blank name, an unknown field); a duplicate name is 409', async () => {
    const owner = await signUp(server, 'Strict Teams Co');
    const stranger = (await signUp(server, 'Stranger Co')).user.id;
    for (const body of [{ name: 'X', memberIds: [stranger] }, { name: '  ' }, { name: 'X', extra: 1 }, { name: 'X', capacity: 0 }]) {
      const res = await owner.call('POST', '/api/teams', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    expect((await owner.call('POST', '/api/teams', { name: 'Tier 2' })).statusCode).toBe(201);
    const dup = await owner.call('POST', '/api/teams', { name: 'tier 2' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error.code).toBe('CONFLICT');
  });

  it("another company's team and integration are 404, and its list does not show them", async () => {
    const acme = await companyWithHandoffs('Acme Teams');
    const globex = await companyWithHandoffs('Globex Teams');
    const team = (await acme.owner.call('POST', '/api/teams', { name: 'Acme only' })).json().team;
    for (const [method, path, body] of [
      ['GET', `/api/teams/${team.id}`, undefined],
      ['PATCH', `/api/teams/${team.id}`, { name: 'Stolen' }],
      ['DELETE', `/api/teams/${team.id}`, undefined],
      ['PUT', `/api/teams/routes/${acme.integrationId}`, { teamId: null }],
    ] as const) {
      const res = await globex.owner.call(method, path, body);
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
    }
    // Globex's own integration routed to Acme's team: the team is not Globex's.
    expect((await globex.owner.call('PUT', `/api/teams/routes/${globex.integrationId}`, { teamId: team.id })).statusCode).toBe(404);
    expect((await globex.owner.call('GET', '/api/teams')).json()).toEqual({ teams: [], routes: [] });
    expect((await acme.owner.call('GET', `/api/teams/${team.id}`)).json().team.name).toBe('Acme only');
  });

  it("given a route, a handed-off conversation gets the team, the inbox filters by it, and automatic assignment picks the team's member", async () => {
    const co = await companyWithHandoffs('Routed Co');
    const outsider = await addTeammate(co.owner, 'Olga Outside');
    const member = await addTeammate(co.owner, 'Mia Member');
    // The owner and the outsider are online too, and given nothing since: round-robin alone would pick them first.
    const team = (await co.owner.call('POST', '/api/teams', { name: 'Gift cards', memberIds: [member.userId] })).json().team;
    const routed = await co.owner.call('PUT', `/api/teams/routes/${co.integrationId}`, { teamId: team.id });
    expect(routed.statusCode).toBe(200);
    expect(routed.json()).toEqual({ routes: [{ integrationId: co.integrationId, teamId: team.id }] });
    expect((await co.owner.call('PUT', '/api/settings/auto-assignment', { enabled: true, capacity: 3 })).statusCode).toBe(200);

    const first = await handedOff(co, '501');
    const second = await handedOff(co, '502');
    for (const id of [first, second]) {
      await settled(async () => {
        const conversation = (await co.owner.call('GET', `/api/conversations/${id}`)).json().conversation;
        expect(conversation.teamId).toBe(team.id);
        expect(conversation.assigneeId).toBe(member.userId);
      });
    }
    const events = (await co.owner.call('GET', `/api/conversations/${first}/events`)).json().events as { type: string; data: Record<string, unknown> }[];
    expect(events.find((e) => e.type === 'ConversationRoutedToTeam')?.data).toMatchObject({ teamId: team.id, previousTeamId: null, by: 'routing' });
    expect(events.filter((e) => e.type === 'ConversationAssigned').map((e) => e.data.assigneeId)).toEqual([member.userId]);

    const filtered = (await co.owner.call('GET', `/api/conversations?teamId=${team.id}`)).json().conversations as { id: string }[];
    expect(filtered.map((c) => c.id).sort()).toEqual([first, second].sort());
    expect((await co.owner.call('GET', `/api/conversations?view=mine&teamId=${team.id}`)).json().conversations).toEqual([]);
    const mine = (await member.call('GET', `/api/conversations?view=mine&teamId=${team.id}`)).json().conversations as { id: string }[];
    expect(mine).toHaveLength(2);
    const combined = await co.owner.call('GET', `/api/conversations?teamId=${team.id}&state=active`);
    expect(combined.statusCode).toBe(400);
    expect(combined.json().error.code).toBe('VALIDATION_ERROR');
    expect(outsider.userId).not.toBe(member.userId);
  });

  it("when the team's members are full, its conversation waits rather than going to someone outside the team", async () => {
    const co = await companyWithHandoffs('Full Team Co');
    const member = await addTeammate(co.owner, 'Max Member');
    const team = (await co.owner.call('POST', '/api/teams', { name: 'Small', memberIds: [member.userId], capacity: 1 })).json().team;
    await co.owner.call('PUT', `/api/teams/routes/${co.integrationId}`, { teamId: team.id });
    await co.owner.call('PUT', '/api/settings/auto-assignment', { enabled: true, capacity: 5 });
    const first = await handedOff(co, '601');
    await settled(async () => expect((await co.owner.call('GET', `/api/conversations/${first}`)).json().conversation.assigneeId).toBe(member.userId));
    const second = await handedOff(co, '602');
    await settled(async () => expect((await co.owner.call('GET', `/api/conversations/${second}`)).json().conversation.teamId).toBe(team.id));
    // The team's capacity (1) is full: it waits, even though the owner (outside the team) has room.
    const waiting = (await co.owner.call('GET', `/api/conversations?view=needs_human&teamId=${team.id}`)).json().conversations as { id: string; assigneeId: string | null }[];
    expect(waiting.find((c) => c.id === second)?.assigneeId).toBeNull();
    // Raising the team's capacity serves it.
    await co.owner.call('PATCH', `/api/teams/${team.id}`, { capacity: 2 });
    await settled(async () => expect((await co.owner.call('GET', `/api/conversations/${second}`)).json().conversation.assigneeId).toBe(member.userId));
  });

  it("deleting a team removes it and its route; its waiting conversation goes back to everyone's queue and is assigned", async () => {
    const co = await companyWithHandoffs('Deleting Co');
    const team = (await co.owner.call('POST', '/api/teams', { name: 'Temp' })).json().team;
    await co.owner.call('PUT', `/api/teams/routes/${co.integrationId}`, { teamId: team.id });
    await co.owner.call('PUT', '/api/settings/auto-assignment', { enabled: true, capacity: 3 });
    // A team without members: the conversation waits for it.
    const waiting = await handedOff(co, '701');
    await settled(async () => expect((await co.owner.call('GET', `/api/conversations/${waiting}`)).json().conversation.teamId).toBe(team.id));
    expect((await co.owner.call('GET', `/api/conversations/${waiting}`)).json().conversation.assigneeId).toBeNull();
    expect((await co.owner.call('DELETE', `/api/teams/${team.id}`)).statusCode).toBe(204);
    await settled(async () => expect((await co.owner.call('GET', `/api/conversations/${waiting}`)).json().conversation).toMatchObject({ teamId: null, assigneeId: co.owner.user.id }));
    expect((await co.owner.call('GET', '/api/teams')).json()).toEqual({ teams: [], routes: [] });
    expect((await co.owner.call('GET', `/api/teams/${team.id}`)).statusCode).toBe(404);
  });

  it("a teammate of any role moves a conversation to a team and back; another company's team is 400, its conversation 404", async () => {
    const co = await companyWithHandoffs('Manual Teams Co');
    const other = await companyWithHandoffs('Other Manual Co');
    const agent = await addTeammate(co.owner, 'Ann Agent');
    const team = (await co.owner.call('POST', '/api/teams', { name: 'Returns' })).json().team;
    const foreign = (await other.owner.call('POST', '/api/teams', { name: 'Theirs' })).json().team;
    const id = await handedOff(co, '801');
    const moved = await agent.call('PUT', `/api/conversations/${id}/team`, { teamId: team.id });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().conversation.teamId).toBe(team.id);
    const events = (await co.owner.call('GET', `/api/conversations/${id}/events`)).json().events as { type: string; data: Record<string, unknown> }[];
    expect(events.filter((e) => e.type === 'ConversationRoutedToTeam').map((e) => e.data)).toEqual([expect.objectContaining({ teamId: team.id, previousTeamId: null, by: `user:${agent.userId}` })]);
    const refused = await agent.call('PUT', `/api/conversations/${id}/team`, { teamId: foreign.id });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.code).toBe('VALIDATION_ERROR');
    expect((await other.owner.call('PUT', `/api/conversations/${id}/team`, { teamId: foreign.id })).statusCode).toBe(404);
    const back = await co.owner.call('PUT', `/api/conversations/${id}/team`, { teamId: null });
    expect(back.json().conversation.teamId).toBeNull();
  });

  it('the OpenAPI document names the routes, and the list filter teamId', async () => {
    const doc = (await server.app.inject('/docs/json')).json() as { paths: Record<string, Record<string, { parameters?: { name: string }[] }>> };
    expect(Object.keys(doc.paths['/api/teams'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/teams/{id}'] ?? {}).sort()).toEqual(['delete', 'get', 'patch']);
    expect(Object.keys(doc.paths['/api/teams/routes/{integrationId}'] ?? {})).toEqual(['put']);
    expect(Object.keys(doc.paths['/api/conversations/{id}/team'] ?? {})).toEqual(['put']);
    expect(doc.paths['/api/conversations']?.get?.parameters?.map((p) => p.name)).toContain('teamId');
  });
});
