import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { memberRole } from '../../src/commands/accounts/membership.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * Working as a support team: an owner or admin invites an email with a role; the link's single-use token
 * creates the user in the same company and signs them in; roles limit what agents may do; a removed
 * teammate's next request is refused. Requests go over real HTTP to a listening server.
 */
let server: TestServer;
let base: string;
let offsetMs = 0;

beforeAll(async () => {
  server = await startTestServer({}, undefined, { clock: { now: () => new Date(Date.now() + offsetMs) } });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => server?.close());

type Res = { status: number; body: any };
async function call(method: string, path: string, body?: unknown, bearer?: string): Promise<Res> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function owner(companyName = 'Acme') {
  const email = uniqueEmail('owner');
  const reg = await call('POST', '/api/auth/register', { email, password: 'correct horse', companyName });
  expect(reg.status).toBe(201);
  const login = await call('POST', '/api/auth/login', { email, password: 'correct horse' });
  expect(login.status).toBe(200);
  return { email, bearer: login.body.session.access_token as string, session: login.body.session, userId: login.body.user.id as string, company: reg.body.company };
}

const tokenOf = (url: string) => url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);

async function invite(bearer: string, role: 'owner' | 'admin' | 'agent', email = uniqueEmail(role)) {
  const res = await call('POST', '/api/team/invitations', { email, role }, bearer);
  expect(res.status).toBe(201);
  return { email, token: tokenOf(res.body.invitationUrl), res };
}

async function join(bearer: string, role: 'owner' | 'admin' | 'agent', name = `A ${role}`) {
  const { email, token } = await invite(bearer, role);
  const accepted = await call('POST', '/api/auth/accept-invitation', { token, name, password: 'agent password' });
  expect(accepted.status).toBe(200);
  return { email, bearer: accepted.body.session.access_token as string, session: accepted.body.session, userId: accepted.body.user.id as string };
}

describe('inviting a teammate', () => {
  it('201 with the invitation and a link shown once; the pending list shows it without the token', async () => {
    const o = await owner();
    const email = uniqueEmail('Invitee').toUpperCase();
    const res = await call('POST', '/api/team/invitations', { email, role: 'agent' }, o.bearer);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      invitation: {
        id: expect.any(String),
        email: email.toLowerCase(),
        role: 'agent',
        invitedBy: o.userId,
        createdAt: expect.any(String),
        expiresAt: expect.any(String),
        expired: false,
      },
      invitationUrl: expect.stringMatching(/^http:\/\/localhost:\d+\/#\/accept-invitation\/[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/),
      emailed: false,
    });
    // Seven days by default.
    expect(Date.parse(res.body.invitation.expiresAt) - Date.parse(res.body.invitation.createdAt)).toBe(7 * 86_400_000);
    const list = await call('GET', '/api/team/invitations', undefined, o.bearer);
    expect(list.status).toBe(200);
    expect(list.body.invitations).toEqual([res.body.invitation]);
    expect(JSON.stringify(list.body)).not.toContain(tokenOf(res.body.invitationUrl).split('.')[1]);
  });

  it('stores only the hash of the token: not in any event, not in the read models', async () => {
    const o = await owner();
    const { token } = await invite(o.bearer, 'agent');
    const secret = token.split('.')[1]!;
    const all = JSON.stringify(await server.adapters.eventStore.readAll({}), (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    expect(all).not.toContain(secret);
    const docs = await server.adapters.readStore.find('invitations', { where: { companyId: o.company.companyId } });
    expect(JSON.stringify(docs)).not.toContain(secret);
    expect(JSON.stringify(docs)).not.toContain('tokenHash');
  });

  it('an email that already has an account: 409 EMAIL_TAKEN', async () => {
    const o = await owner();
    const other = await owner('Other');
    const res = await call('POST', '/api/team/invitations', { email: other.email, role: 'agent' }, o.bearer);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: { code: 'EMAIL_TAKEN', message: expect.any(String) } });
  });

  it('lists pending invitations with keyset cursors, newest first', async () => {
    const o = await owner();
    for (let i = 0; i < 3; i++) await invite(o.bearer, 'agent');
    const first = await call('GET', '/api/team/invitations?limit=2', undefined, o.bearer);
    expect(first.body.invitations).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await call('GET', `/api/team/invitations?limit=2&cursor=${first.body.nextCursor}`, undefined, o.bearer);
    expect(second.body.invitations).toHaveLength(1);
    expect(second.body.nextCursor).toBeNull();
    const ids = [...first.body.invitations, ...second.body.invitations].map((i: any) => i.createdAt);
    expect([...ids].sort().reverse()).toEqual(ids);
    const foreign = await call('GET', `/api/team?cursor=${first.body.nextCursor}`, undefined, o.bearer);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('accepting an invitation', () => {
  it('creates the user in the same company with the invited role and signs them in', async () => {
    const o = await owner('Same Co');
    const { email, token } = await invite(o.bearer, 'admin');
    const preview = await call('POST', '/api/auth/invitation', { token });
    expect(preview.status).toBe(200);
    expect(preview.body.invitation).toMatchObject({ email, role: 'admin', companyName: 'Same Co' });

    const res = await call('POST', '/api/auth/accept-invitation', { token, name: 'Ada Admin', password: 'agent password' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      session: { access_token: expect.any(String), refresh_token: expect.any(String), expires_at: expect.any(Number) },
      user: { id: expect.any(String), email, companyId: o.company.id },
    });
    const me = await call('GET', '/api/auth/me', undefined, res.body.session.access_token);
    expect(me.body.company.companyId).toBe(o.company.companyId);
    const team = await call('GET', '/api/team', undefined, o.bearer);
    expect(team.body.teammates).toEqual([
      // Each with whether they take conversations now and how many open ones they own (automatic assignment).
      { id: o.userId, email: o.email, name: null, role: 'owner', joinedAt: expect.any(String), availability: 'online', openAssigned: 0 },
      { id: res.body.user.id, email, name: 'Ada Admin', role: 'admin', joinedAt: expect.any(String), availability: 'online', openAssigned: 0 },
    ]);
    // The accepted invitation is no longer pending; the new user logs in with their password.
    expect((await call('GET', '/api/team/invitations', undefined, o.bearer)).body.invitations).toEqual([]);
    expect((await call('POST', '/api/auth/login', { email, password: 'agent password' })).status).toBe(200);
  });

  it('password rules as at registration: 400 VALIDATION_ERROR, and the invitation still works', async () => {
    const o = await owner();
    const { token } = await invite(o.bearer, 'agent');
    const short = await call('POST', '/api/auth/accept-invitation', { token, name: 'Al', password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringContaining('password') });
    expect((await call('POST', '/api/auth/accept-invitation', { token, name: 'Al', password: 'long enough' })).status).toBe(200);
  });

  it('a used token is 410 INVITATION_USED; an unknown one 404 NOT_FOUND', async () => {
    const o = await owner();
    const { token } = await invite(o.bearer, 'agent');
    expect((await call('POST', '/api/auth/accept-invitation', { token, name: 'Al', password: 'long enough' })).status).toBe(200);
    const again = await call('POST', '/api/auth/accept-invitation', { token, name: 'Al', password: 'long enough' });
    expect(again.status).toBe(410);
    expect(again.body).toEqual({ error: { code: 'INVITATION_USED', message: expect.any(String) } });
    const [id] = token.split('.');
    for (const bad of [`${id}.${'x'.repeat(43)}`, 'not-a-token', `00000000-0000-4000-8000-000000000000.${'x'.repeat(43)}`]) {
      const res = await call('POST', '/api/auth/accept-invitation', { token: bad, name: 'Al', password: 'long enough' });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('a revoked invitation is 410 INVITATION_REVOKED', async () => {
    const o = await owner();
    const { token, res } = await invite(o.bearer, 'agent');
    expect((await call('DELETE', `/api/team/invitations/${res.body.invitation.id}`, undefined, o.bearer)).status).toBe(204);
    expect((await call('GET', '/api/team/invitations', undefined, o.bearer)).body.invitations).toEqual([]);
    const accept = await call('POST', '/api/auth/accept-invitation', { token, name: 'Al', password: 'long enough' });
    expect(accept.status).toBe(410);
    expect(accept.body.error.code).toBe('INVITATION_REVOKED');
  });

  it('an expired invitation is 410 INVITATION_EXPIRED and listed as expired', async () => {
    const o = await owner();
    const { token } = await invite(o.bearer, 'agent');
    offsetMs = 7 * 86_400_000 + 1000;
    try {
      const accept = await call('POST', '/api/auth/accept-invitation', { token, name: 'Al', password: 'long enough' });
      expect(accept.status).toBe(410);
      expect(accept.body.error.code).toBe('INVITATION_EXPIRED');
    } finally {
      offsetMs = 0;
    }
  });

  it('an email that registered meanwhile: 409 EMAIL_TAKEN, and the invitation is not used up', async () => {
    const o = await owner();
    const { email, token } = await invite(o.bearer, 'agent');
    expect((await call('POST', '/api/auth/register', { email, password: 'correct horse', companyName: 'Own' })).status).toBe(201);
    const res = await call('POST', '/api/auth/accept-invitation', { token, name: 'Al', password: 'long enough' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('EMAIL_TAKEN');
    expect((await call('GET', '/api/team/invitations', undefined, o.bearer)).body.invitations).toHaveLength(1);
  });

  it('ten concurrent accepts of one token create exactly one user', async () => {
    const o = await owner();
    const { email, token } = await invite(o.bearer, 'agent');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => call('POST', '/api/auth/accept-invitation', { token, name: `Racer ${i}`, password: 'long enough' })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) {
      expect([409, 410]).toContain(r.status);
      expect(r.body.error).toEqual({ code: expect.stringMatching(/^(EMAIL_TAKEN|INVITATION_USED)$/), message: expect.any(String) });
    }
    const team = (await call('GET', '/api/team', undefined, o.bearer)).body.teammates;
    expect(team.filter((t: any) => t.email === email)).toHaveLength(1);
    const users = (await server.adapters.eventStore.readAll({})).filter((e: any) => e.type === 'UserRegistered' && e.data.email === email);
    expect(users).toHaveLength(1);
  });
});

describe('an invitation dies with its inviter\'s power', () => {
  const accept = (token: string) => call('POST', '/api/auth/accept-invitation', { token, name: 'Late', password: 'long enough' });

  it('given an invitation sent by an admin, when the admin is removed, then it can no longer be accepted: 410 INVITATION_REVOKED', async () => {
    const o = await owner();
    const admin = await join(o.bearer, 'admin');
    const { token } = await invite(admin.bearer, 'admin');
    expect((await call('DELETE', `/api/team/${admin.userId}`, undefined, o.bearer)).status).toBe(204);

    const preview = await call('POST', '/api/auth/invitation', { token });
    expect(preview.status).toBe(410);
    const res = await accept(token);
    expect(res.status).toBe(410);
    expect(res.body).toEqual({ error: { code: 'INVITATION_REVOKED', message: expect.any(String) } });
    expect((await call('GET', '/api/team', undefined, o.bearer)).body.teammates.map((t: any) => t.id)).toEqual([o.userId]);
    // The removal revoked it: it leaves the pending list.
    expect((await call('GET', '/api/team/invitations', undefined, o.bearer)).body.invitations).toEqual([]);
  });

  it('given an invitation sent by an admin, when the admin is demoted to agent (who invites nobody), then it is refused: 410', async () => {
    const o = await owner();
    const admin = await join(o.bearer, 'admin');
    const { token } = await invite(admin.bearer, 'admin');
    expect((await call('PATCH', `/api/team/${admin.userId}`, { role: 'agent' }, o.bearer)).status).toBe(200);
    // The demotion revoked it: it leaves the pending list.
    expect((await call('GET', '/api/team/invitations', undefined, o.bearer)).body.invitations).toEqual([]);
    const res = await accept(token);
    expect(res.status).toBe(410);
    expect(res.body.error.code).toBe('INVITATION_REVOKED');
  });

  it('given an owner invitation, when its owner is demoted to admin, then it is refused; their agent invitation still works', async () => {
    const o = await owner();
    const second = await join(o.bearer, 'owner');
    const asOwner = await invite(second.bearer, 'owner');
    const asAgent = await invite(second.bearer, 'agent');
    expect((await call('PATCH', `/api/team/${second.userId}`, { role: 'admin' }, o.bearer)).status).toBe(200);
    expect((await call('GET', '/api/team/invitations', undefined, o.bearer)).body.invitations.map((i: any) => i.role)).toEqual(['agent']);
    expect((await accept(asOwner.token)).status).toBe(410);
    expect((await accept(asAgent.token)).status).toBe(200);
  });
});

describe('roles', () => {
  it('an agent reads and works conversations but gets 403 FORBIDDEN on integrations, LLM, API tokens, credits and the team', async () => {
    const o = await owner();
    const agent = await join(o.bearer, 'agent');
    expect((await call('GET', '/api/conversations', undefined, agent.bearer)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/api/integrations', { name: 'x', connectorType: 'webchat' }],
      ['GET', '/api/llm-config', undefined],
      ['GET', '/api/settings/api-tokens', undefined],
      ['POST', '/api/settings/api-tokens', { name: 'x' }],
      ['GET', '/api/credits', undefined],
      ['POST', '/api/team/invitations', { email: uniqueEmail(), role: 'agent' }],
      ['DELETE', `/api/team/${o.userId}`, undefined],
    ] as const) {
      const res = await call(method, path, body, agent.bearer);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toEqual({ error: { code: 'FORBIDDEN', message: expect.any(String) } });
    }
  });

  it('an admin does everything but remove or demote the owner, or make an owner', async () => {
    const o = await owner();
    const admin = await join(o.bearer, 'admin');
    const agent = await join(o.bearer, 'agent');
    expect((await call('GET', '/api/credits', undefined, admin.bearer)).status).toBe(200);
    expect((await call('PATCH', `/api/team/${agent.userId}`, { role: 'admin' }, admin.bearer)).body.teammate.role).toBe('admin');
    for (const [method, path, body] of [
      ['DELETE', `/api/team/${o.userId}`, undefined],
      ['PATCH', `/api/team/${o.userId}`, { role: 'agent' }],
      ['PATCH', `/api/team/${agent.userId}`, { role: 'owner' }],
      ['POST', '/api/team/invitations', { email: uniqueEmail(), role: 'owner' }],
    ] as const) {
      const res = await call(method, path, body, admin.bearer);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
  });

  it('a role change applies to the very next request', async () => {
    const o = await owner();
    const member = await join(o.bearer, 'admin');
    expect((await call('GET', '/api/credits', undefined, member.bearer)).status).toBe(200);
    expect((await call('PATCH', `/api/team/${member.userId}`, { role: 'agent' }, o.bearer)).status).toBe(200);
    expect((await call('GET', '/api/credits', undefined, member.bearer)).status).toBe(403);
  });

  it('the last owner can neither leave nor demote themselves: 409 LAST_OWNER; with a second owner they can', async () => {
    const o = await owner();
    for (const [method, body] of [['DELETE', undefined], ['PATCH', { role: 'admin' }]] as const) {
      const res = await call(method, `/api/team/${o.userId}`, body, o.bearer);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('LAST_OWNER');
    }
    const second = await join(o.bearer, 'owner');
    expect((await call('DELETE', `/api/team/${o.userId}`, undefined, second.bearer)).status).toBe(204);
  });
});

describe('removing a teammate', () => {
  it('ends their sessions: the access token stops working at once, refresh and login fail', async () => {
    const o = await owner();
    const agent = await join(o.bearer, 'agent');
    const again = await call('POST', '/api/auth/login', { email: agent.email, password: 'agent password' });
    expect((await call('GET', '/api/conversations', undefined, agent.bearer)).status).toBe(200);

    expect((await call('DELETE', `/api/team/${agent.userId}`, undefined, o.bearer)).status).toBe(204);

    for (const bearer of [agent.bearer, again.body.session.access_token]) {
      const res = await call('GET', '/api/conversations', undefined, bearer);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    }
    for (const refresh of [agent.session.refresh_token, again.body.session.refresh_token]) {
      expect((await call('POST', '/api/auth/refresh', { refresh_token: refresh })).status).toBe(401);
    }
    expect((await call('POST', '/api/auth/login', { email: agent.email, password: 'agent password' })).status).toBe(401);
    const sessions = (await server.adapters.eventStore.readAll({})).filter((e: any) => e.type === 'SessionRevoked' && e.data.reason === 'member_removed');
    expect(sessions.length).toBeGreaterThanOrEqual(2);
    expect((await call('GET', '/api/team', undefined, o.bearer)).body.teammates.map((t: any) => t.id)).toEqual([o.userId]);
    // Their email is free again: they can be invited anew.
    expect((await call('POST', '/api/team/invitations', { email: agent.email, role: 'agent' }, o.bearer)).status).toBe(201);
  });
});

describe('tenant isolation of teams', () => {
  it("another company's admin can't see, invite into, change or remove your teammates or revoke your invitations", async () => {
    const a = await owner('Company A');
    const aAgent = await join(a.bearer, 'agent');
    const aInvite = await invite(a.bearer, 'agent');
    const b = await owner('Company B');
    const bAdmin = await join(b.bearer, 'admin');

    const team = await call('GET', '/api/team', undefined, bAdmin.bearer);
    expect(team.body.teammates.map((t: any) => t.id).sort()).toEqual([b.userId, bAdmin.userId].sort());
    expect((await call('GET', '/api/team/invitations', undefined, bAdmin.bearer)).body.invitations).toEqual([]);
    for (const [method, path, body] of [
      ['PATCH', `/api/team/${aAgent.userId}`, { role: 'admin' }],
      ['DELETE', `/api/team/${aAgent.userId}`, undefined],
      ['DELETE', `/api/team/${a.userId}`, undefined],
      ['DELETE', `/api/team/invitations/${aInvite.res.body.invitation.id}`, undefined],
    ] as const) {
      const res = await call(method, path, body, bAdmin.bearer);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    // B's invitation puts the invitee into B, never into A.
    const bInvitee = await join(bAdmin.bearer, 'agent');
    expect((await call('GET', '/api/auth/me', undefined, bInvitee.bearer)).body.company.companyId).toBe(b.company.companyId);
    expect((await call('GET', '/api/team', undefined, a.bearer)).body.teammates.map((t: any) => t.id).sort()).toEqual([a.userId, aAgent.userId].sort());
    expect((await call('GET', '/api/conversations', undefined, aAgent.bearer)).status).toBe(200);
    expect((await call('GET', '/api/team/invitations', undefined, a.bearer)).body.invitations).toHaveLength(1);
  });
});

describe('OpenAPI', () => {
  it('documents the team routes from the same zod schemas', async () => {
    const docs = await (await fetch(`${base}/docs/json`)).json();
    for (const path of ['/api/team', '/api/team/{userId}', '/api/team/invitations', '/api/team/invitations/{id}', '/api/auth/accept-invitation', '/api/auth/invitation']) {
      expect(docs.paths[path], path).toBeDefined();
    }
    expect(docs.paths['/api/team/invitations'].post.requestBody.content['application/json'].schema.properties.role.enum).toEqual(['owner', 'admin', 'agent']);
    expect(docs.paths['/api/auth/accept-invitation'].post.requestBody.content['application/json'].schema.properties.password.minLength).toBe(8);
  });
});

describe('a company registered before teams existed', () => {
  it('has no team stream: its registering user reads as owner, anyone else as no member; the first join records that owner', async () => {
    const o = await owner('Old Co');
    // A company from before teams: its registration and no team stream.
    const companyId = randomUUID();
    const ownerId = randomUUID();
    const events = server.adapters.eventStore;
    await events.append(
      `company-${companyId}`,
      [{ id: randomUUID(), type: 'CompanyRegistered', data: { companyId, companyKey: 999_999, name: 'Old Co', ownerUserId: ownerId, createdAt: new Date().toISOString() } }],
      'no_stream',
    );
    expect(await memberRole({ eventStore: events }, companyId, ownerId)).toBe('owner');
    expect(await memberRole({ eventStore: events }, companyId, o.userId)).toBeNull();
    // And a company registered now has its owner on the team stream.
    expect(await memberRole({ eventStore: events }, o.company.companyId, o.userId)).toBe('owner');
    const team = await events.readStream(`team-${o.company.companyId}`);
    expect(team.map((e: any) => [e.type, e.data.role])).toEqual([['TeamMemberJoined', 'owner']]);
  });
});

describe('PUT /api/team/me/name: a teammate names themself', () => {
  const names = async (bearer: string) =>
    Object.fromEntries(((await call('GET', '/api/team', undefined, bearer)).body.teammates as Array<{ email: string; name: string | null }>).map((t) => [t.email, t.name]));

  it('given an owner who signed up without a name, when they set it, then the team shows it', async () => {
    const o = await owner('Named');
    expect((await names(o.bearer))[o.email]).toBeNull();
    const res = await call('PUT', '/api/team/me/name', { name: '  Olga Owner ' }, o.bearer);
    expect(res.status).toBe(200);
    expect(res.body.teammate).toMatchObject({ id: o.userId, email: o.email, name: 'Olga Owner', role: 'owner' });
    expect((await names(o.bearer))[o.email]).toBe('Olga Owner');
  });

  it('an agent names themself too, and only themself: the name of nobody else changes', async () => {
    const o = await owner('Agents name');
    const a = await join(o.bearer, 'agent', 'Al');
    expect((await call('PUT', '/api/team/me/name', { name: 'Alex' }, a.bearer)).status).toBe(200);
    const shown = await names(o.bearer);
    expect(shown[a.email]).toBe('Alex');
    expect(shown[o.email]).toBeNull();
  });

  it.each([
    ['empty', { name: '' }],
    ['blank', { name: '   ' }],
    ['too long', { name: 'x'.repeat(201) }],
    ['missing', {}],
    ['another field', { name: 'Olga', role: 'owner' }],
  ])('%s: 400 VALIDATION_ERROR', async (_what, body) => {
    const o = await owner('Bad names');
    const res = await call('PUT', '/api/team/me/name', body, o.bearer);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('needs a login session: no bearer is 401, an API token is refused', async () => {
    expect((await call('PUT', '/api/team/me/name', { name: 'X' })).status).toBe(401);
    const o = await owner('Token names');
    const token = (await call('POST', '/api/settings/api-tokens', { name: 'ci' }, o.bearer)).body.token as string;
    const byToken = await call('PUT', '/api/team/me/name', { name: 'Robot' }, token);
    expect(byToken.status).toBe(403);
    expect(byToken.body.error.code).toBe('FORBIDDEN');
    expect((await names(o.bearer))[o.email]).toBeNull();
  });

  it("tenant isolation: a name set in one company shows in no other company's team", async () => {
    const a = await owner('Iso A');
    const b = await owner('Iso B');
    expect((await call('PUT', '/api/team/me/name', { name: 'Only A' }, a.bearer)).status).toBe(200);
    const shownToB = await names(b.bearer);
    expect(Object.keys(shownToB)).toEqual([b.email]);
    expect(Object.values(shownToB)).not.toContain('Only A');
  });
});
