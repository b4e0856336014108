import { describe, it } from 'vitest';
import { actionsProjection } from '../../../../src/projections/actions/actionsProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const at = (s: number) => `2025-01-01T10:00:0${s}.000Z`;
const a = (n: number) => `cccccccc-0000-4000-8000-00000000000${n}`;
const stream = `actions-${company}`;

const fields = {
  name: 'lookup_order',
  description: 'Finds an order',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  identity: {},
  method: 'GET',
  urlTemplate: 'https://shop.example/orders/{order_id}',
  timeoutMs: 10_000,
  responseFields: ['status'],
  maxResponseChars: 2000,
  mode: 'auto',
  sampleResponse: { status: 'shipped', $weird: { 'a.b': 1 } },
  approverRoles: null,
  holdingReply: 'Hold on',
  approvalTimeoutMinutes: 60,
  active: true,
};

describe('actions projection', () => {
  const spec = projectionSpec(actionsProjection);

  it('given actions created, edited and deleted, then the list holds the live ones, header names without values and the sample as JSON text', async () => {
    await spec
      .given([
        recorded(stream, 'ActionCreated', { ...fields, headers: [{ name: 'X-Key', sealedValue: 'v1:sealed' }], actionId: a(1), companyId: company, by: 'user:u1', at: at(0) }),
        recorded(stream, 'ActionCreated', { ...fields, name: 'other', headers: [], actionId: a(2), companyId: company, by: 'user:u1', at: at(1) }),
        recorded(stream, 'ActionUpdated', { actionId: a(1), changes: { description: 'Finds an order by number', headers: [{ name: 'X-Key', sealedValue: 'v1:b' }, { name: 'X-Two', sealedValue: 'v1:c' }] }, by: 'user:u2', at: at(2) }),
        recorded(stream, 'ActionDeleted', { actionId: a(2), by: 'user:u1', at: at(3) }),
      ])
      .then({
        actions: [
          {
            ...fields,
            sampleResponse: undefined,
            id: a(1),
            companyId: company,
            description: 'Finds an order by number',
            headerNames: ['X-Key', 'X-Two'],
            sampleResponseJson: JSON.stringify(fields.sampleResponse),
            createdAt: at(0),
            updatedAt: at(2),
          },
        ].map(({ sampleResponse: _s, ...doc }) => doc),
      });
  });
});
