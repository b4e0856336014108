import { requestCsat } from '../../commands/conversations/csat.js';
import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { defineReactor } from '../../processing/reactor.js';

/**
 * AiSessionClosed ──▶ RequestCsat: the satisfaction survey of the closed session, when its integration asks
 * for one. The survey's ids derive from the session, so a redelivered close asks nothing twice; a platform
 * question then goes out through the send worker like any reply (CsatRequested ──outbound-jobs──▶ SEND_MESSAGE).
 */
export const csatReactor = defineReactor(conversationEvents, {
  name: 'csat-requests',
  eventTypes: ['AiSessionClosed'],
  start: ({ commands }) =>
    async (event) => {
      if (!event.stream.startsWith('conversation-')) return;
      await requestCsat(commands, {
        conversationId: conversationIdOfStream(event.stream),
        sessionId: event.data.sessionId,
        ...(event.metadata.correlationId ? { correlationId: event.metadata.correlationId } : {}),
      });
    },
});
