import { describe, expect, it } from 'vitest';
import { customerDecider, normaliseTags, customerIdFor } from '../../../../src/domain/customers/decider.js';
import { type CustomerEvent } from '../../../../src/domain/customers/events.js';
import { profileOf } from '../../../../src/workers/commandReactors/customerProfiles.js';
import { classifyWebhookPayload } from '../../../../src/domain/platformWebhooks/payload.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(customerDecider);
const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const other = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0002';
const customerId = customerIdFor(12, 'client-7');
const at = (s: number) => `2025-01-01T10:00:0${s}.000Z`;

const fromChannel = (profile: Record<string, unknown>, now = at(1)) =>
  ({ type: 'UpdateProfileFromChannel', customerId, companyId: company, integrationId: 12, clientId: 'client-7', profile, now }) as const;
const known: CustomerEvent = {
  type: 'CustomerProfileUpdated',
  data: { customerId, companyId: company, integrationId: 12, clientId: 'client-7', changes: { name: 'Ada', transport: 'telegram', channelId: 3 }, at: at(0) },
};

describe('customer id', () => {
  it('is derived from (integration, platform client id): the same pair, the same customer; another integration, another customer', () => {
    expect(customerIdFor(12, 'client-7')).toBe(customerId);
    expect(customerIdFor(13, 'client-7')).not.toBe(customerId);
    expect(customerIdFor(12, 7)).toBe(customerIdFor(12, '7'));
    expect(customerId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('customer decider: profile from the channel', () => {
  it('given nothing, the first channel data names the customer', () => {
    spec.given([]).when(fromChannel({ name: ' Ada ', transport: 'telegram', channelId: 3 }, at(0))).then([known]);
  });

  it('given the same data again, nothing is recorded (no event per message)', () => {
    spec.given([known]).when(fromChannel({ name: 'Ada', transport: 'telegram', channelId: 3 })).then([]);
    spec.given([known]).when(fromChannel({ name: 'Ada' })).then([]);
  });

  it('given a new phone and name, only what changed is recorded', () => {
    spec
      .given([known])
      .when(fromChannel({ name: 'Ada L.', phone: '+47 555 0100', transport: 'telegram' }, at(2)))
      .then([
        {
          type: 'CustomerProfileUpdated',
          data: { customerId, companyId: company, integrationId: 12, clientId: 'client-7', changes: { name: 'Ada L.', phone: '+47 555 0100' }, at: at(2) },
        },
      ]);
  });

  it('blank values say nothing and never erase what is known', () => {
    spec.given([known]).when(fromChannel({ name: '   ', email: '' })).then([]);
  });

  it('over-long channel values are cut to the limit rather than refused', () => {
    const [event] = customerDecider.decide(fromChannel({ name: 'x'.repeat(5000) }), customerDecider.initialState);
    expect(event?.type === 'CustomerProfileUpdated' && event.data.changes.name).toHaveLength(200);
  });
});

describe('customer decider: note and tags by teammates', () => {
  it('a note is set with who and when, trimmed', () => {
    const state = spec
      .given([known])
      .when({ type: 'SetCustomerNote', companyId: company, note: '  VIP, prefers email  ', by: 'user:u1', now: at(3) })
      .then([{ type: 'CustomerNoteSet', data: { note: 'VIP, prefers email', by: 'user:u1', at: at(3) } }]);
    expect(state).toMatchObject({ note: 'VIP, prefers email', noteUpdatedBy: 'user:u1', noteUpdatedAt: at(3) });
  });

  it('the same note again records nothing', () => {
    const set: CustomerEvent = { type: 'CustomerNoteSet', data: { note: 'VIP', by: 'user:u1', at: at(3) } };
    spec.given([known, set]).when({ type: 'SetCustomerNote', companyId: company, note: 'VIP ', by: 'user:u2', now: at(4) }).then([]);
  });

  it('a note over 4000 characters is a validation error', () => {
    spec.given([known]).when({ type: 'SetCustomerNote', companyId: company, note: 'n'.repeat(4001), by: 'user:u1', now: at(3) }).thenThrows('VALIDATION_ERROR');
  });

  it('tags are trimmed, lower-cased and given once', () => {
    spec
      .given([known])
      .when({ type: 'SetCustomerTags', companyId: company, tags: [' VIP ', 'vip', 'Wholesale  Buyer', ''], by: 'user:u1', now: at(3) })
      .then([{ type: 'CustomerTagsSet', data: { tags: ['vip', 'wholesale buyer'], by: 'user:u1', at: at(3) } }]);
  });

  it('more than 20 tags, or a tag over 40 characters, is a validation error', () => {
    const many = Array.from({ length: 21 }, (_, i) => `t${i}`);
    spec.given([known]).when({ type: 'SetCustomerTags', companyId: company, tags: many, by: 'user:u1', now: at(3) }).thenThrows('VALIDATION_ERROR');
    spec.given([known]).when({ type: 'SetCustomerTags', companyId: company, tags: ['x'.repeat(41)], by: 'user:u1', now: at(3) }).thenThrows('VALIDATION_ERROR');
  });

  it("another company's customer, or an unknown one, is NOT_FOUND", () => {
    spec.given([known]).when({ type: 'SetCustomerNote', companyId: other, note: 'x', by: 'user:u9', now: at(3) }).thenThrows('NOT_FOUND');
    spec.given([]).when({ type: 'SetCustomerTags', companyId: company, tags: ['x'], by: 'user:u1', now: at(3) }).thenThrows('NOT_FOUND');
    spec.given([known]).when({ ...fromChannel({ name: 'Eve' }), companyId: other }).thenThrows('NOT_FOUND');
  });

  it('normaliseTags keeps the order given', () => {
    expect(normaliseTags(['B', 'a', 'b'])).toEqual(['b', 'a']);
  });
});

describe('client details a platform message carries', () => {
  it('name, phone and email come from the native client object; a non-string email is ignored, not refused', () => {
    const ok = classifyWebhookPayload({ text: 'hi', client_id: 7, channel_id: 1, transport: 'whatsapp', client: { id: 7, name: 'Ada', phone: 4755501, email: 'ada@example.com' } });
    expect(ok.kind).toBe('customer_message');
    if (ok.kind !== 'customer_message') return;
    expect(profileOf(ok.message.client as Record<string, unknown>)).toEqual({ name: 'Ada', phone: '4755501', email: 'ada@example.com' });
    const odd = classifyWebhookPayload({ text: 'hi', client_id: 7, channel_id: 1, transport: 'whatsapp', client: { email: { nested: true } } });
    expect(odd.kind).toBe('customer_message');
    if (odd.kind === 'customer_message') expect(odd.message.client).toEqual({});
  });
});
