import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acmeAndGlobex, signUp, type Company } from '../support/api.js';
import { ISO_MS, UUID } from '../support/formats.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

let server: TestServer;
let acme: Company;
let globex: Company;
beforeAll(async () => {
  server = await startTestServer();
  ({ acme, globex } = await acmeAndGlobex(server));
});
afterAll(async () => server?.close());

const expectAgentShape = (agent: any) => {
  expect(Object.keys(agent).sort()).toEqual(
    ['actionIds', 'active', 'afterHoursMessage', 'answerThreshold', 'createdAt', 'generalAnswers', 'handBackAfterMinutes', 'handoffMessage', 'id', 'model', 'name', 'systemPrompt', 'temperature', 'updatedAt', 'useKnowledgeBase'].sort(),
  );
  expect(agent.id).toMatch(UUID);
  expect(typeof agent.name).toBe('string');
  expect(typeof agent.systemPrompt).toBe('string');
  expect(agent.model === null || typeof agent.model === 'string').toBe(true);
  expect(typeof agent.temperature).toBe('number');
  expect(typeof agent.useKnowledgeBase).toBe('boolean');
  expect(typeof agent.active).toBe('boolean');
  expect(typeof agent.handoffMessage).toBe('string');
  expect(Array.isArray(agent.actionIds)).toBe(true);
  expect(agent.createdAt).toMatch(ISO_MS);
  expect(agent.updatedAt).toMatch(ISO_MS);
};

describe('POST /api/agents', () => {
  it('201 {agent} with the defaults for what was left out', async () => {
    const res = await acme.call('POST', '/api/agents', { name: 'Support bot' });
    expect(res.statusCode).toBe(201);
    const { agent } = res.json();
    expectAgentShape(agent);
    expect(agent).toMatchObject({
      name: 'Support bot',
      systemPrompt: expect.stringMatching(/^You are a helpful customer support agent/),
      model: null,
      temperature: 0.3,
      useKnowledgeBase: true,
      active: true,
      handoffMessage: 'Thanks for your message — a member of our team will get back to you shortly.',
      answerThreshold: 'balanced',
      generalAnswers: false,
    });
    expect(agent.updatedAt).toBe(agent.createdAt);
  });

  it('201 with every setting given', async () => {
    const body = {
      name: '  Sales  ',
      systemPrompt: 'You sell shoes.',
      model: 'gpt-4o-mini',
      temperature: 1.2,
      useKnowledgeBase: false,
      active: false,
      handoffMessage: 'A human will reply.',
      answerThreshold: 'strict',
      generalAnswers: true,
    };
    const res = await acme.call('POST', '/api/agents', body);
    expect(res.statusCode).toBe(201);
    expect(res.json().agent).toMatchObject({ ...body, name: 'Sales' });
  });

  const bad: [string, unknown][] = [
    ['no name', {}],
    ['an empty name', { name: '   ' }],
    ['a name too long', { name: 'x'.repeat(201) }],
    ['temperature above 2', { name: 'A', temperature: 2.01 }],
    ['temperature below 0', { name: 'A', temperature: -0.1 }],
    ['temperature as a string', { name: 'A', temperature: '0.5' }],
    ['useKnowledgeBase not a boolean', { name: 'A', useKnowledgeBase: 'yes' }],
    ['an empty handoff message', { name: 'A', handoffMessage: '' }],
    ['generalAnswers not a boolean', { name: 'A', generalAnswers: 'yes' }],
    ['an unknown field', { name: 'A', companyId: 'cccccccc-cccc-4ccc-8ccc-cccccccccccc' }],
    ['a JSON array', [1, 2]],
  ];
  it.each(bad)('400 VALIDATION_ERROR for %s', async (_label, body) => {
    const res = await acme.call('POST', '/api/agents', body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.any(String) } });
  });

  it('401 without a token', async () => {
    const res = await server.app.inject({ method: 'POST', url: '/api/agents', payload: { name: 'A' } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('UNAUTHORIZED');
  });
});

describe('GET /api/agents', () => {
  it('lists the company’s agents oldest first, with nextCursor', async () => {
    const company = await signUp(server, 'Listing');
    const names = ['First', 'Second', 'Third'];
    for (const name of names) expect((await company.call('POST', '/api/agents', { name })).statusCode).toBe(201);
    const res = await company.call('GET', '/api/agents');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['agents', 'nextCursor']);
    expect(body.agents.map((a: any) => a.name)).toEqual(names);
    body.agents.forEach(expectAgentShape);
    expect(body.nextCursor).toBeNull();

    const page1 = (await company.call('GET', '/api/agents?limit=2')).json();
    expect(page1.agents.map((a: any) => a.name)).toEqual(['First', 'Second']);
    expect(typeof page1.nextCursor).toBe('string');
    const page2 = (await company.call('GET', `/api/agents?limit=2&cursor=${encodeURIComponent(page1.nextCursor)}`)).json();
    expect(page2).toEqual({ agents: [expect.objectContaining({ name: 'Third' })], nextCursor: null });
  });

  it('400 for a bad limit or cursor', async () => {
    expect((await acme.call('GET', '/api/agents?limit=0')).statusCode).toBe(400);
    expect((await acme.call('GET', '/api/agents?limit=201')).statusCode).toBe(400);
    const res = await acme.call('GET', '/api/agents?cursor=garbage');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
  });
});

describe('GET/PATCH/DELETE /api/agents/:id', () => {
  it('reads, updates (only what is sent) and deletes an agent', async () => {
    const { agent } = (await acme.call('POST', '/api/agents', { name: 'Lifecycle', model: 'llama3.2' })).json();
    const got = await acme.call('GET', `/api/agents/${agent.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual({ agent });

    const patched = await acme.call('PATCH', `/api/agents/${agent.id}`, { temperature: 0.7, active: false, model: null, generalAnswers: true });
    expect(patched.statusCode).toBe(200);
    const updated = patched.json().agent;
    expectAgentShape(updated);
    expect(updated).toMatchObject({ id: agent.id, name: 'Lifecycle', temperature: 0.7, active: false, model: null, generalAnswers: true, createdAt: agent.createdAt });
    expect(updated.updatedAt >= agent.updatedAt).toBe(true);
    expect((await acme.call('GET', `/api/agents/${agent.id}`)).json().agent).toEqual(updated);
    expect((await acme.call('GET', '/api/agents')).json().agents).toContainEqual(updated);

    const empty = await acme.call('PATCH', `/api/agents/${agent.id}`, {});
    expect(empty.statusCode).toBe(200);
    expect(empty.json().agent).toEqual(updated);

    const del = await acme.call('DELETE', `/api/agents/${agent.id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await acme.call('GET', `/api/agents/${agent.id}`)).statusCode).toBe(404);
    expect((await acme.call('PATCH', `/api/agents/${agent.id}`, { name: 'Zombie' })).statusCode).toBe(404);
    expect((await acme.call('DELETE', `/api/agents/${agent.id}`)).statusCode).toBe(404);
    expect((await acme.call('GET', '/api/agents')).json().agents.map((a: any) => a.id)).not.toContain(agent.id);
  });

  it('PATCH validates strictly', async () => {
    const { agent } = (await acme.call('POST', '/api/agents', { name: 'Strict' })).json();
    for (const body of [{ temperature: 3 }, { name: '' }, { id: agent.id }, { createdAt: '2020-01-01T00:00:00.000Z' }]) {
      const res = await acme.call('PATCH', `/api/agents/${agent.id}`, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('404 NOT_FOUND for unknown and malformed ids', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '1']) {
      const res = await acme.call('GET', `/api/agents/${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    }
  });
});

describe('tenant isolation', () => {
  it("another company gets 404 on the agent and never sees it in its list", async () => {
    const { agent } = (await acme.call('POST', '/api/agents', { name: 'Acme only' })).json();
    const fresh = await signUp(server, 'Fresh');
    expect((await fresh.call('GET', '/api/agents')).json()).toEqual({ agents: [], nextCursor: null });
    for (const [method, payload] of [['GET'], ['PATCH', { name: 'Stolen' }], ['DELETE']] as const) {
      const res = await globex.call(method, `/api/agents/${agent.id}`, payload);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
    }
    expect((await globex.call('GET', '/api/agents')).json().agents.map((a: any) => a.id)).not.toContain(agent.id);
    // Untouched for its owner.
    expect((await acme.call('GET', `/api/agents/${agent.id}`)).json().agent).toEqual(agent);
  });
});
