import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentWithVersions, teammateBearer } from '../support/agentFixtures.js';
import { conversationIdFor } from '../../src/commands/conversations/conversationIds.js';
import { agentDefaults } from '../../src/domain/agents/events.js';
import { assignArm, type ExperimentSplit } from '../../src/domain/agents/experiments.js';
import { conversationDecider } from '../../src/domain/conversations/decider.js';
import type { ConversationEvent } from '../../src/domain/conversations/events.js';
import { chooseArm } from '../../src/workers/replies/replyExperiment.js';
import type { AgentProfile } from '../../src/workers/replies/replyDecisions.js';
import { signUp, type Company } from '../support/api.js';
import { ISO_MS } from '../support/formats.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * Experiments (docs/api/agents-and-llm.md#experiments): two versions answer an agent's conversations at once,
 * split by a hash of the conversation id that the conversation records with its first answer; a holdout share
 * goes straight to people. Per-arm analytics with Wilson intervals and a significance verdict; ending publishes
 * the winner. Owners and admins start and end; agents read. Another company's agent or experiment is 404.
 */

const SECRET = 'whsec_agent_experiments_0123456789';
const KB = 'We ship to Norway, Sweden and Denmark within 5 working days.';
const ANSWERABLE = 'Do you ship to Norway?';
const UNANSWERABLE = 'Can I pay with a cheque?';

let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '0' });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => server?.close());

/** An agent (version 1) with a draft version 2 that hands off with another message. */
const agentWithTwoVersions = (co: Company) => agentWithVersions(co, { handoffMessage: 'Version one hands off.' }, [{ handoffMessage: 'Version two hands off.' }]);

const joinAs = (owner: Company, role: 'agent' | 'admin') => teammateBearer(server, owner, role);

async function startExperiment(co: Company, agentId: string, body: Record<string, unknown> = { versions: [1, 2], split: [50, 50], holdout: 20 }) {
  const res = await co.call('POST', `/api/agents/${agentId}/experiments`, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().experiment;
}


describe('starting an experiment', () => {
  it('records the two versions, the split, the holdout and the level; a second one is 409, and nothing can be published meanwhile', async () => {
    const co = await signUp(server, 'Experiment start');
    const agentId = await agentWithTwoVersions(co);
    const experiment = await startExperiment(co, agentId, { versions: [1, 2], split: [90, 10], holdout: 5 });
    const emptyArm = {
      conversations: 0,
      aiResolution: { successes: 0, trials: 0, rate: null, low: null, high: null },
      handoff: { successes: 0, trials: 0, rate: null, low: null, high: null },
      firstResponse: { count: 0, meanMs: null, p50Ms: null, p90Ms: null },
      costMicros: 0,
      costPerConversationMicros: null,
    };
    expect(experiment).toEqual({
      id: expect.any(String),
      agentId,
      status: 'running',
      confidenceLevel: 0.95,
      arms: [
        { arm: 'a', version: 1, share: 90, metrics: emptyArm },
        { arm: 'b', version: 2, share: 10, metrics: emptyArm },
      ],
      holdout: { share: 5, metrics: emptyArm },
      verdict: { metric: 'aiResolutionRate', difference: null, z: null, pValue: null, significant: false, better: null },
      startedAt: expect.stringMatching(ISO_MS),
      startedBy: `user:${co.user.id}`,
      endedAt: null,
      endedBy: null,
      winner: null,
      reason: null,
    });
    const again = await co.call('POST', `/api/agents/${agentId}/experiments`, { versions: [1, 2], split: [50, 50] });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('CONFLICT');
    const publish = await co.call('POST', `/api/agents/${agentId}/versions/2/publish`, {});
    expect(publish.statusCode).toBe(409);
    expect((await co.call('GET', `/api/agents/${agentId}/experiments/${experiment.id}`)).json().experiment.id).toBe(experiment.id);
    const listed = (await co.call('GET', `/api/agents/${agentId}/experiments?limit=1`)).json();
    expect(listed.experiments.map((e: any) => e.id)).toEqual([experiment.id]);
    expect(listed.nextCursor).toBeNull();
  });

  it('refuses the same version twice or shares not adding to 100 (400), and an unknown version (404)', async () => {
    const co = await signUp(server, 'Experiment refusals');
    const agentId = await agentWithTwoVersions(co);
    for (const body of [
      { versions: [2, 2], split: [50, 50] },
      { versions: [1, 2], split: [60, 60] },
      { versions: [1, 2], split: [50, 50], holdout: 60 },
      { versions: [1, 2], split: [50, 50], confidenceLevel: 0.5 },
    ]) {
      const res = await co.call('POST', `/api/agents/${agentId}/experiments`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    expect((await co.call('POST', `/api/agents/${agentId}/experiments`, { versions: [1, 9], split: [50, 50] })).statusCode).toBe(404);
  });
});

describe('the split is sticky and close to the configured share over 1,000 conversations', () => {
  const X = 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee';
  const AGENT = 'a9a9a9a9-a9a9-49a9-89a9-a9a9a9a9a9a9';
  const S1 = '51515151-5151-4515-8515-515151515151';
  const M1 = '11111111-1111-4111-8111-111111111111';
  const R1 = '33333333-3333-4333-8333-333333333333';
  const { active: _a, handBackAfterMinutes: _h, ...config } = agentDefaults;
  const behaviour = (version: number) => ({ ...config, afterHoursMessage: 'Back {{back}}.', version });
  const profile = (shareA: number, holdout: number): AgentProfile => ({
    agentId: AGENT,
    companyId: 'cccccccc-cccc-4ccc-8ccc-cccccccccccc',
    active: true,
    name: 'Ava',
    ...behaviour(1),
    experiment: {
      experimentId: X,
      holdout,
      arms: [
        { arm: 'a', share: shareA, behaviour: behaviour(1) },
        { arm: 'b', share: 100 - shareA, behaviour: behaviour(2) },
      ],
    },
  });
  const waiting = (conversationId: string): ConversationEvent[] => [
    { type: 'ConversationStarted', data: { conversationId, companyId: 'cccccccc-cccc-4ccc-8ccc-cccccccccccc', integrationId: 7, connectorType: 'msgplatform', customer: { clientId: 1, channelId: 1, transport: 'telegram' }, stageId: null, at: '2026-01-01T00:00:00.000Z' } },
    { type: 'AiSessionOpened', data: { sessionId: S1, at: '2026-01-01T00:00:00.000Z' } },
    { type: 'MessageReceived', data: { messageId: M1, dedupeKey: 'k', dedupeUntil: null, text: 'hi', platform: {}, at: '2026-01-01T00:00:00.000Z' } },
  ];

  it('given a 90/10 canary with a 10 % holdout, 1,000 conversations land close to 10 % / 81 % / 9 %, each records its arm, and a changed split moves none of them', () => {
    const counts = { a: 0, b: 0, holdout: 0 };
    for (let i = 0; i < 1000; i++) {
      const conversationId = conversationIdFor(7, `customer-${i}`);
      const given = waiting(conversationId);
      const state = given.reduce(conversationDecider.evolve, conversationDecider.initialState);
      // When the first answer is written, the conversation joins the arm its id falls in…
      const { agent, join } = chooseArm(profile(90, 10), state, conversationId);
      expect(join).not.toBeNull();
      counts[join!.arm] += 1;
      expect(agent.version).toBe(join!.arm === 'b' ? 2 : 1);
      const events = conversationDecider.decide(
        { type: 'AppendAgentReply', messageId: R1, sessionId: S1, agentId: AGENT, text: 'ok', inReplyTo: [M1], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: join!.arm === 'holdout', experiment: join!, now: '2026-01-01T00:00:01.000Z' },
        state,
      );
      expect(events[0]).toMatchObject({ type: 'ExperimentArmAssigned', data: { experimentId: X, arm: join!.arm } });
      const after = [...given, ...events].reduce(conversationDecider.evolve, conversationDecider.initialState);
      // …and keeps it: a later answer under another split (50/50, a 40 % holdout) still uses the recorded arm.
      expect(chooseArm(profile(50, 40), after, conversationId).join?.arm).toBe(join!.arm);
    }
    // Binomial standard deviations over 1,000: ±9.5 (10 %), ±12.4 (81 %), ±9.0 (9 %); four of them at most.
    expect(Math.abs(counts.holdout - 100)).toBeLessThan(38);
    expect(Math.abs(counts.a - 810)).toBeLessThan(50);
    expect(Math.abs(counts.b - 90)).toBeLessThan(36);
  });
});

/** Client ids whose conversations (on `integrationId`) fall in each arm of the experiment. */
function clientsByArm(experiment: { id: string; arms: { arm: 'a' | 'b'; share: number }[]; holdout: { share: number } }, integrationId: number, wanted: number) {
  const split: ExperimentSplit = { experimentId: experiment.id, arms: experiment.arms, holdout: experiment.holdout.share };
  const found: Record<'a' | 'b' | 'holdout', string[]> = { a: [], b: [], holdout: [] };
  for (let i = 0; Object.values(found).some((l) => l.length < wanted); i++) {
    const clientId = `client-${i}`;
    const list = found[assignArm(split, conversationIdFor(integrationId, clientId))];
    if (list.length < wanted) list.push(clientId);
  }
  return found;
}

describe('end to end through the webhook, on the builtin provider', () => {
  let co: Company;
  let agentId: string;
  let integrationId: number;
  let experiment: any;
  let clients: Record<'a' | 'b' | 'holdout', string[]>;

  /** The customer writes; resolves with the conversation's agent messages once there are `count` of them. */
  async function customerWrites(clientId: string, text: string, count: number, n: number) {
    await postPlatformWebhook(base, integrationId, SECRET, { hook_type: 'inbox', type: 'from_client', message_id: `m-${clientId}-${n}`, client_id: clientId, channel_id: 1, transport: 'telegram', text });
    const id = conversationIdFor(integrationId, clientId);
    let detail: any;
    await expect
      .poll(
        async () => {
          const res = await co.call('GET', `/api/conversations/${id}`);
          if (res.statusCode !== 200) return 0;
          detail = res.json();
          return detail.messages.filter((m: any) => m.author === 'agent').length;
        },
        { timeout: 10_000 },
      )
      .toBe(count);
    return { id, conversation: detail.conversation, replies: detail.messages.filter((m: any) => m.author === 'agent') as { text: string; agentVersion: number | null; experiment: { experimentId: string; arm: string } | null }[] };
  }

  beforeAll(async () => {
    co = await signUp(server, 'Experiment journey');
    agentId = await agentWithTwoVersions(co);
    expect((await co.call('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: KB })).statusCode).toBe(201);
    const res = await co.call('POST', '/api/integrations', { name: 'Sandbox', connectorType: 'msgplatform', webhookSecret: SECRET, agentId });
    integrationId = res.json().integration.id as number;
    experiment = await startExperiment(co, agentId, { versions: [1, 2], split: [50, 50], holdout: 20 });
    clients = clientsByArm(experiment, integrationId, 3);
  });

  it('answers each conversation with its arm’s version, keeps it on the next message, and hands the holdout to people', async () => {
    for (const arm of ['a', 'b'] as const) {
      const version = arm === 'a' ? 1 : 2;
      const [first, second, third] = clients[arm];
      const answered = await customerWrites(first!, ANSWERABLE, 1, 1);
      expect(answered.replies[0]).toMatchObject({ text: expect.stringContaining('Norway'), agentVersion: version, experiment: { experimentId: experiment.id, arm } });
      // Sticky: the same customer's next message is answered by the same version.
      const again = await customerWrites(first!, ANSWERABLE, 2, 2);
      expect(again.replies[1]!.agentVersion).toBe(version);
      expect((await customerWrites(second!, ANSWERABLE, 1, 1)).replies[0]!.agentVersion).toBe(version);
      // The version's own handoff message shows which one wrote it.
      const handedOff = await customerWrites(third!, UNANSWERABLE, 1, 1);
      expect(handedOff.replies[0]).toMatchObject({ text: arm === 'a' ? 'Version one hands off.' : 'Version two hands off.', agentVersion: version });
    }
    for (const clientId of clients.holdout) {
      const held = await customerWrites(clientId, ANSWERABLE, 1, 1);
      // No model answered (no version), the customer reads the published handoff message, and people have it.
      expect(held.replies[0]).toMatchObject({ text: 'Version one hands off.', agentVersion: null, experiment: { experimentId: experiment.id, arm: 'holdout' } });
      expect(held.conversation.handoff).toMatchObject({ reason: 'experiment_holdout' });
    }
  });

  it('per-arm analytics match the conversations that happened', async () => {
    // Close the two answered conversations of arm a: resolved by the AI alone.
    for (const clientId of clients.a.slice(0, 2)) {
      expect((await co.call('POST', `/api/conversations/${conversationIdFor(integrationId, clientId)}/close`, {})).statusCode).toBe(200);
    }
    let got: any;
    await expect
      .poll(async () => {
        got = (await co.call('GET', `/api/agents/${agentId}/experiments/${experiment.id}`)).json().experiment;
        return got.arms[0].metrics.aiResolution.successes;
      })
      .toBe(2);
    const [a, b] = got.arms.map((arm: any) => arm.metrics);
    const held = got.holdout.metrics;
    expect(a).toMatchObject({ conversations: 3, aiResolution: { successes: 2, trials: 3 }, handoff: { successes: 1, trials: 3 }, costMicros: 0, costPerConversationMicros: 0 });
    expect(b).toMatchObject({ conversations: 3, aiResolution: { successes: 0, trials: 3 }, handoff: { successes: 1, trials: 3 } });
    expect(held).toMatchObject({ conversations: 3, aiResolution: { successes: 0, trials: 3 }, handoff: { successes: 3, trials: 3 } });
    // Every AI arm conversation had its first response; the holdout waits for a person, so none yet.
    expect(a.firstResponse.count).toBe(3);
    expect(b.firstResponse.count).toBe(3);
    expect(held.firstResponse.count).toBe(0);
    // 2 of 3 at 95 %: the Wilson interval [0.2077, 0.9385].
    expect(a.aiResolution.rate).toBeCloseTo(2 / 3, 10);
    expect(a.aiResolution.low).toBeCloseTo(0.2077, 3);
    expect(a.aiResolution.high).toBeCloseTo(0.9385, 3);
    expect(got.verdict).toMatchObject({ metric: 'aiResolutionRate', significant: false, better: null });
    expect(got.verdict.difference).toBeCloseTo(-2 / 3, 10);
  });

  it('ending publishes the winner, recorded like any publish; new conversations get the winner outside any experiment', async () => {
    const noReason = await co.call('POST', `/api/agents/${agentId}/experiments/${experiment.id}/end`, { winner: 2 });
    expect(noReason.statusCode).toBe(400);
    const outsider = await co.call('POST', `/api/agents/${agentId}/experiments/${experiment.id}/end`, { winner: 7, reason: 'Nope' });
    expect(outsider.statusCode).toBe(400);
    const ended = await co.call('POST', `/api/agents/${agentId}/experiments/${experiment.id}/end`, { winner: 2, reason: 'Version two reads friendlier' });
    expect(ended.statusCode).toBe(200);
    expect(ended.json()).toMatchObject({
      publishedVersion: 2,
      agent: { handoffMessage: 'Version two hands off.' },
      experiment: { status: 'ended', winner: 2, reason: 'Version two reads friendlier', endedBy: `user:${co.user.id}`, endedAt: expect.stringMatching(ISO_MS) },
    });
    const publications = (await co.call('GET', `/api/agents/${agentId}/publications`)).json().publications;
    expect(publications[0]).toEqual({ version: 2, previousVersion: 1, rollback: false, reason: 'Version two reads friendlier', by: `user:${co.user.id}`, at: expect.stringMatching(ISO_MS) });
    // A customer who would have been held out is now answered by the winner.
    const later = clientsByArm(experiment, integrationId, 4).holdout[3]!;
    const answered = await customerWrites(later, ANSWERABLE, 1, 1);
    expect(answered.replies[0]).toMatchObject({ text: expect.stringContaining('Norway'), agentVersion: 2, experiment: null });
    // Publishing works again.
    expect((await co.call('POST', `/api/agents/${agentId}/versions/1/publish`, { reason: 'Back to one' })).statusCode).toBe(200);

    // The next experiment may start; the list pages newest first by keyset cursor.
    const next = await startExperiment(co, agentId, { versions: [2, 1], split: [10, 90] });
    const first = (await co.call('GET', `/api/agents/${agentId}/experiments?limit=1`)).json();
    expect(first.experiments.map((e: any) => [e.id, e.status])).toEqual([[next.id, 'running']]);
    const rest = (await co.call('GET', `/api/agents/${agentId}/experiments?limit=1&cursor=${encodeURIComponent(first.nextCursor)}`)).json();
    expect(rest.experiments.map((e: any) => [e.id, e.status, e.winner])).toEqual([[experiment.id, 'ended', 2]]);
    expect(rest.nextCursor).toBeNull();
    expect((await co.call('GET', `/api/agents/${agentId}/experiments?cursor=garbage`)).statusCode).toBe(400);
  });
});

describe('roles and tenant isolation', () => {
  it('an agent reads experiments but gets 403 starting or ending one; another company gets 404 for the agent and the experiment', async () => {
    const co = await signUp(server, 'Experiment roles');
    const other = await signUp(server, 'Experiment outsider');
    const agentId = await agentWithTwoVersions(co);
    const experiment = await startExperiment(co, agentId);
    const agentRole = await joinAs(co, 'agent');
    expect((await co.call('GET', `/api/agents/${agentId}/experiments`, undefined, agentRole)).statusCode).toBe(200);
    expect((await co.call('GET', `/api/agents/${agentId}/experiments/${experiment.id}`, undefined, agentRole)).statusCode).toBe(200);
    const start = await co.call('POST', `/api/agents/${agentId}/experiments`, { versions: [1, 2], split: [50, 50] }, agentRole);
    expect(start.statusCode).toBe(403);
    expect(start.json().error.code).toBe('FORBIDDEN');
    expect((await co.call('POST', `/api/agents/${agentId}/experiments/${experiment.id}/end`, { winner: 1, reason: 'Mine' }, agentRole)).statusCode).toBe(403);
    const admin = await joinAs(co, 'admin');
    expect((await co.call('GET', `/api/agents/${agentId}/experiments`, undefined, admin)).statusCode).toBe(200);

    const ownAgent = await agentWithTwoVersions(other);
    for (const [method, path, body] of [
      ['GET', `/api/agents/${agentId}/experiments`, undefined],
      ['GET', `/api/agents/${agentId}/experiments/${experiment.id}`, undefined],
      ['POST', `/api/agents/${agentId}/experiments`, { versions: [1, 2], split: [50, 50] }],
      ['POST', `/api/agents/${agentId}/experiments/${experiment.id}/end`, { winner: 1, reason: 'Theirs' }],
      // Their experiment through one's own agent is no experiment of it.
      ['GET', `/api/agents/${ownAgent}/experiments/${experiment.id}`, undefined],
      ['POST', `/api/agents/${ownAgent}/experiments/${experiment.id}/end`, { winner: 1, reason: 'Theirs' }],
      ['GET', `/api/agents/${agentId}/experiments/not-a-uuid`, undefined],
    ] as const) {
      const res = await other.call(method, path, body);
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
    }
    // Still running for its owner.
    expect((await co.call('GET', `/api/agents/${agentId}/experiments/${experiment.id}`)).json().experiment.status).toBe('running');
  });
});
