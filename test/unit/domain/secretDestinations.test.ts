import { describe, expect, it } from 'vitest';
import { destinationOf, refuseSecretToNewDestination } from '../../../src/domain/secretDestinations.js';

describe('where a stored secret may go', () => {
  it('an address sends to its origin: scheme, host and port; a template’s placeholders do not change it', () => {
    expect(destinationOf('https://Shop.example:443/orders/{order_id}?x={y}')).toBe('https://shop.example');
    expect(destinationOf('http://shop.example:8080/v1')).toBe('http://shop.example:8080');
    expect(destinationOf(null)).toBeNull();
    expect(destinationOf('not an address')).toBeNull();
  });

  it('a kept secret may not follow an address to another origin; a given or removed one, the same origin or a cleared address may', () => {
    const refuse = (from: string | null, to: string | null | undefined, keeps = true) => () => refuseSecretToNewDestination('apiToken', 'token', from, to, keeps);
    expect(refuse('https://a.example/x', 'https://b.example/x')).toThrowError(expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^apiToken: .*another host/) }));
    expect(refuse('https://a.example/x', 'http://a.example/x')).toThrowError(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    expect(refuse(null, 'https://b.example/x')).toThrowError(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    expect(refuse('https://a.example/x', 'https://a.example/y')).not.toThrow();
    expect(refuse('https://a.example/x', 'https://b.example/x', false)).not.toThrow();
    expect(refuse('https://a.example/x', undefined)).not.toThrow();
    expect(refuse('https://a.example/x', null)).not.toThrow();
  });
});
