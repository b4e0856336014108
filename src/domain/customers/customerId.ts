import { sha256 } from '../sha256.js';

/**
 * A customer is identified per company by (integration, platform client id), like its conversation, so the
 * channel side and the read models find the customer's stream without a lookup. UUID-shaped (version 5 bits),
 * the same derivation as the command side's deterministic ids.
 */
export function customerIdFor(integrationId: number, clientId: string | number): string {
  const h = sha256(`customer:${integrationId}:${String(clientId)}`);
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = Array.from(h.subarray(0, 16), (b) => b.toString(16).padStart(2, '0')).join('');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}
