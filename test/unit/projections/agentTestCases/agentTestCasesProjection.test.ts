import { describe, it } from 'vitest';
import { agentTestCasesProjection } from '../../../../src/projections/agentTestCases/agentTestCasesProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const C = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const K1 = '11111111-1111-4111-8111-111111111111';
const K2 = '22222222-2222-4222-8222-222222222222';
const BY = 'user:33333333-3333-4333-8333-333333333333';
const at = (s: number) => `2026-01-01T10:00:0${s}.000Z`;
const s = `agenttests-${A}`;

describe('agentTestCases projection', () => {
  it('lists saved cases with their last edit; removed ones leave', async () => {
    await projectionSpec(agentTestCasesProjection)
      .given([
        recorded(s, 'AgentTestCaseSaved', { caseId: K1, agentId: A, companyId: C, name: 'Cheques', turns: ['Cheque?'], expect: { handoff: true }, required: true, by: BY, at: at(0) }),
        recorded(s, 'AgentTestCaseSaved', { caseId: K2, agentId: A, companyId: C, name: 'Gone', turns: ['Hi'], expect: {}, required: false, by: BY, at: at(1) }),
        recorded(s, 'AgentTestCaseSaved', { caseId: K1, agentId: A, companyId: C, name: 'Cheques', turns: ['Cheque?'], expect: { handoff: true, maxChars: 80 }, required: true, by: null, at: at(2) }),
        recorded(s, 'AgentTestCaseRemoved', { caseId: K2, by: BY, at: at(3) }),
      ])
      .then({
        agentTestCases: [{ id: K1, agentId: A, companyId: C, name: 'Cheques', turns: ['Cheque?'], expect: { handoff: true, maxChars: 80 }, required: true, createdAt: at(0), updatedAt: at(2), updatedBy: null }],
      });
  });
});
