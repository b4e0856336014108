import { describe, it } from 'vitest';
import { apiTokensProjection } from '../../../../src/projections/apiTokens/apiTokensProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const creator = '11111111-1111-4111-8111-111111111111';
const remover = '22222222-2222-4222-8222-222222222222';
const tokenId = '6f1c7d2e-8a1b-4c3d-9e4f-5a6b7c8d0001';
const at = (s: number) => `2025-01-01T10:00:0${s}.000Z`;

describe('API tokens projection', () => {
  const spec = projectionSpec(apiTokensProjection);
  const stream = `apitoken-${tokenId}`;
  const issued = recorded(stream, 'ApiTokenIssued', { tokenId, companyId: company, name: 'CI', prefix: 'mas_6f1c7d2e', secretHash: 'a'.repeat(64), createdAt: at(0), createdBy: creator });

  it('given a token issued by a teammate, then the list names its creator (and never its hash)', async () => {
    await spec.given([issued]).then({
      apiTokens: [{ id: tokenId, companyId: company, name: 'CI', prefix: 'mas_6f1c7d2e', createdAt: at(0), lastUsedAt: null, revoked: false, createdBy: creator }],
    });
  });

  it('given it was used and then revoked, then it is marked revoked with its last use', async () => {
    await spec
      .given([issued, recorded(stream, 'ApiTokenUsed', { at: at(1) }), recorded(stream, 'ApiTokenRevoked', { at: at(2), revokedBy: remover })])
      .then({
        apiTokens: [{ id: tokenId, companyId: company, name: 'CI', prefix: 'mas_6f1c7d2e', createdAt: at(0), lastUsedAt: at(1), revoked: true, createdBy: creator }],
      });
  });
});
