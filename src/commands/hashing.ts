import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const sha256Hex = (value: string | Buffer) => createHash('sha256').update(value).digest('hex');

/** 256 bits of randomness, URL-safe: refresh tokens and API token secrets. */
export const randomSecret = () => randomBytes(32).toString('base64url');

export function constantTimeEqualHex(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && ba.length > 0 && timingSafeEqual(ba, bb);
}

/** UUID-shaped id derived from a key, so a retried command produces the same event id (the domain's derivation). */
export { deterministicId } from '../domain/ids.js';
