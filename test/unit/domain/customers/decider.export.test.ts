import { describe, it } from 'vitest';
import { customerDecider, customerIdFor } from '../../../../src/domain/customers/decider.js';
import { type CustomerEvent } from '../../../../src/domain/customers/events.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(customerDecider);
const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const other = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0002';
const customerId = customerIdFor(12, 'client-7');
const at = (s: number) => `2025-01-01T10:00:0${s}.000Z`;
const known: CustomerEvent = {
  type: 'CustomerProfileUpdated',
  data: { customerId, companyId: company, integrationId: 12, clientId: 'client-7', changes: { name: 'Ada' }, at: at(0) },
};
const erased: CustomerEvent = {
  type: 'CustomerErased',
  data: { customerId, companyId: company, conversationIds: [], by: 'user:u1', reason: 'ticket 1', at: at(1) },
};
const exportBy = (companyId = company) => ({ type: 'RecordExport' as const, companyId, by: 'user:u2', now: at(3) });

describe('customer decider: export audit', () => {
  it('given a known customer, an export records who and when, and nothing about the customer', () => {
    spec.given([known]).when(exportBy()).then([{ type: 'CustomerExported', data: { by: 'user:u2', at: at(3) } }]);
  });

  it('given an erased customer, the export (which holds nothing) is still recorded', () => {
    spec.given([known, erased]).when(exportBy()).then([{ type: 'CustomerExported', data: { by: 'user:u2', at: at(3) } }]);
  });

  it('an unknown customer, or another company’s, is not found', () => {
    spec.given([]).when(exportBy()).thenThrows('NOT_FOUND');
    spec.given([known]).when(exportBy(other)).thenThrows('NOT_FOUND');
  });

  it('an export changes nothing about the customer', () => {
    spec.given([known, { type: 'CustomerExported', data: { by: 'user:u2', at: at(3) } }]).when({ type: 'SetCustomerNote', companyId: company, note: 'hi', by: 'user:u1', now: at(4) }).then([{ type: 'CustomerNoteSet', data: { note: 'hi', by: 'user:u1', at: at(4) } }]);
  });
});
