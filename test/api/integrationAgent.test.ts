import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acmeAndGlobex, type Company } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * An integration's `agentId` must name an agent of the same company that exists and is not deleted
 * (checked against the agent's own stream). Anything else is 404 NOT_FOUND, like any other company's
 * resource (API.md), with a message naming agentId — the same answer for a random UUID and another
 * company's agent, so nothing reveals that the latter exists.
 */

let server: TestServer;
let acme: Company;
let globex: Company;
let ownAgent: string;
let otherOwnAgent: string;
let deletedAgent: string;
let globexAgent: string;

const createAgent = async (who: typeof acme, name: string) => {
  const res = await who.call('POST', '/api/agents', { name });
  expect(res.statusCode).toBe(201);
  return res.json().agent.id as string;
};

beforeAll(async () => {
  server = await startTestServer();
  ({ acme, globex } = await acmeAndGlobex(server));
  ownAgent = await createAgent(acme, 'Support');
  otherOwnAgent = await createAgent(acme, 'Sales');
  deletedAgent = await createAgent(acme, 'Gone');
  expect((await acme.call('DELETE', `/api/agents/${deletedAgent}`)).statusCode).toBe(204);
  globexAgent = await createAgent(globex, 'Globex bot');
});
afterAll(async () => server?.close());

const refused = (res: { statusCode: number; json(): any }) => {
  expect(res.statusCode).toBe(404);
  expect(res.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.stringMatching(/^agentId: /) } });
};

const badAgents = (): [string, string][] => [
  ['a random UUID', randomUUID()],
  ["another company's agent", globexAgent],
  ['a deleted agent', deletedAgent],
];

describe('POST /api/integrations agentId', () => {
  for (const connectorType of ['msgplatform', 'webchat'] as const) {
    it(`${connectorType}: refuses a random UUID, another company's agent and a deleted agent; nothing is created`, async () => {
      const before = (await acme.call('GET', '/api/integrations?limit=200')).json().integrations.length;
      for (const [label, agentId] of badAgents()) {
        const res = await acme.call('POST', '/api/integrations', { name: label, connectorType, agentId });
        refused(res);
      }
      expect((await acme.call('GET', '/api/integrations?limit=200')).json().integrations.length).toBe(before);
    });
  }

  it('accepts its own agent, and null', async () => {
    const res = await acme.call('POST', '/api/integrations', { name: 'Own', connectorType: 'webchat', agentId: ownAgent });
    expect(res.statusCode).toBe(201);
    expect(res.json().integration.agentId).toBe(ownAgent);
    const none = await acme.call('POST', '/api/integrations', { name: 'None', connectorType: 'webchat', agentId: null });
    expect(none.statusCode).toBe(201);
    expect(none.json().integration.agentId).toBeNull();
  });

  it('accepts an inactive agent of its own (it can be switched on later)', async () => {
    const paused = await createAgent(acme, 'Paused');
    expect((await acme.call('PATCH', `/api/agents/${paused}`, { active: false })).statusCode).toBe(200);
    const res = await acme.call('POST', '/api/integrations', { name: 'Paused agent', connectorType: 'webchat', agentId: paused });
    expect(res.statusCode).toBe(201);
  });
});

describe('PATCH /api/integrations/:id agentId', () => {
  let integrationId: number;
  beforeAll(async () => {
    const res = await acme.call('POST', '/api/integrations', { name: 'Patched', connectorType: 'msgplatform', agentId: ownAgent });
    expect(res.statusCode).toBe(201);
    integrationId = res.json().integration.id;
  });

  it('refuses a random UUID, another company\'s agent and a deleted agent; the integration keeps its agent', async () => {
    for (const [, agentId] of badAgents()) {
      refused(await acme.call('PATCH', `/api/integrations/${integrationId}`, { agentId, name: 'Renamed' }));
    }
    const now = (await acme.call('GET', `/api/integrations/${integrationId}`)).json().integration;
    expect(now).toMatchObject({ agentId: ownAgent, name: 'Patched' });
  });

  it('accepts another agent of its own, and null clears it', async () => {
    const moved = await acme.call('PATCH', `/api/integrations/${integrationId}`, { agentId: otherOwnAgent });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().integration.agentId).toBe(otherOwnAgent);
    const cleared = await acme.call('PATCH', `/api/integrations/${integrationId}`, { agentId: null });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json().integration.agentId).toBeNull();
  });

  it('a PATCH without agentId does not re-check the agent (deleting the agent later does not lock the integration)', async () => {
    const doomed = await createAgent(acme, 'Doomed');
    expect((await acme.call('PATCH', `/api/integrations/${integrationId}`, { agentId: doomed })).statusCode).toBe(200);
    expect((await acme.call('DELETE', `/api/agents/${doomed}`)).statusCode).toBe(204);
    const renamed = await acme.call('PATCH', `/api/integrations/${integrationId}`, { name: 'Still editable' });
    expect(renamed.statusCode).toBe(200);
  });

  it("another company's integration is still 404 whatever the agentId", async () => {
    const res = await globex.call('PATCH', `/api/integrations/${integrationId}`, { agentId: globexAgent });
    expect(res.statusCode).toBe(404);
  });
});
