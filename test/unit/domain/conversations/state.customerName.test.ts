import { describe, expect, it } from 'vitest';
import { customerDisplayName, givenName } from '../../../../src/domain/conversations/state.js';
import { customerIdFor } from '../../../../src/domain/customers/decider.js';
import { generatedCustomerName } from '../../../../src/domain/customers/displayName.js';

describe('customerDisplayName (a conversation\'s customer)', () => {
  const visitor = { clientId: '4f2a9c1e-0b7d-4c3e-9a51-6d2f8e7b1c0a', channelId: null, transport: 'webchat' };
  it('names a customer without a name by the generated name of their customer id (integration + client id), never the raw id', () => {
    const name = customerDisplayName(7, visitor);
    expect(name).toBe(generatedCustomerName(customerIdFor(7, visitor.clientId)));
    expect(name).toMatch(/^[A-Z][a-z]+ [A-Z][a-z]+$/);
    expect(name).not.toContain('4f2a');
    expect(customerDisplayName(7, { clientId: 31337 })).not.toContain('31337');
    expect(customerDisplayName(7, { clientId: 'test-bae52445-0000' })).not.toMatch(/test-|bae5/);
  });
  it('prefers a name the customer gave, tidied', () => {
    expect(customerDisplayName(7, { ...visitor, name: '  Anna\n Smith ' })).toBe('Anna Smith');
    expect(customerDisplayName(7, { clientId: 31337 }, 'Bob')).toBe('Bob');
  });
  it('a blank name does not count; given names are cut to 120 characters', () => {
    expect(customerDisplayName(7, { clientId: 31337, name: '   ' })).toBe(customerDisplayName(7, { clientId: 31337 }));
    expect(givenName(42)).toBeNull();
    expect(givenName('x'.repeat(300))).toHaveLength(120);
  });
});
