import { grantSuperadmin } from '../../src/commands/accounts/superadmin.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../support/api.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * API.md: every list takes `?cursor=` (the `nextCursor` of the previous page). A cursor the server did not
 * hand out for that same list is bad query input: 400 VALIDATION_ERROR naming the cursor, on every list
 * route — never a 500.
 */

let server: TestServer;
let root: Awaited<ReturnType<typeof signUp>>;
/** A genuine nextCursor of each list that has more than one page, to replay on the other lists. */
const realCursors: Record<string, string> = {};

const ROOT_EMAIL = uniqueEmail('root');

const LIST_ROUTES = [
  '/api/agents',
  '/api/knowledge-base/documents',
  '/api/integrations',
  '/api/conversations',
  '/api/webhook-logs',
  '/api/settings/api-tokens',
  '/api/credits',
  '/api/admin/companies',
] as const;

beforeAll(async () => {
  server = await startTestServer();
  root = await signUp(server, 'Root Co', ROOT_EMAIL);
  await grantSuperadmin(server.services.auth, { email: ROOT_EMAIL, by: 'test' });
  await signUp(server, 'Other Co');
  for (const n of [1, 2]) {
    expect((await root.call('POST', '/api/agents', { name: `Agent ${n}` })).statusCode).toBe(201);
    expect((await root.call('POST', '/api/knowledge-base/documents', { title: `Doc ${n}`, content: `Content number ${n}.` })).statusCode).toBe(201);
    expect((await root.call('POST', '/api/integrations', { name: `Int ${n}`, connectorType: 'webchat' })).statusCode).toBe(201);
    expect((await root.call('POST', '/api/settings/api-tokens', { name: `Token ${n}` })).statusCode).toBe(201);
  }
  for (const route of ['/api/agents', '/api/knowledge-base/documents', '/api/integrations', '/api/settings/api-tokens', '/api/admin/companies']) {
    const res = await root.call('GET', `${route}?limit=1`);
    expect(res.statusCode, route).toBe(200);
    const cursor = res.json().nextCursor as string | null;
    expect(cursor, `${route} has a second page`).toEqual(expect.any(String));
    realCursors[route] = cursor!;
  }
});
afterAll(async () => server?.close());

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

const MALFORMED: [string, () => string][] = [
  ['garbage', () => '!!!not-a-cursor!!!'],
  ['base64 of non-JSON', () => b64('hello world')],
  ['base64 of a JSON number', () => b64('42')],
  ['base64 of JSON null', () => b64('null')],
  ['base64 of a cursor-shaped object with a wrong signature', () => b64(JSON.stringify({ s: 'x', v: ['a'] }))],
];

describe('a malformed ?cursor= is 400 VALIDATION_ERROR on every list route', () => {
  for (const route of LIST_ROUTES) {
    for (const [label, cursor] of MALFORMED) {
      it(`${route}: ${label}`, async () => {
        const res = await root.call('GET', `${route}?cursor=${encodeURIComponent(cursor())}`);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/cursor/) } });
      });
    }

    it(`${route}: a cursor handed out by another list`, async () => {
      const [, foreign] = Object.entries(realCursors).find(([from]) => from !== route)!;
      const res = await root.call('GET', `${route}?cursor=${encodeURIComponent(foreign)}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/cursor/) } });
    });
  }

  it('lists with the same filter and order still refuse each other’s cursors (agents vs documents)', async () => {
    const agentsWithDocsCursor = await root.call('GET', `/api/agents?cursor=${encodeURIComponent(realCursors['/api/knowledge-base/documents']!)}`);
    expect(agentsWithDocsCursor.statusCode).toBe(400);
    const docsWithAgentsCursor = await root.call('GET', `/api/knowledge-base/documents?cursor=${encodeURIComponent(realCursors['/api/agents']!)}`);
    expect(docsWithAgentsCursor.statusCode).toBe(400);
  });

  it('a genuine cursor still pages its own list', async () => {
    for (const [route, cursor] of Object.entries(realCursors)) {
      const res = await root.call('GET', `${route}?limit=1&cursor=${encodeURIComponent(cursor)}`);
      expect(res.statusCode, route).toBe(200);
    }
  });
});
