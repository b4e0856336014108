import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { customerIdFor } from '../../../src/domain/customers/customerId.js';
import { sha256 } from '../../../src/domain/sha256.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const nodeSha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('sha256 (the domain has no node:crypto)', () => {
  it('matches the FIPS 180-4 test vectors', () => {
    expect(hex(sha256(''))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hex(sha256('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hex(sha256('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'))).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
  });

  it('matches node:crypto on every length around the block boundaries, and on non-ASCII text', () => {
    for (let n = 0; n < 200; n++) {
      const text = 'x'.repeat(n);
      expect(hex(sha256(text)), `length ${n}`).toBe(nodeSha256(text));
    }
    for (const text of ['Ünïcödé ✓', '客户:12:42', '🙂'.repeat(40)]) expect(hex(sha256(text))).toBe(nodeSha256(text));
  });

  it('derives the same customer ids as before (node:crypto sha256, version-5 bits)', () => {
    for (const [integrationId, clientId] of [[12, 'client-7'], [1, 42], [99999, 'a-very-long-platform-client-id-'.repeat(8)]] as const) {
      const h = createHash('sha256').update(`customer:${integrationId}:${String(clientId)}`).digest();
      h[6] = (h[6]! & 0x0f) | 0x50;
      h[8] = (h[8]! & 0x3f) | 0x80;
      const x = h.subarray(0, 16).toString('hex');
      expect(customerIdFor(integrationId, clientId)).toBe(`${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`);
    }
  });
});
