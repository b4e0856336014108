import { createHash } from 'node:crypto';

/**
 * A customer is identified per company by (integration, platform client id), like its conversation, so the
 * channel side and the read models find the customer's stream without a lookup. UUID-shaped (version 5 bits),
 * the same derivation as the command side's deterministic ids.
 */
export function customerIdFor(integrationId: number, clientId: string | number): string {
  const h = createHash('sha256').update(`customer:${integrationId}:${String(clientId)}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}
