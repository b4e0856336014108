import { describe, it } from 'vitest';
import { agentDefaults } from '../../../../src/domain/agents/events.js';
import { agentVersionsProjection } from '../../../../src/projections/agentVersions/agentVersionsProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const C = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const OWNER = 'user:11111111-1111-4111-8111-111111111111';
const at = (s: number) => `2026-01-01T10:00:0${s}.000Z`;
const s = `agent-${A}`;
const { active: _a, ...v1 } = agentDefaults;

describe('agentVersions projection', () => {
  const spec = projectionSpec(agentVersionsProjection);

  it('an agent from before versions lists one version: its current configuration', async () => {
    await spec
      .given([
        recorded(s, 'AgentCreated', { agentId: A, companyId: C, name: 'Bot', ...agentDefaults, at: at(0) }),
        recorded(s, 'AgentUpdated', { changes: { systemPrompt: 'Edited in place.', name: 'Renamed' }, at: at(1) }),
      ])
      .then({
        agentVersions: [{ id: `${A}:1`, agentId: A, companyId: C, version: 1, config: { ...v1, systemPrompt: 'Edited in place.' }, basedOn: null, changed: [], createdAt: at(0), createdBy: null }],
        agentPublications: [],
      });
  });

  it('lists every saved version and every publish, a rollback with its reason', async () => {
    const v2 = { ...v1, systemPrompt: 'Be brief.' };
    await spec
      .given([
        recorded(s, 'AgentCreated', { agentId: A, companyId: C, name: 'Bot', ...agentDefaults, at: at(0) }),
        recorded(s, 'AgentVersionSaved', { version: 2, basedOn: 1, config: v2, changed: ['systemPrompt'], by: OWNER, at: at(1) }),
        recorded(s, 'AgentVersionPublished', { version: 2, previousVersion: 1, config: v2, rollback: false, reason: null, by: OWNER, at: at(2) }),
        recorded(s, 'AgentVersionPublished', { version: 1, previousVersion: 2, config: v1, rollback: true, reason: 'Too terse', by: OWNER, at: at(3) }),
      ])
      .then({
        agentVersions: [
          { id: `${A}:1`, agentId: A, companyId: C, version: 1, config: v1, basedOn: null, changed: [], createdAt: at(0), createdBy: null },
          { id: `${A}:2`, agentId: A, companyId: C, version: 2, config: v2, basedOn: 1, changed: ['systemPrompt'], createdAt: at(1), createdBy: OWNER },
        ],
        agentPublications: [
          { id: `${A}:2`, agentId: A, companyId: C, seq: 2, version: 2, previousVersion: 1, rollback: false, reason: null, by: OWNER, at: at(2) },
          { id: `${A}:3`, agentId: A, companyId: C, seq: 3, version: 1, previousVersion: 2, rollback: true, reason: 'Too terse', by: OWNER, at: at(3) },
        ],
      });
  });

  it('a gated publish keeps what the gate recorded: the check, and an owner’s override with the failing cases and why', async () => {
    const v2 = { ...v1, handoffMessage: 'Wait.' };
    const checks = {
      releaseCheckId: 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee',
      failedCases: [{ caseId: '11111111-aaaa-4aaa-8aaa-000000000001', name: 'Refunds' }],
      overridden: true,
      overrideReason: 'Known false alarm',
    };
    await spec
      .given([
        recorded(s, 'AgentCreated', { agentId: A, companyId: C, name: 'Bot', ...agentDefaults, at: at(0) }),
        recorded(s, 'AgentVersionSaved', { version: 2, basedOn: 1, config: v2, changed: ['handoffMessage'], by: OWNER, at: at(1) }),
        recorded(s, 'AgentVersionPublished', { version: 2, previousVersion: 1, config: v2, rollback: false, reason: 'Known false alarm', checks, by: OWNER, at: at(2) }),
      ])
      .then({
        agentVersions: [
          { id: `${A}:1`, agentId: A, companyId: C, version: 1, config: v1, basedOn: null, changed: [], createdAt: at(0), createdBy: null },
          { id: `${A}:2`, agentId: A, companyId: C, version: 2, config: v2, basedOn: 1, changed: ['handoffMessage'], createdAt: at(1), createdBy: OWNER },
        ],
        agentPublications: [{ id: `${A}:2`, agentId: A, companyId: C, seq: 2, version: 2, previousVersion: 1, rollback: false, reason: 'Known false alarm', checks, by: OWNER, at: at(2) }],
      });
  });
});
