import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { visitorVerifiedNotice } from '../../ports/webchatPush.js';
import { webchatSubject } from './replyJobs.js';
import { defineReactor } from '../../processing/reactor.js';

/**
 * CustomerIdentityVerified ──▶ broadcast on the conversation's web chat subject: every instance cuts the sockets
 * of that conversation not signed as that user (a tab that joined before the visitor signed in elsewhere), at
 * once rather than at the next push. Repeating it is harmless: those sockets are gone.
 */
export const visitorVerifiedNoticesReactor = defineReactor(conversationEvents, {
  name: 'visitor-verified-notices',
  eventTypes: ['CustomerIdentityVerified'],
  start: ({ bus }) =>
    (event) => bus.broadcast(webchatSubject(conversationIdOfStream(event.stream)), visitorVerifiedNotice(event.data.userId)),
});
