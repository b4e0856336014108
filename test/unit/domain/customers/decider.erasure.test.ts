import { describe, it } from 'vitest';
import { customerDecider, customerIdFor } from '../../../../src/domain/customers/decider.js';
import { type CustomerEvent } from '../../../../src/domain/customers/events.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(customerDecider);
const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const other = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0002';
const conversationId = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0009';
const customerId = customerIdFor(12, 'client-7');
const at = (s: number) => `2025-01-01T10:00:0${s}.000Z`;
const known: CustomerEvent = {
  type: 'CustomerProfileUpdated',
  data: { customerId, companyId: company, integrationId: 12, clientId: 'client-7', changes: { name: 'Ada', transport: 'telegram' }, at: at(0) },
};
const erase = (companyId = company, reason = 'ticket 4411') =>
  ({ type: 'EraseCustomer' as const, companyId, conversationIds: [conversationId], by: 'user:u1', reason, now: at(2) });
const erased: CustomerEvent = {
  type: 'CustomerErased',
  data: { customerId, companyId: company, conversationIds: [conversationId], by: 'user:u1', reason: 'ticket 4411', at: at(2) },
};

describe('customer decider: erasure', () => {
  it('given a known customer, erasing records who, why and the conversations to purge, and no personal data', () => {
    spec.given([known]).when(erase()).then([erased]);
  });

  it('given an erased customer, erasing again records nothing (idempotent)', () => {
    spec.given([known, erased]).when(erase()).then([]);
  });

  it('given an erased customer whose data was keyed again since (they wrote again), erasing again records it, for the same conversations', () => {
    spec
      .given([known, erased])
      .when({ ...erase(company, 'ticket 4412'), conversationIds: [], writtenSinceErasure: true })
      .then([{ type: 'CustomerErased', data: { ...erased.data, reason: 'ticket 4412' } }]);
  });

  it('an unknown customer, or another company’s, is not found; a blank reason is refused', () => {
    spec.given([]).when(erase()).thenThrows('NOT_FOUND');
    spec.given([known]).when(erase(other)).thenThrows('NOT_FOUND');
    spec.given([known]).when(erase(company, '  ')).thenThrows('VALIDATION_ERROR');
    spec.given([known]).when(erase(company, 'x'.repeat(201))).thenThrows('VALIDATION_ERROR');
  });

  it('an erased customer who writes again is recorded afresh, even with the same profile', () => {
    spec
      .given([known, erased])
      .when({ type: 'UpdateProfileFromChannel', customerId, companyId: company, integrationId: 12, clientId: 'client-7', profile: { name: 'Ada', transport: 'telegram' }, now: at(3) })
      .then([{ type: 'CustomerProfileUpdated', data: { ...known.data, at: at(3) } }]);
  });
});
