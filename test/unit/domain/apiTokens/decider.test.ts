import { describe, expect, it } from 'vitest';
import { apiTokenDecider, apiTokenRole } from '../../../../src/domain/apiTokens/decider.js';
import { type ApiTokenEvent } from '../../../../src/domain/apiTokens/events.js';
import { specFor } from '../../../support/gwt.js';

const U1 = '11111111-1111-4111-8111-111111111111';
const U2 = '22222222-2222-4222-8222-222222222222';
const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const T0 = '2026-01-01T00:00:00.000Z';
const h = (c: string) => c.repeat(64);

describe('company API tokens', () => {
  const token = specFor(apiTokenDecider);
  const issued: ApiTokenEvent = {
    type: 'ApiTokenIssued',
    data: { tokenId: U2, companyId: C1, name: 'ci', prefix: 'mas_abcdefgh', secretHash: h('d'), createdAt: T0, createdBy: U1 },
  };
  it('records use at most once a minute', () => {
    token.given([issued]).when({ type: 'RecordApiTokenUse', now: '2026-01-01T00:00:10.000Z' }).then([{ type: 'ApiTokenUsed', data: { at: '2026-01-01T00:00:10.000Z' } }]);
    token.given([issued, { type: 'ApiTokenUsed', data: { at: '2026-01-01T00:00:10.000Z' } }]).when({ type: 'RecordApiTokenUse', now: '2026-01-01T00:00:30.000Z' }).then([]);
  });
  it("is revoked by its own company only; another company's revoke is NOT_FOUND", () => {
    token.given([issued]).when({ type: 'RevokeApiToken', companyId: C1, revokedBy: U1, now: T0 }).then([{ type: 'ApiTokenRevoked', data: { at: T0, revokedBy: U1 } }]);
    token.given([issued]).when({ type: 'RevokeApiToken', companyId: U1, revokedBy: U1, now: T0 }).thenThrows('NOT_FOUND');
  });
  it("acts with its creator's current role, never above admin; not at all once the creator is no longer a member", () => {
    expect(apiTokenRole('owner')).toBe('admin');
    expect(apiTokenRole('admin')).toBe('admin');
    expect(apiTokenRole('agent')).toBe('agent');
    expect(apiTokenRole(null)).toBeNull();
  });
});
