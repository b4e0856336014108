import { createHash } from 'node:crypto';

/**
 * A UUID-shaped id derived from a key (version 5 bits): the same key gives the same id, so a retried command
 * produces the same event id, and a read model can name the reply a decision will write before it is written.
 */
export function deterministicId(key: string): string {
  const h = createHash('sha256').update(key).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}
