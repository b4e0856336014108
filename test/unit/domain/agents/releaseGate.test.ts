import { describe, expect, it } from 'vitest';
import { agentDecider, type AgentCommand } from '../../../../src/domain/agents/decider.js';
import { agentDefaults, type AgentConfig, type AgentEvent } from '../../../../src/domain/agents/events.js';
import type { ReleaseCheckOutcome, ReleaseGateInput } from '../../../../src/domain/agents/releaseGate.js';
import type { TestCaseBody } from '../../../../src/domain/agents/testCases/events.js';
import { DomainError } from '../../../../src/domain/errors.js';
import { specFor } from '../../../support/gwt.js';

/** Publishing a newer version through the release gate: given the agent's history, when published with the gate's facts. */

const A1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const CHECK = 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee';
const K1 = '11111111-aaaa-4aaa-8aaa-000000000001';
const K2 = '11111111-aaaa-4aaa-8aaa-000000000002';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const T2 = '2026-01-03T00:00:00.000Z';
const OWNER = 'user:11111111-1111-4111-8111-111111111111';

const agent = specFor(agentDecider);
const { active: _a, ...v1 } = agentDefaults;
const v2: AgentConfig = { ...v1, handoffMessage: 'V2 hands off.' };
const history: AgentEvent[] = [
  { type: 'AgentCreated', data: { agentId: A1, companyId: C1, name: 'Bot', ...agentDefaults, at: T0 } },
  { type: 'AgentVersionSaved', data: { version: 2, basedOn: 1, config: v2, changed: ['handoffMessage'], by: OWNER, at: T1 } },
];

const body = (name: string, required: boolean): TestCaseBody => ({ name, turns: ['Can I pay by cheque?'], expect: { handoff: true }, required });
const refund = { caseId: K1, ...body('Refunds', true) };
const tone = { caseId: K2, ...body('Tone', false) };
const check = (passed: Record<string, boolean>, more: Partial<ReleaseCheckOutcome> = {}): ReleaseCheckOutcome => ({
  releaseCheckId: CHECK,
  version: 2,
  finished: true,
  cases: [refund, tone],
  passed,
  ...more,
});
const publish = (gate: ReleaseGateInput, reason: string | null = null) =>
  ({ type: 'PublishAgentVersion', companyId: C1, version: 2, config: v2, reason, gate, by: OWNER, now: T2 }) as const;
const published = (checks: object | undefined, reason: string | null = null): AgentEvent => ({
  type: 'AgentVersionPublished',
  data: { version: 2, previousVersion: 1, config: v2, rollback: false, reason, ...(checks ? { checks } : {}), by: OWNER, at: T2 } as never,
});

function refusal(gate: ReleaseGateInput): DomainError {
  try {
    agentDecider.decide(publish(gate), agent.given(history).state);
  } catch (e) {
    return e as DomainError;
  }
  throw new Error('expected a refusal');
}

describe('release gate', () => {
  it('a check of the version with every required case passing publishes, recording the check', () => {
    agent
      .given(history)
      .when(publish({ cases: [refund, tone], check: check({ [K1]: true, [K2]: false }), overrideReason: null }))
      .then([published({ releaseCheckId: CHECK, failedCases: [], overridden: false, overrideReason: null })]);
  });

  it('a failing required case refuses the publish with RELEASE_CHECKS_FAILED naming the case; a failing optional case does not', () => {
    const error = refusal({ cases: [refund, tone], check: check({ [K1]: false, [K2]: false }), overrideReason: null });
    expect(error.code).toBe('RELEASE_CHECKS_FAILED');
    expect(error.message).toContain('"Refunds"');
    expect(error.details).toEqual({ releaseCheckId: CHECK, failedCases: [{ caseId: K1, name: 'Refunds' }] });
  });

  it('an owner’s override with a reason publishes despite failing cases, and records them with the reason', () => {
    agent
      .given(history)
      .when(publish({ cases: [refund, tone], check: check({ [K1]: false, [K2]: true }), overrideReason: ' Known false alarm ' }, 'Known false alarm'))
      .then([published({ releaseCheckId: CHECK, failedCases: [{ caseId: K1, name: 'Refunds' }], overridden: true, overrideReason: 'Known false alarm' }, 'Known false alarm')]);
    agent.given(history).when(publish({ cases: [refund], check: null, overrideReason: '  ' })).thenThrows('VALIDATION_ERROR');
  });

  it('required cases and no check, a check of another version, or cases changed since the check: RELEASE_CHECKS_REQUIRED', () => {
    expect(refusal({ cases: [refund], check: null, overrideReason: null }).code).toBe('RELEASE_CHECKS_REQUIRED');
    expect(refusal({ cases: [refund], check: check({ [K1]: true }, { version: 1 }), overrideReason: null }).code).toBe('RELEASE_CHECKS_REQUIRED');
    const edited = { ...refund, turns: ['Do you take cheques?'] };
    expect(refusal({ cases: [edited], check: check({ [K1]: true }), overrideReason: null }).message).toContain('"Refunds"');
  });

  it('a check still running: RELEASE_CHECKS_PENDING', () => {
    expect(refusal({ cases: [refund], check: check({}, { finished: false }), overrideReason: null }).code).toBe('RELEASE_CHECKS_PENDING');
  });

  it('without required cases nothing is gated; a required case removed since the check stops nothing', () => {
    agent.given(history).when(publish({ cases: [tone], check: null, overrideReason: null })).then([published(undefined)]);
    agent
      .given(history)
      .when(publish({ cases: [tone], check: check({ [K1]: false, [K2]: true }), overrideReason: null }))
      .then([published({ releaseCheckId: CHECK, failedCases: [], overridden: false, overrideReason: null })]);
  });

  it('a rollback is never gated', () => {
    const live: AgentEvent[] = [...history, { type: 'AgentVersionPublished', data: { version: 2, previousVersion: 1, config: v2, rollback: false, reason: null, by: OWNER, at: T1 } }];
    agent
      .given(live)
      .when({ type: 'PublishAgentVersion', companyId: C1, version: 1, config: v1, reason: 'Back', rollback: true, gate: { cases: [refund], check: null, overrideReason: null }, by: OWNER, now: T2 })
      .then([{ type: 'AgentVersionPublished', data: { version: 1, previousVersion: 2, config: v1, rollback: true, reason: 'Back', by: OWNER, at: T2 } }]);
  });

  describe('an older version that never went live is no rollback', () => {
    const v3: AgentConfig = { ...v1, handoffMessage: 'V3 hands off.' };
    // v2 failed its check and was never published; v3 passed and is live.
    const v3Live: AgentEvent[] = [
      ...history,
      { type: 'AgentVersionSaved', data: { version: 3, basedOn: 2, config: v3, changed: ['handoffMessage'], by: OWNER, at: T1 } },
      { type: 'AgentVersionPublished', data: { version: 3, previousVersion: 1, config: v3, rollback: false, reason: null, by: OWNER, at: T1 } },
    ];
    const failing = { cases: [refund, tone], check: check({ [K1]: false, [K2]: true }), overrideReason: null };
    const failedCases = [{ caseId: K1, name: 'Refunds' }];

    it('given v3 live and v2 never published, when v2 is asked for as a rollback, then CONFLICT; v1 (published before) rolls back', () => {
      agent.given(v3Live).when({ type: 'PublishAgentVersion', companyId: C1, version: 2, config: v2, reason: 'Back', rollback: true, by: OWNER, now: T2 }).thenThrows('CONFLICT');
      agent
        .given(v3Live)
        .when({ type: 'PublishAgentVersion', companyId: C1, version: 1, config: v1, reason: 'Back', rollback: true, by: OWNER, now: T2 })
        .then([{ type: 'AgentVersionPublished', data: { version: 1, previousVersion: 3, config: v1, rollback: true, reason: 'Back', by: OWNER, at: T2 } }]);
    });

    it('given v3 live and v2 never published, when v2 is published, then it passes the gate like a newer version: refused on failing cases, published with an override', () => {
      agent.given(v3Live).when({ ...publish(failing), reason: 'Back' }).thenThrows('RELEASE_CHECKS_FAILED');
      agent.given(v3Live).when({ ...publish({ cases: [refund], check: null, overrideReason: null }), reason: 'Back' }).thenThrows('RELEASE_CHECKS_REQUIRED');
      agent
        .given(v3Live)
        .when(publish({ ...failing, overrideReason: 'Rewriting the case' }))
        .then([
          {
            type: 'AgentVersionPublished',
            data: { version: 2, previousVersion: 3, config: v2, rollback: false, reason: null, checks: { releaseCheckId: CHECK, failedCases, overridden: true, overrideReason: 'Rewriting the case' }, by: OWNER, at: T2 },
          },
        ]);
    });

    it('given v3 live and v2 never published, when an experiment pits v3 against v2, then v2 passes the gate: refused on failing cases, started with an override and recorded on its arm', () => {
      const E1 = 'ffffffff-ffff-4fff-8fff-ffffffffffff';
      const start = (gate: ReleaseGateInput): Extract<AgentCommand, { type: 'StartAgentExperiment' }> => ({
          type: 'StartAgentExperiment',
          companyId: C1,
          experimentId: E1,
          arms: [
            { version: 3, share: 50, config: v3 },
            { version: 2, share: 50, config: v2 },
          ],
          gate,
          holdout: 0,
          confidenceLevel: 0.95,
          by: OWNER,
          now: T2,
        });
      agent.given(v3Live).when(start(failing)).thenThrows('RELEASE_CHECKS_FAILED');
      agent.given(v3Live).when(start({ cases: [refund], check: null, overrideReason: null })).thenThrows('RELEASE_CHECKS_REQUIRED');
      const [started] = agentDecider.decide(start({ ...failing, overrideReason: 'Measure it' }), agent.given(v3Live).state);
      expect(started?.type === 'AgentExperimentStarted' && started.data.arms).toEqual([
        { arm: 'a', version: 3, share: 50, config: v3 },
        { arm: 'b', version: 2, share: 50, config: v2, checks: { releaseCheckId: CHECK, failedCases, overridden: true, overrideReason: 'Measure it' } },
      ]);
    });

    it('given v2 was published once and v3 is live, when v2 is rolled back to, then it is not gated', () => {
      const rolledOver: AgentEvent[] = [
        ...history,
        { type: 'AgentVersionPublished', data: { version: 2, previousVersion: 1, config: v2, rollback: false, reason: null, by: OWNER, at: T1 } },
        { type: 'AgentVersionSaved', data: { version: 3, basedOn: 2, config: v3, changed: ['handoffMessage'], by: OWNER, at: T1 } },
        { type: 'AgentVersionPublished', data: { version: 3, previousVersion: 2, config: v3, rollback: false, reason: null, by: OWNER, at: T1 } },
      ];
      agent
        .given(rolledOver)
        .when({ type: 'PublishAgentVersion', companyId: C1, version: 2, config: v2, reason: 'Back', rollback: true, by: OWNER, now: T2 })
        .then([{ type: 'AgentVersionPublished', data: { version: 2, previousVersion: 3, config: v2, rollback: true, reason: 'Back', by: OWNER, at: T2 } }]);
    });
  });
});
