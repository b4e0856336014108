import { deterministicId } from '../ids.js';

/**
 * A customer is identified per company by (integration, platform client id), like its conversation, so the
 * channel side and the read models find the customer's stream without a lookup. UUID-shaped (version 5 bits),
 * the same derivation as the command side's deterministic ids.
 */
export function customerIdFor(integrationId: number, clientId: string | number): string {
  return deterministicId(`customer:${integrationId}:${String(clientId)}`);
}
