import type { ReadStore } from '../../ports/readStore.js';
import { CONVERSATION_REFS, refId } from './conversationRefsProjection.js';

export interface ConversationRefLookup {
  /** Conversation of a platform request or dialog id learnt from earlier messages; null when none knows it. */
  (integrationId: number, ref: { requestId?: string | number; dialogId?: string | number }): Promise<string | null>;
}

/**
 * Looks a platform id up in the read model once it has caught up with everything stored before the call:
 * a lookup missed for want of waiting would drop a status event, so `waitForHead` fails instead and the
 * platform retries.
 */
export function conversationByPlatformRef(readStore: ReadStore, waitForHead: () => Promise<void>): ConversationRefLookup {
  return async (integrationId, ref) => {
    await waitForHead();
    for (const [kind, id] of [
      ['request', ref.requestId],
      ['dialog', ref.dialogId],
    ] as const) {
      if (id === undefined) continue;
      const doc = await readStore.get<{ id: string; conversationId: string }>(CONVERSATION_REFS, refId(integrationId, kind, id));
      if (doc) return doc.conversationId;
    }
    return null;
  };
}
