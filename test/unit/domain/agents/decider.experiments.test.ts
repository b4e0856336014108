import { describe, expect, it } from 'vitest';
import { agentDecider, type AgentCommand } from '../../../../src/domain/agents/decider.js';
import { agentDefaults, type AgentConfig, type AgentEvent } from '../../../../src/domain/agents/events.js';
import { specFor } from '../../../support/gwt.js';

const A1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const C2 = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';
const X1 = 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee';
const X2 = 'ffffffff-ffff-4fff-8fff-ffffffffffff';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const T2 = '2026-01-03T00:00:00.000Z';
const OWNER = 'user:11111111-1111-4111-8111-111111111111';

const agent = specFor(agentDecider);
const { active: _a, ...v1 } = agentDefaults;
const v2: AgentConfig = { ...v1, systemPrompt: 'Answer in one sentence.' };
const created: AgentEvent = { type: 'AgentCreated', data: { agentId: A1, companyId: C1, name: 'Bot', ...agentDefaults, at: T0 } };
const savedV2: AgentEvent = { type: 'AgentVersionSaved', data: { version: 2, basedOn: 1, config: v2, changed: ['systemPrompt'], by: OWNER, at: T0 } };

const start = (over: Partial<Extract<AgentCommand, { type: 'StartAgentExperiment' }>> = {}): AgentCommand => ({
  type: 'StartAgentExperiment',
  companyId: C1,
  experimentId: X1,
  arms: [
    { version: 1, share: 90, config: v1 },
    { version: 2, share: 10, config: v2 },
  ],
  holdout: 5,
  confidenceLevel: 0.95,
  by: OWNER,
  now: T1,
  ...over,
});
const started: AgentEvent = {
  type: 'AgentExperimentStarted',
  data: {
    experimentId: X1,
    arms: [
      { arm: 'a', version: 1, share: 90, config: v1 },
      { arm: 'b', version: 2, share: 10, config: v2 },
    ],
    holdout: 5,
    confidenceLevel: 0.95,
    by: OWNER,
    at: T1,
  },
};
const end = (winner: number, over: Partial<Extract<AgentCommand, { type: 'EndAgentExperiment' }>> = {}): AgentCommand => ({
  type: 'EndAgentExperiment',
  companyId: C1,
  experimentId: X1,
  winner,
  reason: 'B resolves more',
  by: OWNER,
  now: T2,
  ...over,
});

describe('agent experiments', () => {
  it('given two versions, starting a 90/10 canary with a 5 % holdout records both arms with their configurations; the state carries it', () => {
    const state = agent.given([created, savedV2]).when(start()).then([started]);
    expect(state).toMatchObject({ publishedVersion: 1, experiment: { experimentId: X1, holdout: 5, startedAt: T1, arms: [{ arm: 'a', version: 1 }, { arm: 'b', version: 2 }] } });
  });

  it('refuses a second experiment while one runs (CONFLICT), an unknown version (NOT_FOUND), the same version twice or shares not adding to 100 (VALIDATION_ERROR)', () => {
    agent.given([created, savedV2, started]).when(start({ experimentId: X2 })).thenThrows('CONFLICT');
    agent.given([created, savedV2]).when(start({ arms: [{ version: 1, share: 50, config: v1 }, { version: 7, share: 50, config: v1 }] })).thenThrows('NOT_FOUND');
    agent.given([created, savedV2]).when(start({ arms: [{ version: 2, share: 50, config: v2 }, { version: 2, share: 50, config: v2 }] })).thenThrows('VALIDATION_ERROR');
    agent.given([created, savedV2]).when(start({ arms: [{ version: 1, share: 60, config: v1 }, { version: 2, share: 60, config: v2 }] })).thenThrows('VALIDATION_ERROR');
    agent.given([created, savedV2]).when(start({ holdout: 51 })).thenThrows('VALIDATION_ERROR');
    agent.given([created, savedV2]).when(start({ confidenceLevel: 0.5 })).thenThrows('VALIDATION_ERROR');
    agent.given([created, savedV2]).when(start({ companyId: C2 })).thenThrows('NOT_FOUND');
  });

  it('while it runs, publishing, rolling back and live behaviour edits are refused (CONFLICT); a name change and drafts are not', () => {
    const running = agent.given([created, savedV2, started]);
    running.when({ type: 'PublishAgentVersion', companyId: C1, version: 2, config: v2, reason: null, by: OWNER, now: T2 }).thenThrows('CONFLICT');
    running.when({ type: 'UpdateAgent', companyId: C1, changes: { temperature: 1 }, by: OWNER, now: T2 }).thenThrows('CONFLICT');
    running.when({ type: 'UpdateAgent', companyId: C1, changes: { name: 'Bot 2' }, by: OWNER, now: T2 }).then([{ type: 'AgentUpdated', data: { changes: { name: 'Bot 2' }, at: T2 } }]);
    running.when({ type: 'SaveAgentDraft', companyId: C1, changes: { temperature: 1 }, by: OWNER, now: T2 }).then([
      { type: 'AgentVersionSaved', data: { version: 3, basedOn: 2, config: { ...v2, temperature: 1 }, changed: ['temperature'], by: OWNER, at: T2 } },
    ]);
  });

  it('ending with the winner publishes it like any publish (who, when, why) and stops the experiment; ending it again records nothing', () => {
    const state = agent
      .given([created, savedV2, started])
      .when(end(2))
      .then([
        { type: 'AgentExperimentEnded', data: { experimentId: X1, winner: 2, winnerArm: 'b', reason: 'B resolves more', by: OWNER, at: T2 } },
        { type: 'AgentVersionPublished', data: { version: 2, previousVersion: 1, config: v2, rollback: false, reason: 'B resolves more', by: OWNER, at: T2 } },
      ]);
    expect(state).toMatchObject({ publishedVersion: 2, systemPrompt: v2.systemPrompt, lastExperimentId: X1 });
    expect(state).not.toHaveProperty('experiment');
    const ended = [created, savedV2, started, { type: 'AgentExperimentEnded', data: { experimentId: X1, winner: 2, winnerArm: 'b', reason: 'B resolves more', by: OWNER, at: T2 } } as AgentEvent];
    agent.given(ended).when(end(2)).then([]);
  });

  it('a winner that is already published ends the experiment without a new publication', () => {
    agent.given([created, savedV2, started]).when(end(1, { reason: 'No better' })).then([
      { type: 'AgentExperimentEnded', data: { experimentId: X1, winner: 1, winnerArm: 'a', reason: 'No better', by: OWNER, at: T2 } },
    ]);
  });

  it('refuses a winner outside the experiment or no reason (VALIDATION_ERROR), and an unknown experiment (NOT_FOUND)', () => {
    agent.given([created, savedV2, started]).when(end(3)).thenThrows('VALIDATION_ERROR');
    agent.given([created, savedV2, started]).when(end(2, { reason: '  ' })).thenThrows('VALIDATION_ERROR');
    agent.given([created, savedV2, started]).when(end(2, { experimentId: X2 })).thenThrows('NOT_FOUND');
    agent.given([created, savedV2]).when(end(2)).thenThrows('NOT_FOUND');
  });

  it('given a required case, an arm newer than the published version passes the gate; its checks go on the winner’s publication', () => {
    const K = '12121212-1212-4121-8121-121212121212';
    const R = '34343434-3434-4343-8343-343434343434';
    const cases = [{ caseId: K, name: 'Cheque', turns: ['Cheque?'], expect: { handoff: true }, required: true }];
    const passedCheck = { releaseCheckId: R, version: 2, finished: true, cases, passed: { [K]: true } };
    agent.given([created, savedV2]).when(start({ gate: { cases, check: null, overrideReason: null } })).thenThrows('RELEASE_CHECKS_REQUIRED');
    agent.given([created, savedV2]).when(start({ gate: { cases, check: { ...passedCheck, passed: { [K]: false } }, overrideReason: null } })).thenThrows('RELEASE_CHECKS_FAILED');
    const checks = { releaseCheckId: R, failedCases: [], overridden: false, overrideReason: null };
    const [a, b] = (started.data as Extract<AgentEvent, { type: 'AgentExperimentStarted' }>['data']).arms;
    const gated: AgentEvent = { type: 'AgentExperimentStarted', data: { ...(started.data as Extract<AgentEvent, { type: 'AgentExperimentStarted' }>['data']), arms: [a, { ...b, checks }] } };
    agent.given([created, savedV2]).when(start({ gate: { cases, check: passedCheck, overrideReason: null } })).then([gated]);
    agent
      .given([created, savedV2, gated])
      .when(end(2))
      .then([
        { type: 'AgentExperimentEnded', data: { experimentId: X1, winner: 2, winnerArm: 'b', reason: 'B resolves more', by: OWNER, at: T2 } },
        { type: 'AgentVersionPublished', data: { version: 2, previousVersion: 1, config: v2, rollback: false, reason: 'B resolves more', checks, by: OWNER, at: T2 } },
      ]);
  });
});
