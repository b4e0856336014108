import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teammateBearer } from '../support/agentFixtures.js';
import { acmeAndGlobex, signUp, type Company } from '../support/api.js';
import { ISO_MS } from '../support/formats.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * Agent versions (docs/api/agents-and-llm.md#versions): every saved change is a numbered version, customers are
 * answered by the published one and every answer names it; a rollback republishes an older version with who,
 * when and why. Owners and admins change and publish; agents read. Another company's agent is 404.
 */

const SECRET = 'whsec_agent_versions_0123456789';
const KB = 'We ship to Norway, Sweden and Denmark within 5 working days.';

let server: TestServer;
let base: string;
let acme: Company;
let globex: Company;

beforeAll(async () => {
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '0' });
  base = await server.listen(0, '127.0.0.1');
  ({ acme, globex } = await acmeAndGlobex(server));
});
afterAll(async () => server?.close());

const joinAs = (owner: Company, role: 'agent' | 'admin') => teammateBearer(server, owner, role);

async function newAgent(co: Company, fields: Record<string, unknown> = {}) {
  const res = await co.call('POST', '/api/agents', { name: 'Ava', systemPrompt: 'Be kind.\nBe brief.', handoffMessage: 'Version one hands off.', ...fields });
  expect(res.statusCode).toBe(201);
  return res.json().agent.id as string;
}

/** A sandbox integration (no platform apiUrl) answered by the agent, with a shipping document to answer from. */
async function answering(co: Company, agentId: string) {
  expect((await co.call('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: KB })).statusCode).toBe(201);
  const res = await co.call('POST', '/api/integrations', { name: 'Sandbox', connectorType: 'msgplatform', webhookSecret: SECRET, agentId });
  expect(res.statusCode).toBe(201);
  return res.json().integration.id as number;
}

/** A new customer asks; resolves with the AI reply of their conversation as the API shows it. */
async function customerAsks(co: Company, integrationId: number, clientId: string, text: string) {
  await postPlatformWebhook(base, integrationId, SECRET, { hook_type: 'inbox', type: 'from_client', message_id: `m-${clientId}`, client_id: clientId, channel_id: 1, transport: 'telegram', text });
  let reply: any;
  await expect
    .poll(
      async () => {
        const list = (await co.call('GET', `/api/conversations?integrationId=${integrationId}&limit=200`)).json().conversations as any[];
        const conversation = list.find((c) => c.customer.clientId === clientId);
        if (!conversation) return undefined;
        reply = (await co.call('GET', `/api/conversations/${conversation.id}`)).json().messages.find((m: any) => m.author === 'agent');
        return reply?.text;
      },
      { timeout: 10_000 },
    )
    .toBeTruthy();
  return reply as { text: string; agentVersion: number | null };
}


describe('versions are recorded', () => {
  it('a new agent is version 1, published; an edit is version 2, published at once; a draft is version 3, not published', async () => {
    const agentId = await newAgent(acme);
    const first = (await acme.call('GET', `/api/agents/${agentId}/versions`)).json();
    expect(first).toMatchObject({ publishedVersion: 1, draftVersion: 1, latestVersion: 1, nextCursor: null });
    expect(first.versions).toEqual([
      {
        version: 1,
        basedOn: null,
        changed: [],
        config: { systemPrompt: 'Be kind.\nBe brief.', model: null, temperature: 0.3, useKnowledgeBase: true, handoffMessage: 'Version one hands off.', answerThreshold: 'balanced', actionIds: [] },
        createdAt: expect.stringMatching(ISO_MS),
        createdBy: null,
        published: true,
        draft: true,
      },
    ]);

    const patched = await acme.call('PATCH', `/api/agents/${agentId}`, { temperature: 0.9, name: 'Ava 2' });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().agent).toMatchObject({ temperature: 0.9, name: 'Ava 2' });

    const draft = await acme.call('POST', `/api/agents/${agentId}/versions`, { systemPrompt: 'Be kind.\nBe very brief.\nSign as Ava.' });
    expect(draft.statusCode).toBe(201);
    expect(draft.json().version).toMatchObject({ version: 3, basedOn: 2, changed: ['systemPrompt'], createdBy: `user:${acme.user.id}`, published: false, draft: true });
    // Customers keep version 2: the agent object shows what answers them.
    expect((await acme.call('GET', `/api/agents/${agentId}`)).json().agent).toMatchObject({ systemPrompt: 'Be kind.\nBe brief.', temperature: 0.9 });
    const same = await acme.call('POST', `/api/agents/${agentId}/versions`, { systemPrompt: 'Be kind.\nBe very brief.\nSign as Ava.' });
    expect(same.statusCode).toBe(200);
    expect(same.json().version.version).toBe(3);

    const listed = (await acme.call('GET', `/api/agents/${agentId}/versions?limit=2`)).json();
    expect(listed).toMatchObject({ publishedVersion: 2, draftVersion: 3, latestVersion: 3 });
    expect(listed.versions.map((v: any) => [v.version, v.changed, v.published, v.draft])).toEqual([
      [3, ['systemPrompt'], false, true],
      [2, ['temperature'], true, false],
    ]);
    const rest = (await acme.call('GET', `/api/agents/${agentId}/versions?limit=2&cursor=${encodeURIComponent(listed.nextCursor)}`)).json();
    expect(rest.versions.map((v: any) => v.version)).toEqual([1]);
    expect(rest.nextCursor).toBeNull();

    for (const list of ['versions', 'publications']) {
      const bad = await acme.call('GET', `/api/agents/${agentId}/${list}?cursor=garbage`);
      expect(bad.statusCode, list).toBe(400);
      expect(bad.json().error.code).toBe('VALIDATION_ERROR');
    }

    const got = await acme.call('GET', `/api/agents/${agentId}/versions/2`);
    expect(got.statusCode).toBe(200);
    expect(got.json().version).toMatchObject({ version: 2, basedOn: 1, config: { temperature: 0.9, systemPrompt: 'Be kind.\nBe brief.' }, createdBy: `user:${acme.user.id}` });
    expect((await acme.call('GET', `/api/agents/${agentId}/versions/9`)).statusCode).toBe(404);
  });

  it('given any behaviour setting, when a draft is saved with it, then it is a new version (general answers, after-hours message, hand-back)', async () => {
    const agentId = (await acme.call('POST', '/api/agents', { name: 'Drafty' })).json().agent.id as string;
    const saved = await acme.call('POST', `/api/agents/${agentId}/versions`, { generalAnswers: true, afterHoursMessage: 'Back {{back}}.', handBackAfterMinutes: 60 });
    expect(saved.statusCode).toBe(201);
    expect(saved.json().version).toMatchObject({ version: 2, published: false, draft: true });
    expect([...saved.json().version.changed].sort()).toEqual(['afterHoursMessage', 'generalAnswers', 'handBackAfterMinutes']);
  });

  it('diffs two versions field by field, the prompt line by line', async () => {
    const agentId = await newAgent(acme);
    await acme.call('POST', `/api/agents/${agentId}/versions`, { systemPrompt: 'Be kind.\nBe very brief.', temperature: 1 });
    const res = await acme.call('GET', `/api/agents/${agentId}/diff?from=1&to=2`);
    expect(res.statusCode).toBe(200);
    const { diff } = res.json();
    expect(diff.from).toBe(1);
    expect(diff.to).toBe(2);
    expect(diff.fields.filter((f: any) => f.changed)).toEqual([
      { field: 'systemPrompt', from: 'Be kind.\nBe brief.', to: 'Be kind.\nBe very brief.', changed: true },
      { field: 'temperature', from: 0.3, to: 1, changed: true },
    ]);
    expect(diff.systemPrompt).toEqual([
      { op: 'equal', line: 'Be kind.' },
      { op: 'removed', line: 'Be brief.' },
      { op: 'added', line: 'Be very brief.' },
    ]);
    expect((await acme.call('GET', `/api/agents/${agentId}/diff?from=1&to=7`)).statusCode).toBe(404);
  });
});

describe('every answer names its version; publish and rollback change the next answer', () => {
  it('answers with the published version only, and a rollback brings back the older answer', async () => {
    const co = await signUp(server, 'Versioned answers');
    const agentId = await newAgent(co);
    const integrationId = await answering(co, agentId);
    // A question the knowledge base cannot answer: the builtin agent hands off with the version's message.
    const ask = (clientId: string) => customerAsks(co, integrationId, clientId, 'Can I pay with a cheque?');

    expect(await ask('c1')).toMatchObject({ text: 'Version one hands off.', agentVersion: 1 });

    await co.call('POST', `/api/agents/${agentId}/versions`, { handoffMessage: 'Version two hands off.' });
    expect(await ask('c2')).toMatchObject({ text: 'Version one hands off.', agentVersion: 1 });

    const published = await co.call('POST', `/api/agents/${agentId}/versions/2/publish`);
    expect(published.statusCode).toBe(200);
    expect(published.json()).toMatchObject({ publishedVersion: 2, draftVersion: 2, latestVersion: 2, agent: { handoffMessage: 'Version two hands off.' } });
    expect(await ask('c3')).toMatchObject({ text: 'Version two hands off.', agentVersion: 2 });

    const noReason = await co.call('POST', `/api/agents/${agentId}/rollback`, { version: 1 });
    expect(noReason.statusCode).toBe(400);
    expect(noReason.json().error.code).toBe('VALIDATION_ERROR');
    const rolledBack = await co.call('POST', `/api/agents/${agentId}/rollback`, { version: 1, reason: 'Customers found it curt' });
    expect(rolledBack.statusCode).toBe(200);
    expect(rolledBack.json()).toMatchObject({ publishedVersion: 1, draftVersion: 1, agent: { handoffMessage: 'Version one hands off.' } });
    expect(await ask('c4')).toMatchObject({ text: 'Version one hands off.', agentVersion: 1 });

    const publications = (await co.call('GET', `/api/agents/${agentId}/publications`)).json();
    expect(publications.publications).toEqual([
      { version: 1, previousVersion: 2, rollback: true, reason: 'Customers found it curt', by: `user:${co.user.id}`, at: expect.stringMatching(ISO_MS) },
      { version: 2, previousVersion: 1, rollback: false, reason: null, by: `user:${co.user.id}`, at: expect.stringMatching(ISO_MS) },
    ]);
    expect(publications.nextCursor).toBeNull();

    // A rollback goes back: to the published version or a newer one it is 409.
    const forward = await co.call('POST', `/api/agents/${agentId}/rollback`, { version: 2, reason: 'Not a rollback' });
    expect(forward.statusCode).toBe(409);
    expect(forward.json().error.code).toBe('CONFLICT');
    // Publishing a newer version is no rollback and needs no reason.
    expect((await co.call('POST', `/api/agents/${agentId}/versions/2/publish`, {})).json().publishedVersion).toBe(2);
  });
});

describe('roles', () => {
  it('an agent reads versions, diffs and publications, but gets 403 on edits, drafts, publish and rollback; an admin may', async () => {
    const co = await signUp(server, 'Versions roles');
    const agentId = await newAgent(co);
    await co.call('POST', `/api/agents/${agentId}/versions`, { handoffMessage: 'Draft.' });
    const agentRole = await joinAs(co, 'agent');
    for (const path of [`/api/agents/${agentId}/versions`, `/api/agents/${agentId}/versions/2`, `/api/agents/${agentId}/diff?from=1&to=2`, `/api/agents/${agentId}/publications`, `/api/agents/${agentId}`]) {
      expect((await co.call('GET', path, undefined, agentRole)).statusCode, path).toBe(200);
    }
    for (const [method, path, body] of [
      ['POST', `/api/agents/${agentId}/versions`, { handoffMessage: 'Mine.' }],
      ['POST', `/api/agents/${agentId}/versions/2/publish`, {}],
      ['POST', `/api/agents/${agentId}/rollback`, { version: 1, reason: 'Because' }],
      ['PATCH', `/api/agents/${agentId}`, { systemPrompt: 'Live edit.' }],
      ['POST', '/api/agents', { name: 'Mine' }],
      ['DELETE', `/api/agents/${agentId}`, undefined],
    ] as const) {
      const res = await co.call(method, path, body, agentRole);
      expect(res.statusCode, `${method} ${path}`).toBe(403);
      expect(res.json()).toEqual({ error: { code: 'FORBIDDEN', message: expect.any(String) } });
    }
    expect((await co.call('GET', `/api/agents/${agentId}/versions`)).json().publishedVersion).toBe(1);
    // Every role may still try the agent in the playground.
    expect((await co.call('POST', `/api/agents/${agentId}/playground`, undefined, agentRole)).statusCode).toBe(201);

    const admin = await joinAs(co, 'admin');
    expect((await co.call('POST', `/api/agents/${agentId}/versions/2/publish`, {}, admin)).statusCode).toBe(200);
  });
});

describe('tenant isolation', () => {
  it('another company’s agent, its versions, diff, publications, publish and rollback are 404', async () => {
    const agentId = await newAgent(acme);
    await acme.call('POST', `/api/agents/${agentId}/versions`, { handoffMessage: 'Draft.' });
    for (const [method, path, body] of [
      ['GET', `/api/agents/${agentId}/versions`, undefined],
      ['GET', `/api/agents/${agentId}/versions/1`, undefined],
      ['GET', `/api/agents/${agentId}/diff?from=1&to=2`, undefined],
      ['GET', `/api/agents/${agentId}/publications`, undefined],
      ['POST', `/api/agents/${agentId}/versions`, { handoffMessage: 'Theirs.' }],
      ['POST', `/api/agents/${agentId}/versions/2/publish`, {}],
      ['POST', `/api/agents/${agentId}/rollback`, { version: 1, reason: 'Because' }],
      ['GET', '/api/agents/not-a-uuid/versions', undefined],
    ] as const) {
      const res = await globex.call(method, path, body);
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    }
    expect((await acme.call('GET', `/api/agents/${agentId}/versions`)).json()).toMatchObject({ publishedVersion: 1, latestVersion: 2 });
  });
});
