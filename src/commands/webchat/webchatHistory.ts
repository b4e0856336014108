import { CSAT_WEBCHAT_QUESTION } from '../../domain/conversations/csat.js';
import { conversationDecider, conversationStream, pendingSurvey } from '../../domain/conversations/decider.js';
import type { ConversationEvent } from '../../domain/conversations/events.js';
import type { EventStore } from '../../ports/eventStore.js';
import { loadState, toDomainEvent } from '../handleCommand.js';

export interface WebchatHistoryItem {
  id: string;
  author: 'customer' | 'agent' | 'operator';
  text: string;
  createdAt: string;
  /** The widget's id of the visitor's own messages: it clears its outbox with them. */
  clientMessageId?: string;
}

/** At most this many of the newest messages go into `ready`; older ones stay in the dashboard. */
export const HISTORY_LIMIT = 200;

/**
 * The visitor-visible messages of a conversation, in order, read from its stream (strongly consistent: a
 * message acknowledged or replied to a moment ago is there). A conversation not started yet has none.
 */
export async function webchatHistory(eventStore: EventStore, conversationId: string, limit = HISTORY_LIMIT): Promise<WebchatHistoryItem[]> {
  const items: WebchatHistoryItem[] = [];
  for (const recorded of await eventStore.readStream(conversationStream(conversationId))) {
    const e = toDomainEvent<ConversationEvent>(recorded);
    switch (e.type) {
      case 'MessageReceived':
        items.push({
          id: e.data.messageId,
          author: 'customer',
          text: e.data.text,
          createdAt: e.data.at,
          ...(e.data.clientMessageId !== undefined ? { clientMessageId: e.data.clientMessageId } : {}),
        });
        break;
      case 'AgentReplied':
        items.push({ id: e.data.messageId, author: 'agent', text: e.data.text, createdAt: e.data.at });
        break;
      case 'OperatorMessageSent':
      case 'OperatorMessageRecorded':
        items.push({ id: e.data.messageId, author: 'operator', text: e.data.text, createdAt: e.data.at });
        break;
      default:
        break;
    }
  }
  return items.slice(-limit);
}

/** The survey the visitor has not answered yet (shown again when they come back), from the cached conversation state. */
export async function webchatPendingSurvey(eventStore: EventStore, conversationId: string): Promise<{ surveyId: string; question: string } | null> {
  const { state } = await loadState(eventStore, conversationStream(conversationId), conversationDecider);
  const survey = pendingSurvey(state);
  return survey?.via === 'webchat' ? { surveyId: survey.surveyId, question: CSAT_WEBCHAT_QUESTION } : null;
}
