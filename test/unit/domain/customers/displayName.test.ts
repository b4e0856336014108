import { describe, expect, it } from 'vitest';
import { customerIdFor } from '../../../../src/domain/customers/decider.js';
import { customerDisplayNameOf, generatedCustomerName } from '../../../../src/domain/customers/displayName.js';

describe('the customer display name', () => {
  it('is the same name for the same customer id, every time (pure, deterministic)', () => {
    const id = customerIdFor(3, 'visitor-1');
    expect(generatedCustomerName(id)).toBe(generatedCustomerName(id));
    expect(generatedCustomerName('4f2a9c1e-0b7d-4c3e-9a51-6d2f8e7b1c0a')).toBe(generatedCustomerName('4F2A9C1E-0B7D-4C3E-9A51-6D2F8E7B1C0A'));
  });

  it('reads as an adjective and an animal ("Amber Otter"), never a raw id', () => {
    expect(generatedCustomerName('00000000-0000-5000-8000-000000000000')).toBe('Amber Otter');
    for (let i = 0; i < 200; i++) {
      const id = customerIdFor(1, `client-${i}`);
      const name = generatedCustomerName(id);
      expect(name).toMatch(/^[A-Z][a-z]+ [A-Z][a-z]+$/);
      expect(name.toLowerCase()).not.toContain(id.slice(0, 4));
    }
  });

  it('tells customers apart: 200 customers get at least 180 different names', () => {
    const names = new Set(Array.from({ length: 200 }, (_, i) => generatedCustomerName(customerIdFor(1, `client-${i}`))));
    expect(names.size).toBeGreaterThanOrEqual(180);
  });

  it('an id without hex digits still gets a stable readable name', () => {
    expect(generatedCustomerName('xyz')).toMatch(/^[A-Z][a-z]+ [A-Z][a-z]+$/);
    expect(generatedCustomerName('xyz')).toBe(generatedCustomerName('xyz'));
  });

  it('the profile name wins when there is one (tidied); blank or missing falls back to the generated name', () => {
    const id = customerIdFor(9, 77);
    expect(customerDisplayNameOf(id, ' Ingrid\tBerg ')).toBe('Ingrid Berg');
    expect(customerDisplayNameOf(id, '')).toBe(generatedCustomerName(id));
    expect(customerDisplayNameOf(id, undefined)).toBe(generatedCustomerName(id));
  });
});
