import { describe, expect, it } from 'vitest';
import { agentDecider } from '../../../../src/domain/agents/decider.js';
import { agentDefaults, type AgentConfig, type AgentEvent } from '../../../../src/domain/agents/events.js';
import { specFor } from '../../../support/gwt.js';

const A1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const C2 = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const T2 = '2026-01-03T00:00:00.000Z';
const OWNER = 'user:11111111-1111-4111-8111-111111111111';

const agent = specFor(agentDecider);
const { active: _a, ...v1 } = agentDefaults;
const v2: AgentConfig = { ...v1, systemPrompt: 'Answer in one sentence.' };
const v3: AgentConfig = { ...v2, temperature: 0.9 };
const created: AgentEvent = { type: 'AgentCreated', data: { agentId: A1, companyId: C1, name: 'Bot', ...agentDefaults, at: T0 } };
const saved = (version: number, basedOn: number, config: AgentConfig, changed: string[], at = T1): AgentEvent => ({
  type: 'AgentVersionSaved',
  data: { version, basedOn, config, changed, by: OWNER, at },
});
const published = (version: number, previousVersion: number, config: AgentConfig, reason: string | null = null, at = T1): AgentEvent => ({
  type: 'AgentVersionPublished',
  data: { version, previousVersion, config, rollback: version < previousVersion, reason, by: OWNER, at },
});

describe('agent versions', () => {
  it('a new agent is version 1, published and the draft', () => {
    expect(agent.given([created]).state).toMatchObject({ latestVersion: 1, publishedVersion: 1, draftVersion: 1, draft: v1, systemPrompt: v1.systemPrompt });
  });

  it('an agent from before versions is version 1 with its current configuration', () => {
    const legacy: AgentEvent = { type: 'AgentUpdated', data: { changes: { systemPrompt: 'Old edit.', name: 'Renamed' }, at: T1 } };
    const state = agent.given([created, legacy]).state;
    expect(state).toMatchObject({ latestVersion: 1, publishedVersion: 1, systemPrompt: 'Old edit.', name: 'Renamed', draft: { ...v1, systemPrompt: 'Old edit.' } });
  });

  it('saving a draft records a new version from the draft; customers keep the published one', () => {
    const state = agent
      .given([created])
      .when({ type: 'SaveAgentDraft', companyId: C1, changes: { systemPrompt: v2.systemPrompt, temperature: v1.temperature }, by: OWNER, now: T1 })
      .then([saved(2, 1, v2, ['systemPrompt'])]);
    expect(state).toMatchObject({ latestVersion: 2, draftVersion: 2, publishedVersion: 1, systemPrompt: v1.systemPrompt, draft: v2 });
  });

  it('the next draft builds on the draft, not on the published version', () => {
    agent
      .given([created, saved(2, 1, v2, ['systemPrompt'])])
      .when({ type: 'SaveAgentDraft', companyId: C1, changes: { temperature: 0.9 }, by: OWNER, now: T2 })
      .then([saved(3, 2, v3, ['temperature'], T2)]);
  });

  it('a draft that changes nothing records nothing', () => {
    agent.given([created]).when({ type: 'SaveAgentDraft', companyId: C1, changes: { systemPrompt: v1.systemPrompt }, by: OWNER, now: T1 }).then([]);
  });

  it('publishing a version makes customers get it; publishing the published one records nothing', () => {
    const history = [created, saved(2, 1, v2, ['systemPrompt'])];
    const state = agent
      .given(history)
      .when({ type: 'PublishAgentVersion', companyId: C1, version: 2, config: v2, reason: null, by: OWNER, now: T2 })
      .then([published(2, 1, v2, null, T2)]);
    expect(state).toMatchObject({ publishedVersion: 2, draftVersion: 2, systemPrompt: v2.systemPrompt });
    agent.given([...history, published(2, 1, v2)]).when({ type: 'PublishAgentVersion', companyId: C1, version: 2, config: v2, reason: null, by: OWNER, now: T2 }).then([]);
  });

  it('a rollback republishes an older version and says who, when and why; the draft follows it', () => {
    const history = [created, saved(2, 1, v2, ['systemPrompt']), published(2, 1, v2), saved(3, 2, v3, ['temperature']), published(3, 2, v3)];
    const state = agent
      .given(history)
      .when({ type: 'PublishAgentVersion', companyId: C1, version: 1, config: v1, reason: ' Answers got worse ', by: OWNER, now: T2 })
      .then([published(1, 3, v1, 'Answers got worse', T2)]);
    expect(state).toMatchObject({ publishedVersion: 1, draftVersion: 1, latestVersion: 3, systemPrompt: v1.systemPrompt, temperature: v1.temperature, draft: v1 });
  });

  it('asked for as a rollback, a version that is not older than the published one is a CONFLICT', () => {
    const history = [created, saved(2, 1, v2, ['systemPrompt'])];
    agent.given(history).when({ type: 'PublishAgentVersion', companyId: C1, version: 2, config: v2, reason: 'Back', rollback: true, by: OWNER, now: T2 }).thenThrows('CONFLICT');
    agent.given(history).when({ type: 'PublishAgentVersion', companyId: C1, version: 1, config: v1, reason: 'Back', rollback: true, by: OWNER, now: T2 }).thenThrows('CONFLICT');
  });

  it('a rollback without a reason is refused', () => {
    const history = [created, saved(2, 1, v2, ['systemPrompt']), published(2, 1, v2)];
    agent.given(history).when({ type: 'PublishAgentVersion', companyId: C1, version: 1, config: v1, reason: null, by: OWNER, now: T2 }).thenThrows('VALIDATION_ERROR');
    agent.given(history).when({ type: 'PublishAgentVersion', companyId: C1, version: 1, config: v1, reason: '   ', by: OWNER, now: T2 }).thenThrows('VALIDATION_ERROR');
  });

  it('a version that does not exist, or another company’s agent, is NOT_FOUND', () => {
    agent.given([created]).when({ type: 'PublishAgentVersion', companyId: C1, version: 2, config: v2, reason: null, by: OWNER, now: T1 }).thenThrows('NOT_FOUND');
    agent.given([created]).when({ type: 'PublishAgentVersion', companyId: C1, version: 0, config: v1, reason: null, by: OWNER, now: T1 }).thenThrows('NOT_FOUND');
    agent.given([created, saved(2, 1, v2, ['systemPrompt'])]).when({ type: 'PublishAgentVersion', companyId: C2, version: 2, config: v2, reason: null, by: OWNER, now: T1 }).thenThrows('NOT_FOUND');
    agent.given([created]).when({ type: 'SaveAgentDraft', companyId: C2, changes: { temperature: 1 }, by: OWNER, now: T1 }).thenThrows('NOT_FOUND');
  });

  it('an edit of the live agent builds on the published version, not on an unpublished draft', () => {
    agent
      .given([created, saved(2, 1, v2, ['systemPrompt'])])
      .when({ type: 'UpdateAgent', companyId: C1, changes: { temperature: 1.5 }, by: OWNER, now: T2 })
      .then([saved(3, 1, { ...v1, temperature: 1.5 }, ['temperature'], T2), published(3, 1, { ...v1, temperature: 1.5 }, null, T2)]);
  });

  it('refuses a draft its events could not hold', () => {
    agent.given([created]).when({ type: 'SaveAgentDraft', companyId: C1, changes: { temperature: 3 }, by: OWNER, now: T1 }).thenThrows('VALIDATION_ERROR');
  });

  it('given a required case, a behaviour change through UpdateAgent is RELEASE_CHECKS_REQUIRED; the name still changes in place', () => {
    agent.given([created]).when({ type: 'UpdateAgent', companyId: C1, changes: { systemPrompt: 'Be brief.' }, releaseGated: true, by: OWNER, now: T1 }).thenThrows('RELEASE_CHECKS_REQUIRED');
    agent
      .given([created])
      .when({ type: 'UpdateAgent', companyId: C1, changes: { name: 'Ava' }, releaseGated: true, by: OWNER, now: T1 })
      .then([{ type: 'AgentUpdated', data: { changes: { name: 'Ava' }, at: T1 } }]);
  });
});
