import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantSuperadmin } from '../../src/commands/accounts/superadmin.js';
import { JWT_AUDIENCE, JWT_ISSUER } from '../../src/infrastructure/auth/jwtAccessTokens.js';
import { ISO_MS, UUID } from '../support/formats.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  server.app.inject({ method: 'POST', url, payload: payload as object, headers });
const get = (url: string, token?: string) => server.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });

async function registerAndLogin(email = uniqueEmail(), companyName = 'Acme') {
  const reg = await post('/api/auth/register', { email, password: 'correct horse', companyName });
  expect(reg.statusCode).toBe(201);
  const login = await post('/api/auth/login', { email, password: 'correct horse' });
  expect(login.statusCode).toBe(200);
  const { session, user } = login.json();
  return { email, reg: reg.json(), session, user } as { email: string; reg: any; session: any; user: any };
}

describe('POST /api/auth/register', () => {
  it('201 with user {id, email} and company {id, companyId, companyName}', async () => {
    const email = uniqueEmail();
    const res = await post('/api/auth/register', { email, password: 'correct horse', companyName: 'Acme Ltd' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['company', 'user']);
    expect(body.user).toEqual({ id: expect.stringMatching(UUID), email });
    expect(body.company).toEqual({ id: expect.any(Number), companyId: expect.stringMatching(UUID), companyName: 'Acme Ltd' });
    expect(Number.isInteger(body.company.id)).toBe(true);
  });

  it('gives each company the next integer key', async () => {
    const a = (await post('/api/auth/register', { email: uniqueEmail(), password: 'correct horse', companyName: 'A' })).json();
    const b = (await post('/api/auth/register', { email: uniqueEmail(), password: 'correct horse', companyName: 'B' })).json();
    expect(b.company.id).toBe(a.company.id + 1);
  });

  it('refuses an email already registered, whatever its case: 500 USER_CREATION_FAILED', async () => {
    const email = uniqueEmail('dup');
    expect((await post('/api/auth/register', { email, password: 'correct horse', companyName: 'A' })).statusCode).toBe(201);
    const again = await post('/api/auth/register', { email: email.toUpperCase(), password: 'another pass', companyName: 'B' });
    expect(again.statusCode).toBe(500);
    expect(again.json()).toEqual({ error: { code: 'USER_CREATION_FAILED', message: expect.any(String) } });
  });

  it('two concurrent registrations of one email: one 201, one 500 USER_CREATION_FAILED', async () => {
    const email = uniqueEmail('race');
    const results = await Promise.all([1, 2].map((i) => post('/api/auth/register', { email, password: 'correct horse', companyName: `C${i}` })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 500]);
    expect(results.find((r) => r.statusCode === 500)!.json().error.code).toBe('USER_CREATION_FAILED');
  });

  it('gives a new company $5.00 of credits and a 6-stage pipeline', async () => {
    const { session } = await registerAndLogin();
    const credits = (await get('/api/credits', session.access_token)).json();
    expect(credits.credits).toMatchObject({ balanceMicros: 5_000_000, balance: '5.00', currency: 'USD' });
    expect(credits.credits.ledger).toEqual([{ at: expect.stringMatching(ISO_MS), deltaMicros: 5_000_000, reason: expect.any(String) }]);
    const pipeline = (await get('/api/pipeline', session.access_token)).json();
    expect(pipeline.pipeline.id).toMatch(UUID);
    expect(pipeline.pipeline.stages).toHaveLength(6);
    expect(pipeline.pipeline.stages.map((s: any) => s.position)).toEqual([0, 1, 2, 3, 4, 5]);
    for (const s of pipeline.pipeline.stages) expect(s).toEqual({ id: expect.stringMatching(UUID), name: expect.any(String), position: expect.any(Number) });
  });

  const bad: [string, string | object, number][] = [
    ['malformed JSON', '{"email":', 400],
    ['a JSON array', '[1,2]', 400],
    ['a JSON string', '"hello"', 400],
    ['wrong field types', { email: 42, password: true, companyName: [] }, 400],
    ['unknown fields', { email: 'x@example.com', password: 'correct horse', companyName: 'A', admin: true }, 400],
    ['a __proto__ key', '{"email":"p@example.com","password":"correct horse","companyName":"A","__proto__":{"isSuperadmin":true}}', 400],
    ['a constructor key', '{"email":"q@example.com","password":"correct horse","companyName":"A","constructor":{"prototype":{"x":1}}}', 400],
    ['an email without @', { email: 'not-an-email', password: 'correct horse', companyName: 'A' }, 400],
    ['a 7-character password', { email: 'x7@example.com', password: '1234567', companyName: 'A' }, 400],
    ['a 1,025-character password', { email: 'x1025@example.com', password: 'p'.repeat(1025), companyName: 'A' }, 400],
    ['an empty companyName', { email: 'e@example.com', password: 'correct horse', companyName: '' }, 400],
    ['a 201-character companyName', { email: 'f@example.com', password: 'correct horse', companyName: 'c'.repeat(201) }, 400],
    ['a missing field', { email: 'g@example.com', password: 'correct horse' }, 400],
  ];
  it.each(bad)('%s → %i VALIDATION_ERROR, nothing stored', async (_name, payload, status) => {
    const before = await server.adapters.eventStore.headPosition();
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { 'content-type': 'application/json' },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.any(String) } });
    expect(await server.adapters.eventStore.headPosition()).toBe(before);
  });

  it('a 2 MiB body → 413 PAYLOAD_TOO_LARGE, nothing stored', async () => {
    const before = await server.adapters.eventStore.headPosition();
    const res = await post('/api/auth/register', { email: 'big@example.com', password: 'correct horse', companyName: 'x'.repeat(2 * 1024 * 1024) });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await server.adapters.eventStore.headPosition()).toBe(before);
  });

  it('names the failing field in the message', async () => {
    const res = await post('/api/auth/register', { email: 'a@example.com', password: 'short', companyName: 'A' });
    expect(res.json().error.message).toContain('password');
  });

  it('stores no password: neither in events nor in read models', async () => {
    const password = 'a very distinctive password 9f8e7d';
    await post('/api/auth/register', { email: uniqueEmail(), password, companyName: 'Secretive' });
    const all = JSON.stringify(await server.adapters.eventStore.readAll({}), (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    expect(all).not.toContain(password);
    expect(all).toContain('$argon2id$v=19$m=19456,t=2,p=1$');
  });
});

describe('POST /api/auth/login', () => {
  it('200 with session {access_token, refresh_token, expires_at} and user {id, email, companyId}', async () => {
    const email = uniqueEmail();
    const reg = (await post('/api/auth/register', { email, password: 'correct horse', companyName: 'A' })).json();
    const before = Math.floor(Date.now() / 1000);
    const res = await post('/api/auth/login', { email: email.toUpperCase(), password: 'correct horse' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.session).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), expires_at: expect.any(Number) });
    expect(body.session.access_token.split('.')).toHaveLength(3);
    // expires_at is seconds since the epoch: 15 minutes ahead by default.
    expect(body.session.expires_at).toBeGreaterThanOrEqual(before + 900 - 5);
    expect(body.session.expires_at).toBeLessThanOrEqual(before + 900 + 5);
    expect(body.user).toEqual({ id: reg.user.id, email, companyId: reg.company.id });
  });

  it('wrong password and unknown email are both 401 INVALID_CREDENTIALS', async () => {
    const email = uniqueEmail();
    await post('/api/auth/register', { email, password: 'correct horse', companyName: 'A' });
    const wrong = await post('/api/auth/login', { email, password: 'wrong horse' });
    const unknown = await post('/api/auth/login', { email: uniqueEmail('nobody'), password: 'correct horse' });
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: { code: 'INVALID_CREDENTIALS', message: 'Wrong email or password' } });
    }
  });

  it('takes similar time for an unknown email as for a wrong password', async () => {
    const email = uniqueEmail();
    await post('/api/auth/register', { email, password: 'correct horse', companyName: 'A' });
    const time = async (e: string) => {
      const t = performance.now();
      await post('/api/auth/login', { email: e, password: 'wrong horse' });
      return performance.now() - t;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 4; i++) {
      known.push(await time(email));
      unknown.push(await time(uniqueEmail('ghost')));
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    // Both pay one argon2 verification; without the dummy hash the unknown email would be ~100x faster.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.4);
  });
});

describe('POST /api/auth/refresh', () => {
  it('200 {session} with a new refresh token each time; the old one then fails', async () => {
    const { session } = await registerAndLogin();
    const r1 = await post('/api/auth/refresh', { refresh_token: session.refresh_token });
    expect(r1.statusCode).toBe(200);
    expect(Object.keys(r1.json())).toEqual(['session']);
    const s1 = r1.json().session;
    expect(s1.refresh_token).not.toBe(session.refresh_token);
    expect((await get('/api/auth/me', s1.access_token)).statusCode).toBe(200);
    const r2 = await post('/api/auth/refresh', { refresh_token: s1.refresh_token });
    expect(r2.statusCode).toBe(200);
    expect(r2.json().session.refresh_token).not.toBe(s1.refresh_token);
  });

  it('presenting a rotated token again moments later (another tab) returns the same session instead of revoking it', async () => {
    const { session } = await registerAndLogin();
    const s1 = (await post('/api/auth/refresh', { refresh_token: session.refresh_token })).json().session;
    const again = await post('/api/auth/refresh', { refresh_token: session.refresh_token });
    expect(again.statusCode).toBe(200);
    expect(again.json().session.refresh_token).toBe(s1.refresh_token);
    expect((await get('/api/auth/me', s1.access_token)).statusCode).toBe(200);
    // Replays after the grace window revoke the family: test/api/refreshRace.test.ts.
  });

  it('concurrent refreshes with one token all succeed with the same new refresh token', async () => {
    const { session } = await registerAndLogin();
    const results = await Promise.all([1, 2, 3].map(() => post('/api/auth/refresh', { refresh_token: session.refresh_token })));
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(new Set(results.map((r) => r.json().session.refresh_token)).size).toBe(1);
  });

  it.each([['garbage'], ['00000000-0000-4000-8000-000000000000.' + 'A'.repeat(43)], ['']])('an invalid token %j → 401 REFRESH_FAILED', async (token) => {
    const res = await post('/api/auth/refresh', { refresh_token: token });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('REFRESH_FAILED');
  });

  it('logout revokes the session: its refresh and access tokens stop working', async () => {
    const { session } = await registerAndLogin();
    const out = await server.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { authorization: `Bearer ${session.access_token}` } });
    expect(out.statusCode).toBe(204);
    expect((await post('/api/auth/refresh', { refresh_token: session.refresh_token })).json().error.code).toBe('REFRESH_FAILED');
    expect((await get('/api/auth/me', session.access_token)).statusCode).toBe(401);
  });
});

describe('GET /api/auth/me', () => {
  it('200 with user {id, email, companyId, isSuperadmin} and company {id, companyId, companyName, createdAt}', async () => {
    const { session, reg, email } = await registerAndLogin(uniqueEmail(), 'Me Corp');
    const res = await get('/api/auth/me', session.access_token);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      user: { id: reg.user.id, email, companyId: reg.company.id, isSuperadmin: false, role: 'owner' },
      company: { id: reg.company.id, companyId: reg.company.companyId, companyName: 'Me Corp', createdAt: expect.stringMatching(ISO_MS) },
    });
  });

  it('isSuperadmin is what an operator granted on the server (npm run superadmin), never what registering claims', async () => {
    const { session, email } = await registerAndLogin('root@example.com');
    expect((await get('/api/auth/me', session.access_token)).json().user.isSuperadmin).toBe(false);
    await grantSuperadmin(server.services.auth, { email, by: 'test' });
    expect((await get('/api/auth/me', session.access_token)).json().user.isSuperadmin).toBe(true);
  });
});

describe('bearer tokens', () => {
  let session: any;
  beforeAll(async () => {
    ({ session } = await registerAndLogin());
  });
  const claims = () => JSON.parse(Buffer.from(session.access_token.split('.')[1], 'base64url').toString());
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

  const cases: [string, () => Promise<string | null>][] = [
    ['none', async () => null],
    ['garbage', async () => 'garbage'],
    ['alg: none', async () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`],
    ['signed with another key', async () => new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('x'.repeat(32)))],
    [
      'expired',
      async () =>
        new SignJWT({ ...claims(), exp: Math.floor(Date.now() / 1000) - 60 }).setProtectedHeader({ alg: 'HS256' }).sign(await jwtKey()),
    ],
    [
      'without exp',
      async () => {
        const { exp: _exp, ...rest } = claims();
        return new SignJWT(rest).setProtectedHeader({ alg: 'HS256' }).sign(await jwtKey());
      },
    ],
    ['with another audience', async () => new SignJWT({ ...claims(), aud: 'other' }).setProtectedHeader({ alg: 'HS256' }).sign(await jwtKey())],
    ['a refresh token used as an access token', async () => session.refresh_token],
    ['a revoked API token', async () => revokedApiToken()],
  ];

  it('a correctly signed token with our key is accepted (control for the rows below)', async () => {
    const forged = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).sign(await jwtKey());
    expect((await get('/api/auth/me', forged)).statusCode).toBe(200);
    expect(claims()).toMatchObject({ iss: JWT_ISSUER, aud: JWT_AUDIENCE });
  });

  it.each(cases)('%s → 401 UNAUTHORIZED', async (_name, make) => {
    const token = await make();
    const res = await get('/api/auth/me', token ?? undefined);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
  });

  async function jwtKey() {
    const { readFileSync } = await import('node:fs');
    return Buffer.from(readFileSync(`${server.dataDir}/jwt.key`, 'utf8').trim(), 'base64');
  }
  async function revokedApiToken() {
    const created = (await post('/api/settings/api-tokens', { name: 'temp' }, { authorization: `Bearer ${session.access_token}` })).json();
    const del = await server.app.inject({ method: 'DELETE', url: `/api/settings/api-tokens/${created.apiToken.id}`, headers: { authorization: `Bearer ${session.access_token}` } });
    expect(del.statusCode).toBe(204);
    return created.token as string;
  }

  it('keeps the JWT key in DATA_DIR with mode 0600', async () => {
    const { statSync } = await import('node:fs');
    expect(statSync(`${server.dataDir}/jwt.key`).mode & 0o777).toBe(0o600);
  });
});

describe('tenant isolation: company B on company A', () => {
  it("every route of accounts answers B's session and API token with B's data only, and A's ids are 404", async () => {
    const a = await registerAndLogin(uniqueEmail('a'), 'Company A');
    const b = await registerAndLogin(uniqueEmail('b'), 'Company B');
    const aToken = (await post('/api/settings/api-tokens', { name: 'a-token' }, { authorization: `Bearer ${a.session.access_token}` })).json();
    const bApi = (await post('/api/settings/api-tokens', { name: 'b-token' }, { authorization: `Bearer ${b.session.access_token}` })).json().token;

    for (const bearer of [b.session.access_token, bApi]) {
      const me = (await get('/api/auth/me', bearer)).json();
      expect(me.company.companyName).toBe('Company B');
      const tokens = (await get('/api/settings/api-tokens', bearer)).json().apiTokens;
      expect(tokens.map((t: any) => t.name)).toEqual(['b-token']);
      const pipeline = (await get('/api/pipeline', bearer)).json().pipeline;
      const aPipeline = (await get('/api/pipeline', a.session.access_token)).json().pipeline;
      expect(pipeline.id).not.toBe(aPipeline.id);
      expect((await get('/api/credits', bearer)).json().credits.ledger).toHaveLength(1);
      // Admin routes are for superadmins only.
      expect((await get('/api/admin/companies', bearer)).statusCode).toBe(403);
    }
    const revokeA = await server.app.inject({
      method: 'DELETE',
      url: `/api/settings/api-tokens/${aToken.apiToken.id}`,
      headers: { authorization: `Bearer ${b.session.access_token}` },
    });
    expect(revokeA.statusCode).toBe(404);
    expect(revokeA.json().error.code).toBe('NOT_FOUND');
    expect((await get('/api/auth/me', aToken.token)).statusCode).toBe(200);
  });
});

describe('tenant isolation: role matrix', () => {
  /** A teammate of `owner`'s company with this role, signed in (invited and accepted). */
  async function teammate(ownerBearer: string, role: 'admin' | 'agent') {
    const invited = await post('/api/team/invitations', { email: uniqueEmail(role), role }, { authorization: `Bearer ${ownerBearer}` });
    expect(invited.statusCode).toBe(201);
    const token = invited.json().invitationUrl.split('#/accept-invitation/')[1];
    const accepted = await post('/api/auth/accept-invitation', { token, name: role, password: 'correct horse' });
    expect(accepted.statusCode).toBe(200);
    return accepted.json().session.access_token as string;
  }

  it('each protected route group answers owner, admin and agent as the roles allow', async () => {
    const owner = await registerAndLogin(uniqueEmail('matrix'), 'Matrix');
    const bearers = {
      owner: owner.session.access_token as string,
      admin: await teammate(owner.session.access_token, 'admin'),
      agent: await teammate(owner.session.access_token, 'agent'),
    };
    const integration = await server.app.inject({
      method: 'POST',
      url: '/api/integrations',
      payload: { name: 'chat', connectorType: 'webchat' },
      headers: { authorization: `Bearer ${bearers.owner}` },
    });
    expect(integration.statusCode).toBe(201);
    const integrationId = integration.json().integration.id;
    // [group, method, url, body, owner, admin, agent]
    const matrix: [string, 'GET' | 'POST' | 'PUT' | 'PATCH', string, object | undefined, number, number, number][] = [
      ['conversations', 'GET', '/api/conversations', undefined, 200, 200, 200],
      ['pipeline', 'GET', '/api/pipeline', undefined, 200, 200, 200],
      ['agents', 'GET', '/api/agents', undefined, 200, 200, 200],
      ['knowledge base', 'GET', '/api/knowledge-base/documents', undefined, 200, 200, 200],
      ['integrations (read)', 'GET', '/api/integrations', undefined, 200, 200, 200],
      ['integrations (manage)', 'PATCH', `/api/integrations/${integrationId}`, { name: 'renamed' }, 200, 200, 403],
      ['webhook logs', 'GET', `/api/webhook-logs?integrationId=${integrationId}`, undefined, 200, 200, 403],
      ['LLM settings', 'GET', '/api/llm-config', undefined, 200, 200, 403],
      ['API tokens', 'GET', '/api/settings/api-tokens', undefined, 200, 200, 403],
      ['credits', 'GET', '/api/credits', undefined, 200, 200, 403],
      ['team (read)', 'GET', '/api/team', undefined, 200, 200, 200],
      ['team invitations', 'GET', '/api/team/invitations', undefined, 200, 200, 403],
      ['superadmin', 'GET', '/api/admin/companies', undefined, 403, 403, 403],
    ];
    const seen: string[] = [];
    for (const [group, method, url, payload, ...expected] of matrix) {
      (['owner', 'admin', 'agent'] as const).forEach((role, i) => seen.push(`${group} ${role} ${expected[i]}`));
      for (const [i, role] of (['owner', 'admin', 'agent'] as const).entries()) {
        const res = await server.app.inject({ method, url, headers: { authorization: `Bearer ${bearers[role]}` }, ...(payload ? { payload } : {}) });
        expect(`${group} ${role} ${res.statusCode}`).toBe(`${group} ${role} ${expected[i]}`);
        if (res.statusCode === 403) expect(res.json()).toEqual({ error: { code: 'FORBIDDEN', message: expect.any(String) } });
      }
    }
    expect(seen).toHaveLength(matrix.length * 3);
  });

  it("another company's admin sees only their own team, and gets 404 on yours", async () => {
    const a = await registerAndLogin(uniqueEmail('a'), 'Company A');
    const b = await registerAndLogin(uniqueEmail('b'), 'Company B');
    const bAdmin = await teammate(b.session.access_token, 'admin');
    const teamB = (await get('/api/team', bAdmin)).json().teammates;
    expect(teamB.map((t: any) => t.email)).not.toContain(a.email);
    const removeA = await server.app.inject({ method: 'DELETE', url: `/api/team/${a.user.id}`, headers: { authorization: `Bearer ${bAdmin}` } });
    expect(removeA.statusCode).toBe(404);
    expect((await get('/api/auth/me', a.session.access_token)).statusCode).toBe(200);
  });
});

describe('superadmin', () => {
  it('lists companies and grants credits', async () => {
    const root = await registerAndLogin(uniqueEmail('root'));
    await grantSuperadmin(server.services.auth, { email: root.email, by: 'test' });
    const target = await registerAndLogin(uniqueEmail('target'), 'Target');
    const list = await get('/api/admin/companies?limit=200', root.session.access_token);
    expect(list.statusCode).toBe(200);
    expect(list.json().companies.some((c: any) => c.id === target.reg.company.id && c.balanceMicros === 5_000_000)).toBe(true);
    const grant = await post(
      `/api/admin/companies/${target.reg.company.id}/credits`,
      { amountMicros: 2_500_000, reason: 'Goodwill' },
      { authorization: `Bearer ${root.session.access_token}` },
    );
    expect(grant.statusCode).toBe(200);
    expect(grant.json()).toEqual({ credits: { balanceMicros: 7_500_000, balance: '7.50' } });
    const credits = (await get('/api/credits', target.session.access_token)).json().credits;
    expect(credits.balanceMicros).toBe(7_500_000);
    expect(credits.ledger[0]).toMatchObject({ deltaMicros: 2_500_000, reason: 'Goodwill' });
    const notAdmin = await post(`/api/admin/companies/${target.reg.company.id}/credits`, { amountMicros: 1, reason: 'x' }, { authorization: `Bearer ${target.session.access_token}` });
    expect(notAdmin.statusCode).toBe(403);
  });
});
