import type { ConversationEvent } from '../domain/conversations/events.js';
import type { LlmMessage } from '../ports/llm.js';
import type { AgentProfile } from './replyDeps.js';

/** Turns of the conversation a prompt keeps before the question. */
export const HISTORY_MESSAGES = 20;

/** The text of a customer message among `events` ('' when it is not there). */
export function textOf(events: ConversationEvent[], messageId: string): string {
  const e = events.find((x) => x.type === 'MessageReceived' && x.data.messageId === messageId);
  return e?.type === 'MessageReceived' ? e.data.text : '';
}

/** System prompt, then the recent conversation as chat turns, ending with the unanswered customer messages. */
export function buildPrompt(agent: AgentProfile, events: ConversationEvent[], unanswered: string[]): LlmMessage[] {
  const turns: LlmMessage[] = [];
  for (const e of events) {
    if (e.type === 'MessageReceived' && !unanswered.includes(e.data.messageId)) turns.push({ role: 'user', content: e.data.text });
    else if (e.type === 'AgentReplied' || e.type === 'OperatorMessageSent' || e.type === 'OperatorMessageRecorded') turns.push({ role: 'assistant', content: e.data.text });
  }
  const pending = unanswered.map((id) => textOf(events, id)).filter(Boolean);
  return [
    { role: 'system', content: agent.systemPrompt },
    ...turns.slice(-HISTORY_MESSAGES).filter((t) => t.content !== ''),
    { role: 'user', content: pending.join('\n') },
  ];
}
