import { deterministicId } from '../hashing.js';

/** The conversation id is derived from (integration, customer), so a webhook finds its stream without a lookup. */
export const conversationIdFor = (integrationId: number, clientId: string | number) => deterministicId(`conversation:${integrationId}:${String(clientId)}`);
