import { describe, expect, it } from 'vitest';
import { customerDisplayName, givenName } from '../../../../src/domain/conversations/state.js';

describe('customerDisplayName', () => {
  const visitor = { clientId: '4f2a9c1e-0b7d-4c3e-9a51-6d2f8e7b1c0a', channelId: null, transport: 'webchat' };
  it('names a web chat visitor "Visitor" plus the first four hex digits of their id, upper case', () => {
    expect(customerDisplayName('webchat', visitor)).toBe('Visitor 4F2A');
  });
  it('prefers a name the customer gave, tidied', () => {
    expect(customerDisplayName('webchat', { ...visitor, name: '  Anna\n Smith ' })).toBe('Anna Smith');
    expect(customerDisplayName('msgplatform', { clientId: 31337, channelId: 5, transport: 'whatsapp' }, 'Bob')).toBe('Bob');
  });
  it('falls back to the platform client id for platform customers; a blank name does not count', () => {
    expect(customerDisplayName('msgplatform', { clientId: 31337, channelId: 5, transport: 'whatsapp', name: '   ' })).toBe('Client 31337');
    expect(givenName(42)).toBeNull();
    expect(givenName('x'.repeat(300))).toHaveLength(120);
  });
});
