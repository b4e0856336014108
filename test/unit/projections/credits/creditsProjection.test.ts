import { describe, it } from 'vitest';
import { creditsProjection } from '../../../../src/projections/credits/creditsProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const conversation = '6f1c7d2e-8a1b-4c3d-9e4f-5a6b7c8d0001';
const m = (n: number) => `aaaaaaaa-0000-4000-8000-00000000000${n}`;
const at = (s: number) => `2025-01-01T10:00:0${s}.000Z`;

describe('credits projection', () => {
  const spec = projectionSpec(creditsProjection);
  const credits = `credits-${company}`;

  it('grants and consumption move the balance, each with a ledger entry', async () => {
    const grant = 'cccccccc-0000-4000-8000-000000000001';
    const charge = 'cccccccc-0000-4000-8000-000000000002';
    await spec
      .given([
        recorded(credits, 'CreditsGranted', { amountMicros: 5_000_000, reason: 'sign-up credits', grantedBy: null, at: at(0) }, { id: grant }),
        recorded(credits, 'CreditsConsumed', { amountMicros: 1_250, model: 'gpt-4o-mini', inputTokens: 1000, outputTokens: 200, conversationId: conversation, replyId: m(2), at: at(1) }, { id: charge }),
      ])
      .then({
        creditBalances: [{ id: company, balanceMicros: 4_998_750 }],
        creditLedger: [
          { id: grant, companyId: company, at: at(0), deltaMicros: 5_000_000, reason: 'sign-up credits', conversationId: null },
          { id: charge, companyId: company, at: at(1), deltaMicros: -1_250, reason: 'AI reply (gpt-4o-mini, 1000+200 tokens)', conversationId: conversation },
        ],
      });
  });
});
