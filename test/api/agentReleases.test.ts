import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teammateBearer } from '../support/agentFixtures.js';
import { signUp, type Company } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { ISO_MS } from '../support/formats.js';
import { seedConversation } from '../support/replayFixtures.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * The release gate (docs/api/agents-and-llm.md#release-gate): a newer version is published only through a
 * release check of it (its test cases, and a replay over the agent's most recent conversations) in which no
 * required case fails; an owner may override with a reason. On the builtin provider every outcome is exact.
 */

let server: TestServer;
let llm: FakeLlm;
const PRICES = { 'gpt-4o-mini': { inputMicrosPer1K: 1000, outputMicrosPer1K: 2000 } };
beforeAll(async () => {
  llm = await startFakeLlm({});
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', LLM_PRICE_TABLE: JSON.stringify(PRICES), LLM_MAX_RETRIES: '0' });
}, 30_000);
afterAll(async () => {
  await server?.close();
  await llm?.close();
});


const teammate = (owner: Company, role: 'admin' | 'agent') => teammateBearer(server, owner, role, `Release ${role}`);

const cheque = { name: 'Cheque', turns: ['Can I pay with a cheque?'], expect: { handoff: true, contains: [{ kind: 'text', value: 'person' }] }, required: true };

/** A company on the builtin provider whose agent answers a web chat with two past conversations. */
async function shop(name: string) {
  const co = await signUp(server, name, uniqueEmail(name));
  const doc = (await co.call('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: 'We ship to Norway, Sweden and Denmark within 5 working days.' })).json().document;
  const agentId = (await co.call('POST', '/api/agents', { name: 'Ava', handoffMessage: 'A person will answer soon.' })).json().agent.id as string;
  const integration = (await co.call('POST', '/api/integrations', { name: 'Chat', connectorType: 'webchat', agentId })).json().integration;
  const seed = (turns: Parameters<typeof seedConversation>[2]) => seedConversation(server.adapters.eventStore, co.company.companyId, turns, 'Ada', integration.id);
  const shipping = await seed([
    {
      customer: ['Do you ship to Norway?'],
      answer: { agent: 'We ship to Norway, Sweden and Denmark.', provenance: { sources: [{ documentId: doc.id, title: 'Shipping', chunkIndex: 0, score: 1 }], latencyMs: 5, costMicros: 42, usageEstimated: false } },
    },
  ]);
  const cheques = await seed([{ customer: ['Can I pay with a cheque?'], answer: { operator: 'Yes, by post.' } }]);
  const caseId = (await co.call('POST', `/api/agents/${agentId}/test-cases`, cheque)).json().testCase.id as string;
  const draft = async (changes: object) => (await co.call('POST', `/api/agents/${agentId}/versions`, changes)).json().version.version as number;
  const check = async (version: number) => {
    const started = await co.call('POST', `/api/agents/${agentId}/release-checks`, { version });
    expect(started.statusCode).toBe(202);
    const id = started.json().check.id as string;
    await expect.poll(async () => (await co.call('GET', `/api/agents/${agentId}/release-checks/${id}`)).json().check.status, { timeout: 20_000, interval: 50 }).toBe('finished');
    return (await co.call('GET', `/api/agents/${agentId}/release-checks/${id}`)).json();
  };
  const publish = (version: number, body: object = {}, bearer?: string) => co.call('POST', `/api/agents/${agentId}/versions/${version}/publish`, body, bearer);
  return { ...co, doc, agentId, caseId, shipping, cheques, draft, check, publish };
}

describe('release gate', () => {
  it('given a required case, when a behaviour change comes through PATCH, then 409 RELEASE_CHECKS_REQUIRED tells to save a draft and publish it; the name and the switch still change in place', async () => {
    const s = await shop('GatePatch');
    const patched = await s.call('PATCH', `/api/agents/${s.agentId}`, { handoffMessage: 'Wait for our team.' });
    expect(patched.statusCode).toBe(409);
    expect(patched.json().error).toEqual({ code: 'RELEASE_CHECKS_REQUIRED', message: expect.stringMatching(/save a draft .*publish it through the release gate/) });
    const mixed = await s.call('PATCH', `/api/agents/${s.agentId}`, { name: 'Bea', systemPrompt: 'Be brief.' });
    expect(mixed.statusCode).toBe(409);
    const versions = (await s.call('GET', `/api/agents/${s.agentId}/versions`)).json();
    expect(versions).toMatchObject({ publishedVersion: 1, latestVersion: 1 });

    const renamed = await s.call('PATCH', `/api/agents/${s.agentId}`, { name: 'Bea', active: false });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().agent).toMatchObject({ name: 'Bea', active: false, handoffMessage: 'A person will answer soon.' });

    // Without a required case the documented PATCH goes live at once, as API clients rely on.
    await s.call('PUT', `/api/agents/${s.agentId}/test-cases/${s.caseId}`, { ...cheque, required: false });
    const live = await s.call('PATCH', `/api/agents/${s.agentId}`, { handoffMessage: 'Wait for our team.' });
    expect(live.statusCode).toBe(200);
    expect((await s.call('GET', `/api/agents/${s.agentId}/versions`)).json()).toMatchObject({ publishedVersion: 2, latestVersion: 2 });
  });

  it('given a required case, when an experiment is started with a version newer than the published one, then it passes the gate like a publish, and ending it records the checks on the publication', async () => {
    const s = await shop('GateExperiment');
    const failing = await s.draft({ handoffMessage: 'Wait for our team.' });
    const start = (versions: number[], body: object = {}, bearer?: string) => s.call('POST', `/api/agents/${s.agentId}/experiments`, { versions, split: [50, 50], ...body }, bearer);

    expect((await start([1, failing])).json().error.code).toBe('RELEASE_CHECKS_REQUIRED');
    const failedCheck = await s.check(failing);
    const refused = await start([1, failing], { releaseCheckId: failedCheck.check.id });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatchObject({ code: 'RELEASE_CHECKS_FAILED', details: { releaseCheckId: failedCheck.check.id, failedCases: [{ caseId: s.caseId, name: 'Cheque' }] } });
    const admin = await teammate(s, 'admin');
    expect((await start([1, failing], { releaseCheckId: failedCheck.check.id, override: true, reason: 'Try it' }, admin)).statusCode).toBe(403);

    const passing = await s.draft({ handoffMessage: 'A person from our team will answer soon.' });
    const passedCheck = await s.check(passing);
    // A check of the other arm's version does not pass this one.
    expect((await start([1, passing], { releaseCheckId: failedCheck.check.id })).json().error.code).toBe('RELEASE_CHECKS_REQUIRED');
    const started = await start([1, passing], { releaseCheckId: passedCheck.check.id });
    expect(started.statusCode).toBe(201);
    const experimentId = started.json().experiment.id as string;
    const ended = await s.call('POST', `/api/agents/${s.agentId}/experiments/${experimentId}/end`, { winner: passing, reason: 'Fewer handoffs' });
    expect(ended.statusCode).toBe(200);
    const [latest] = (await s.call('GET', `/api/agents/${s.agentId}/publications`)).json().publications;
    expect(latest).toMatchObject({ version: passing, rollback: false, reason: 'Fewer handoffs', checks: { releaseCheckId: passedCheck.check.id, failedCases: [], overridden: false, overrideReason: null } });

    // An owner may start one over unchecked versions with a reason, recorded on the winner's publication.
    const unchecked = await s.draft({ handoffMessage: 'Please wait for our team.' });
    const overridden = await start([passing, unchecked], { override: true, reason: 'Measure it on real customers' });
    expect(overridden.statusCode).toBe(201);
    await s.call('POST', `/api/agents/${s.agentId}/experiments/${overridden.json().experiment.id}/end`, { winner: unchecked, reason: 'It won' });
    const [last] = (await s.call('GET', `/api/agents/${s.agentId}/publications`)).json().publications;
    expect(last).toMatchObject({ version: unchecked, checks: { releaseCheckId: null, failedCases: [], overridden: true, overrideReason: 'Measure it on real customers' } });
  });

  it('given v2 failed its check and v3 passed and went live, when an admin rolls back to v2, then 409 CONFLICT (never published); publishing it is gated, and only an owner overrides', async () => {
    const s = await shop('GateRollback');
    const v2 = await s.draft({ handoffMessage: 'Wait for our team.' });
    const failed = await s.check(v2);
    expect((await s.publish(v2, { releaseCheckId: failed.check.id })).json().error.code).toBe('RELEASE_CHECKS_FAILED');
    const v3 = await s.draft({ handoffMessage: 'A person from our team will answer soon.' });
    expect((await s.publish(v3, { releaseCheckId: (await s.check(v3)).check.id })).statusCode).toBe(200);
    const admin = await teammate(s, 'admin');

    const rolledBack = await s.call('POST', `/api/agents/${s.agentId}/rollback`, { version: v2, reason: 'Back' }, admin);

    expect(rolledBack.statusCode).toBe(409);
    expect(rolledBack.json().error).toEqual({ code: 'CONFLICT', message: expect.stringMatching(/never published/) });
    expect((await s.call('GET', `/api/agents/${s.agentId}/versions`)).json()).toMatchObject({ publishedVersion: v3 });
    // Published through the gate instead, the older version meets its failed check; an admin may not go over it.
    expect((await s.publish(v2, { releaseCheckId: failed.check.id }, admin)).json().error.code).toBe('RELEASE_CHECKS_FAILED');
    expect((await s.publish(v2, {}, admin)).json().error.code).toBe('RELEASE_CHECKS_REQUIRED');
    expect((await s.publish(v2, { releaseCheckId: failed.check.id, override: true, reason: 'Ship it' }, admin)).statusCode).toBe(403);
    // A version customers were answered with stays one call away.
    expect((await s.call('POST', `/api/agents/${s.agentId}/rollback`, { version: 1, reason: 'Back to the first' }, admin)).statusCode).toBe(200);
    const overridden = await s.publish(v2, { releaseCheckId: failed.check.id, override: true, reason: 'The wording case is being rewritten' });
    expect(overridden.statusCode).toBe(200);
    const [latest] = (await s.call('GET', `/api/agents/${s.agentId}/publications`)).json().publications;
    expect(latest).toMatchObject({ version: v2, rollback: false, checks: { releaseCheckId: failed.check.id, overridden: true } });
  });

  it('given v2 failed its check and v3 is live, when an experiment pits v3 against v2, then v2 passes the gate like a publish: refused without an owner’s override, which then ends into a recorded publication', async () => {
    const s = await shop('GateOlderArm');
    const v2 = await s.draft({ handoffMessage: 'Wait for our team.' });
    const failed = await s.check(v2);
    const v3 = await s.draft({ handoffMessage: 'A person from our team will answer soon.' });
    expect((await s.publish(v3, { releaseCheckId: (await s.check(v3)).check.id })).statusCode).toBe(200);
    const admin = await teammate(s, 'admin');
    const start = (body: object = {}, bearer?: string) => s.call('POST', `/api/agents/${s.agentId}/experiments`, { versions: [v3, v2], split: [50, 50], ...body }, bearer);

    expect((await start({}, admin)).json().error.code).toBe('RELEASE_CHECKS_REQUIRED');
    const refused = await start({ releaseCheckId: failed.check.id }, admin);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatchObject({ code: 'RELEASE_CHECKS_FAILED', details: { failedCases: [{ caseId: s.caseId, name: 'Cheque' }] } });
    expect((await start({ releaseCheckId: failed.check.id, override: true, reason: 'Try it' }, admin)).statusCode).toBe(403);
    expect((await s.call('GET', `/api/agents/${s.agentId}/experiments`)).json().experiments).toEqual([]);

    const overridden = await start({ releaseCheckId: failed.check.id, override: true, reason: 'Measure it on real customers' });
    expect(overridden.statusCode).toBe(201);
    const ended = await s.call('POST', `/api/agents/${s.agentId}/experiments/${overridden.json().experiment.id}/end`, { winner: v2, reason: 'It won' }, admin);
    expect(ended.statusCode).toBe(200);
    const [latest] = (await s.call('GET', `/api/agents/${s.agentId}/publications`)).json().publications;
    expect(latest).toMatchObject({ version: v2, rollback: false, checks: { releaseCheckId: failed.check.id, overridden: true, overrideReason: 'Measure it on real customers' } });
  });

  it('a failing required case blocks publish with 409 RELEASE_CHECKS_FAILED naming it; a fixed draft passes its check and publishes', async () => {
    const s = await shop('GateShop');
    const v2 = await s.draft({ handoffMessage: 'Wait for our team.' });

    const unchecked = await s.publish(v2);
    expect(unchecked.statusCode).toBe(409);
    expect(unchecked.json().error.code).toBe('RELEASE_CHECKS_REQUIRED');

    const report = await s.check(v2);
    expect(report.check).toMatchObject({ version: v2, status: 'finished', conversations: 2, gate: { passed: false, failedCases: [{ caseId: s.caseId, name: 'Cheque' }] } });
    expect(report.check.suite).toMatchObject({ passed: 0, failed: 1, requiredFailed: 1, cases: [{ caseId: s.caseId, status: 'failed', answer: { text: 'Wait for our team.', handoff: true } }] });
    expect(report.check.replay).toMatchObject({ status: 'completed' });

    const refused = await s.publish(v2, { releaseCheckId: report.check.id });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      error: { code: 'RELEASE_CHECKS_FAILED', message: 'Required test cases fail: "Cheque"', details: { releaseCheckId: report.check.id, failedCases: [{ caseId: s.caseId, name: 'Cheque' }] } },
    });
    expect((await s.call('GET', `/api/agents/${s.agentId}`)).json().agent.handoffMessage).toBe('A person will answer soon.');

    const v3 = await s.draft({ handoffMessage: 'A person from our team will answer soon.' });
    const fixed = await s.check(v3);
    expect(fixed.check.gate).toEqual({ passed: true, failedCases: [] });
    // A check of another version does not pass this one.
    expect((await s.publish(v3, { releaseCheckId: report.check.id })).json().error.code).toBe('RELEASE_CHECKS_REQUIRED');
    const published = await s.publish(v3, { releaseCheckId: fixed.check.id });
    expect(published.statusCode).toBe(200);
    expect(published.json()).toMatchObject({ publishedVersion: v3, agent: { handoffMessage: 'A person from our team will answer soon.' } });
    const [latest] = (await s.call('GET', `/api/agents/${s.agentId}/publications`)).json().publications;
    expect(latest).toMatchObject({ version: v3, checks: { releaseCheckId: fixed.check.id, failedCases: [], overridden: false, overrideReason: null } });
  });

  it('the report shows every replayed turn side by side: the current answer against the draft’s, with what changed', async () => {
    const s = await shop('GateReport');
    const v2 = await s.draft({ handoffMessage: 'Wait for our team.' });
    const report = await s.check(v2);
    const byConversation = Object.fromEntries(report.turns.map((t: any) => [t.conversationId, t]));
    expect(report.turns).toHaveLength(2);
    expect(byConversation[s.shipping.conversationId]).toEqual({
      conversationId: s.shipping.conversationId,
      turn: 0,
      customerText: 'Do you ship to Norway?',
      customerAt: expect.stringMatching(ISO_MS),
      current: { kind: 'agent', text: 'We ship to Norway, Sweden and Denmark.', handoff: false, documentIds: [s.doc.id], chars: 38, costMicros: 42 },
      draft: { kind: 'agent', text: expect.stringContaining('Norway'), handoff: false, documentIds: [s.doc.id], chars: expect.any(Number), costMicros: 0 },
      changes: { handoff: 'same', sourcesAdded: [], sourcesRemoved: [], lengthDelta: expect.any(Number), costDeltaMicros: -42 },
    });
    const shippingTurn = byConversation[s.shipping.conversationId];
    expect(shippingTurn.changes.lengthDelta).toBe(shippingTurn.draft.chars - 38);
    expect(byConversation[s.cheques.conversationId]).toMatchObject({
      current: { kind: 'operator', text: 'Yes, by post.', handoff: false, documentIds: [], chars: 13, costMicros: null },
      draft: { kind: 'agent', text: 'Wait for our team.', handoff: true, documentIds: [], chars: 18, costMicros: 0 },
      changes: { handoff: 'now_hands_off', sourcesAdded: [], sourcesRemoved: [], lengthDelta: 5, costDeltaMicros: null },
    });
    // Paged with a keyset cursor like every list.
    const first = (await s.call('GET', `/api/agents/${s.agentId}/release-checks/${report.check.id}?limit=1`)).json();
    expect(first.turns).toHaveLength(1);
    const second = (await s.call('GET', `/api/agents/${s.agentId}/release-checks/${report.check.id}?limit=1&cursor=${encodeURIComponent(first.nextCursor)}`)).json();
    expect([...first.turns, ...second.turns]).toEqual(report.turns);
  });

  it('an owner overrides failing checks with a reason, recorded on the publication; an admin may not, and no reason is 400', async () => {
    const s = await shop('GateOverride');
    const v2 = await s.draft({ handoffMessage: 'Wait for our team.' });
    const report = await s.check(v2);
    const admin = await teammate(s, 'admin');

    const byAdmin = await s.publish(v2, { releaseCheckId: report.check.id, override: true, reason: 'Ship it' }, admin);
    expect(byAdmin.statusCode).toBe(403);
    expect((await s.publish(v2, { releaseCheckId: report.check.id, override: true })).statusCode).toBe(400);

    const overridden = await s.publish(v2, { releaseCheckId: report.check.id, override: true, reason: 'The wording case is being rewritten' });
    expect(overridden.statusCode).toBe(200);
    expect(overridden.json()).toMatchObject({ publishedVersion: v2, agent: { handoffMessage: 'Wait for our team.' } });
    const [latest] = (await s.call('GET', `/api/agents/${s.agentId}/publications`)).json().publications;
    expect(latest).toEqual({
      version: v2,
      previousVersion: 1,
      rollback: false,
      reason: 'The wording case is being rewritten',
      checks: { releaseCheckId: report.check.id, failedCases: [{ caseId: s.caseId, name: 'Cheque' }], overridden: true, overrideReason: 'The wording case is being rewritten' },
      by: `user:${s.user.id}`,
      at: expect.stringMatching(ISO_MS),
    });
    // Going back needs no check: a rollback is never gated.
    expect((await s.call('POST', `/api/agents/${s.agentId}/rollback`, { version: 1, reason: 'Back to the tested wording' })).statusCode).toBe(200);
  });

  it('agents (the role) read checks but may not start them', async () => {
    const s = await shop('GateRoles');
    const report = await s.check(await s.draft({ handoffMessage: 'Wait for our team.' }));
    const agent = await teammate(s, 'agent');
    expect((await s.call('POST', `/api/agents/${s.agentId}/release-checks`, {}, agent)).statusCode).toBe(403);
    const read = await s.call('GET', `/api/agents/${s.agentId}/release-checks/${report.check.id}`, undefined, agent);
    expect(read.statusCode).toBe(200);
    expect(read.json().check.id).toBe(report.check.id);
  });

  it('another company’s agent and release check are 404', async () => {
    const s = await shop('GateAcme');
    const report = await s.check(await s.draft({ handoffMessage: 'Wait for our team.' }));
    const globex = await signUp(server, 'GateGlobex', uniqueEmail('gate-globex'));
    const ownAgent = (await globex.call('POST', '/api/agents', { name: 'Gus' })).json().agent.id as string;
    const ownDraft = (await globex.call('POST', `/api/agents/${ownAgent}/versions`, { handoffMessage: 'Other.' })).json().version.version as number;
    for (const [method, path, body] of [
      ['GET', `/api/agents/${s.agentId}/release-checks/${report.check.id}`, undefined],
      ['POST', `/api/agents/${s.agentId}/release-checks`, {}],
      ['POST', `/api/agents/${s.agentId}/release-checks/estimate`, {}],
      // Its own agent reaches no other agent's check.
      ['GET', `/api/agents/${ownAgent}/release-checks/${report.check.id}`, undefined],
      ['POST', `/api/agents/${ownAgent}/versions/${ownDraft}/publish`, { releaseCheckId: report.check.id }],
    ] as const) {
      const res = await globex.call(method, path, body);
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    }
  });

  it('the estimate names the agent’s recent conversations and prices them (0 on the builtin provider)', async () => {
    const s = await shop('GateEstimate');
    const estimate = await s.call('POST', `/api/agents/${s.agentId}/release-checks/estimate`, { conversations: 1 });
    expect(estimate.statusCode).toBe(200);
    expect(estimate.json().estimate).toEqual({
      version: 1,
      conversations: [{ conversationId: s.cheques.conversationId, messages: 1 }],
      messages: 1,
      suite: { cases: 1, messages: 1, costMicros: 0 },
      costMicros: 0,
      provider: 'builtin',
      model: 'builtin',
    });
  });

  it('with a paid model the estimate of the replay and the suite is confirmed first (409 CONFLICT otherwise, nothing starts) and their answers are charged', async () => {
    const s = await shop('GatePaid');
    expect((await s.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: llm.url, apiKey: 'sk-gate', model: 'gpt-4o-mini' })).statusCode).toBe(200);
    const v2 = await s.draft({ systemPrompt: 'Be brief.' });
    const estimate = (await s.call('POST', `/api/agents/${s.agentId}/release-checks/estimate`, { version: v2 })).json().estimate;
    expect(estimate).toMatchObject({ version: v2, messages: 2, suite: { cases: 1, messages: 1 }, provider: 'openai', model: 'gpt-4o-mini' });
    expect(estimate.suite.costMicros).toBeGreaterThan(0);
    expect(estimate.costMicros).toBeGreaterThan(estimate.suite.costMicros);

    const unconfirmed = await s.call('POST', `/api/agents/${s.agentId}/release-checks`, { version: v2 });
    expect(unconfirmed.statusCode).toBe(409);
    expect(unconfirmed.json().error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(`${estimate.costMicros} micro-dollars`) });
    expect((await s.call('GET', '/api/replays')).json().replays).toEqual([]);

    const started = await s.call('POST', `/api/agents/${s.agentId}/release-checks`, { version: v2, confirmedCostMicros: estimate.costMicros });
    expect(started.statusCode).toBe(202);
    const id = started.json().check.id;
    await expect.poll(async () => (await s.call('GET', `/api/agents/${s.agentId}/release-checks/${id}`)).json().check.status, { timeout: 20_000, interval: 50 }).toBe('finished');
    const report = (await s.call('GET', `/api/agents/${s.agentId}/release-checks/${id}`)).json();
    // The case is answered by the paid model too (it echoes instead of handing off to a person); so is the replay.
    expect(report.check.gate).toEqual({ passed: false, failedCases: [{ caseId: s.caseId, name: 'Cheque' }] });
    expect(report.check.suite.cases[0].answer.text).toBe('Echo: Can I pay with a cheque?');
    expect(report.turns.map((t: any) => [t.draft.kind, t.draft.text, t.draft.costMicros > 0]).sort()).toEqual([
      ['agent', 'Echo: Can I pay with a cheque?', true],
      ['agent', 'Echo: Do you ship to Norway?', true],
    ]);
    const spent = report.turns.reduce((n: number, t: any) => n + t.draft.costMicros, 0);
    await expect
      .poll(async () => (await s.call('GET', '/api/credits')).json().credits.ledger.filter((l: { reason: string }) => l.reason.startsWith('Replay answer')).reduce((n: number, l: { deltaMicros: number }) => n - l.deltaMicros, 0), { timeout: 5000 })
      .toBe(spent);
    await expect.poll(async () => (await s.call('GET', '/api/credits')).json().credits.ledger.filter((l: { reason: string }) => l.reason.startsWith('Test answer')).length, { timeout: 5000 }).toBe(1);
  });
});
