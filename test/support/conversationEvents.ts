import { recorded } from './projectionSpec.js';

/** Message ids 1–9 and times of second 0–9 of one minute, so a test reads as "message 2 at second 3". */
export const m = (n: number) => `aaaaaaaa-0000-4000-8000-00000000000${n}`;
export const at = (s: number) => `2025-01-01T10:00:0${s}.000Z`;

/**
 * The recorded events of one platform conversation, for projection specs: its start (at second 0), AI sessions
 * opening, and customer messages. Ids and the customer default to the ones most specs share.
 */
export function conversationEvents(options: { company?: string; conversation?: string; stageId?: string | null; customer?: Record<string, unknown> } = {}) {
  const company = options.company ?? '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
  const conversation = options.conversation ?? '6f1c7d2e-8a1b-4c3d-9e4f-5a6b7c8d0001';
  const stream = `conversation-${conversation}`;
  return {
    company,
    conversation,
    stream,
    started: recorded(stream, 'ConversationStarted', {
      conversationId: conversation,
      companyId: company,
      integrationId: 12,
      connectorType: 'msgplatform',
      customer: options.customer ?? { clientId: 'client-7', channelId: 3, transport: 'telegram' },
      stageId: options.stageId ?? null,
      at: at(0),
    }),
    opened: (sessionId: string) => recorded(stream, 'AiSessionOpened', { sessionId, at: at(0) }),
    received: (n: number, s: number, platform: { requestId?: number; dialogId?: string } = {}) =>
      recorded(stream, 'MessageReceived', { messageId: m(n), dedupeKey: `k${n}`, dedupeUntil: null, text: `hello ${n}`, platform, at: at(s) }),
  };
}
