import { describe, expect, it } from 'vitest';
import { agentDecider } from '../../../../src/domain/agents/decider.js';
import { agentDefaults, agentEvents, DEFAULT_AGENT_HANDOFF_MESSAGE, DEFAULT_AGENT_TEMPERATURE, type AgentEvent } from '../../../../src/domain/agents/events.js';
import { specFor } from '../../../support/gwt.js';

const A1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const C2 = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const U1 = 'user:11111111-1111-4111-8111-111111111111';

const agent = specFor(agentDecider);
const settings = { ...agentDefaults, name: 'Support bot' };
const created: AgentEvent = { type: 'AgentCreated', data: { agentId: A1, companyId: C1, ...settings, at: T0 } };
const { name: _n, active: _a, ...v1 } = settings;
const deleted: AgentEvent = { type: 'AgentDeleted', data: { at: T1 } };

describe('agent decider', () => {
  it('creates an agent with the given settings', () => {
    const state = agent.given([]).when({ type: 'CreateAgent', agentId: A1, companyId: C1, now: T0, ...settings }).then([created]);
    expect(state).toMatchObject({ status: 'active', agentId: A1, companyId: C1, name: 'Support bot', createdAt: T0, updatedAt: T0 });
  });

  it('has sensible defaults: builtin model of the company, temperature 0.3, knowledge base on, active, a handoff message, no general answers', () => {
    expect(agentDefaults).toEqual({
      systemPrompt: expect.stringMatching(/^You are a helpful customer support agent/),
      model: null,
      temperature: DEFAULT_AGENT_TEMPERATURE,
      useKnowledgeBase: true,
      active: true,
      handoffMessage: DEFAULT_AGENT_HANDOFF_MESSAGE,
      answerThreshold: 'balanced',
      generalAnswers: false,
    });
    expect(DEFAULT_AGENT_TEMPERATURE).toBe(0.3);
    expect(agentEvents.AgentCreated.safeParse(created.data).success).toBe(true);
  });

  it('reads an agent created before generalAnswers existed (no field) as valid; the setting is a boolean', () => {
    const { generalAnswers: _, ...old } = { ...created.data, generalAnswers: undefined };
    expect(agentEvents.AgentCreated.safeParse(old).success).toBe(true);
    expect(agentEvents.AgentCreated.safeParse({ ...created.data, generalAnswers: 'yes' }).success).toBe(false);
  });

  it('reads an agent created before answerThreshold existed (no field) as valid; the setting is one of strict, balanced, lenient', () => {
    const { answerThreshold: _, ...old } = { ...created.data, answerThreshold: undefined };
    expect(agentEvents.AgentCreated.safeParse(old).success).toBe(true);
    expect(agentEvents.AgentUpdated.safeParse({ changes: { answerThreshold: 'strict' }, at: T1 }).success).toBe(true);
    expect(agentEvents.AgentUpdated.safeParse({ changes: { answerThreshold: 'reckless' }, at: T1 }).success).toBe(false);
  });

  it('refuses to create an agent twice', () => {
    agent.given([created]).when({ type: 'CreateAgent', agentId: A1, companyId: C1, now: T1, ...settings }).thenThrows('CONFLICT');
  });

  it('refuses settings its events could not hold', () => {
    agent.given([]).when({ type: 'CreateAgent', agentId: A1, companyId: C1, now: T0, ...settings, temperature: 2.5 }).thenThrows('VALIDATION_ERROR');
    agent.given([]).when({ type: 'CreateAgent', agentId: A1, companyId: C1, now: T0, ...settings, name: '' }).thenThrows('VALIDATION_ERROR');
    agent.given([created]).when({ type: 'UpdateAgent', companyId: C1, changes: { temperature: -1 }, now: T1 }).thenThrows('VALIDATION_ERROR');
  });

  it('records only the settings that change: a behaviour change is a new version, published at once', () => {
    const state = agent
      .given([created])
      .when({ type: 'UpdateAgent', companyId: C1, changes: { name: 'Support bot', temperature: 0.9, model: 'gpt-4o-mini', active: undefined }, by: U1, now: T1 })
      .then([
        { type: 'AgentVersionSaved', data: { version: 2, basedOn: 1, config: { ...v1, temperature: 0.9, model: 'gpt-4o-mini' }, changed: ['model', 'temperature'], by: U1, at: T1 } },
        { type: 'AgentVersionPublished', data: { version: 2, previousVersion: 1, config: { ...v1, temperature: 0.9, model: 'gpt-4o-mini' }, rollback: false, reason: null, by: U1, at: T1 } },
      ]);
    expect(state).toMatchObject({ temperature: 0.9, model: 'gpt-4o-mini', name: 'Support bot', updatedAt: T1, createdAt: T0, latestVersion: 2, publishedVersion: 2 });
  });

  it('a name or switch change is no new version', () => {
    const state = agent
      .given([created])
      .when({ type: 'UpdateAgent', companyId: C1, changes: { name: 'Helper', active: false }, now: T1 })
      .then([{ type: 'AgentUpdated', data: { changes: { name: 'Helper', active: false }, at: T1 } }]);
    expect(state).toMatchObject({ name: 'Helper', active: false, latestVersion: 1, publishedVersion: 1 });
  });

  it('given actions listed, when the same list comes again (another array), then nothing is recorded; a new list is a new version', () => {
    const X = 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee';
    const Y = 'ffffffff-ffff-4fff-8fff-ffffffffffff';
    agent.given([created]).when({ type: 'UpdateAgent', companyId: C1, changes: { actionIds: [] }, now: T1 }).then([]);
    const state = agent
      .given([created])
      .when({ type: 'UpdateAgent', companyId: C1, changes: { actionIds: [X, Y] }, by: U1, now: T1 })
      .then([
        { type: 'AgentVersionSaved', data: { version: 2, basedOn: 1, config: { ...v1, actionIds: [X, Y] }, changed: ['actionIds'], by: U1, at: T1 } },
        { type: 'AgentVersionPublished', data: { version: 2, previousVersion: 1, config: { ...v1, actionIds: [X, Y] }, rollback: false, reason: null, by: U1, at: T1 } },
      ]);
    expect(agentDecider.decide({ type: 'UpdateAgent', companyId: C1, changes: { actionIds: [X, Y] }, now: T1 }, state)).toEqual([]);
    expect(agentDecider.decide({ type: 'UpdateAgent', companyId: C1, changes: { actionIds: [Y, X] }, now: T1 }, state)).toHaveLength(2);
  });

  it('an update that changes nothing records nothing', () => {
    agent.given([created]).when({ type: 'UpdateAgent', companyId: C1, changes: { name: 'Support bot' }, now: T1 }).then([]);
  });

  it('can set the model back to the company default (null)', () => {
    const withModel: AgentEvent = { type: 'AgentUpdated', data: { changes: { model: 'llama3.2' }, at: T1 } };
    const state = agent
      .given([created, withModel])
      .when({ type: 'UpdateAgent', companyId: C1, changes: { model: null }, now: T1 })
      .then([
        { type: 'AgentVersionSaved', data: { version: 2, basedOn: 1, config: { ...v1, model: null }, changed: ['model'], by: null, at: T1 } },
        { type: 'AgentVersionPublished', data: { version: 2, previousVersion: 1, config: { ...v1, model: null }, rollback: false, reason: null, by: null, at: T1 } },
      ]);
    expect(state).toMatchObject({ model: null });
  });

  it('deletes an agent', () => {
    const state = agent.given([created]).when({ type: 'DeleteAgent', companyId: C1, now: T1 }).then([deleted]);
    expect(state.status).toBe('deleted');
  });

  it("another company's agent is NOT_FOUND, like a missing or deleted one", () => {
    agent.given([created]).when({ type: 'UpdateAgent', companyId: C2, changes: { name: 'Mine now' }, now: T1 }).thenThrows('NOT_FOUND');
    agent.given([created]).when({ type: 'DeleteAgent', companyId: C2, now: T1 }).thenThrows('NOT_FOUND');
    agent.given([]).when({ type: 'DeleteAgent', companyId: C1, now: T1 }).thenThrows('NOT_FOUND');
    agent.given([created, deleted]).when({ type: 'UpdateAgent', companyId: C1, changes: { name: 'Back' }, now: T1 }).thenThrows('NOT_FOUND');
    agent.given([created, deleted]).when({ type: 'DeleteAgent', companyId: C1, now: T1 }).thenThrows('NOT_FOUND');
  });
});
