import type { ConversationEvent } from '../../domain/conversations/events.js';
import { conversationStream } from '../../domain/conversations/decider.js';
import { costMicros, type Pricing } from '../../domain/credits/decider.js';
import { REPLAY_LIMITS, type RecordedAnswer, type ReplayDraft } from '../../domain/replays/events.js';
import type { EventStore, RecordedEvent } from '../../ports/eventStore.js';
import { toDomainEvent } from '../handleCommand.js';

/**
 * Which customer turns of a conversation a replay answers again, what was recorded for each, and the events
 * each turn's prompt may see: those up to the turn's last customer message, never a later one.
 *
 * A turn is the customer messages one recorded reply answered together (`AgentReplied.inReplyTo`), or that an
 * operator answered, or that were marked unanswered, or that nothing answered yet. The conversation is read
 * once per replayed conversation, backwards from `upToRevision`, in pages, and at most MAX_EVENTS_BACK events:
 * the cost is bounded by the limits, never by the conversation's length.
 */
const PAGE = 128;
export const MAX_EVENTS_BACK = 2_048;
/** The prompt's history, as buildPrompt keeps it (the reply worker's HISTORY_MESSAGES). */
export const PROMPT_HISTORY_TURNS = 20;

export interface ReplayTurn {
  turn: number;
  messageIds: string[];
  customerText: string;
  customerAt: string;
  recorded: RecordedAnswer;
  /** Events up to and including the turn's last customer message (the prompt's history and the question). */
  history: ConversationEvent[];
}

export interface ConversationTail {
  /** The newest revision read (the conversation's revision at the time), -1 when it does not exist. */
  revision: bigint;
  turns: ReplayTurn[];
}

export async function readReplayTurns(
  store: EventStore,
  conversationId: string,
  options: { upToRevision?: bigint; maxTurns?: number } = {},
): Promise<ConversationTail> {
  const maxTurns = options.maxTurns ?? REPLAY_LIMITS.turnsPerConversation;
  const stream = conversationStream(conversationId);
  const newestFirst: RecordedEvent[] = [];
  let messages = 0;
  let before = options.upToRevision;
  while (newestFirst.length < MAX_EVENTS_BACK) {
    const page = await store.readStream(stream, { direction: 'backwards', maxCount: PAGE, ...(before !== undefined ? { fromRevision: before } : {}) });
    for (const e of page) {
      newestFirst.push(e);
      if (e.type === 'MessageReceived') messages++;
    }
    const oldest = page.at(-1);
    if (page.length < PAGE || !oldest || oldest.revision === 0n) break;
    // Enough customer messages for the turns, and as many again for the first turn's history.
    if (messages >= maxTurns + PROMPT_HISTORY_TURNS) break;
    before = oldest.revision - 1n;
  }
  const events = newestFirst.reverse();
  const revision = events.at(-1)?.revision ?? -1n;
  return { revision, turns: splitTurns(events).slice(-maxTurns).map((t, turn) => ({ ...t, turn })) };
}

type Pending = { messageId: string; text: string; at: string; index: number };

function splitTurns(recorded: RecordedEvent[]): Omit<ReplayTurn, 'turn'>[] {
  const events = recorded.map((r) => toDomainEvent<ConversationEvent>(r));
  const turns: (Omit<ReplayTurn, 'turn' | 'history'> & { last: number })[] = [];
  let pending: Pending[] = [];
  const close = (taken: Pending[], answer: RecordedAnswer) => {
    if (taken.length === 0) return;
    const ids = new Set(taken.map((p) => p.messageId));
    pending = pending.filter((p) => !ids.has(p.messageId));
    turns.push({
      messageIds: taken.map((p) => p.messageId),
      customerText: taken.map((p) => p.text).join('\n').slice(0, REPLAY_LIMITS.customerText),
      customerAt: taken.at(-1)!.at,
      recorded: answer,
      last: Math.max(...taken.map((p) => p.index)),
    });
  };
  events.forEach((e, index) => {
    switch (e.type) {
      case 'MessageReceived':
        pending.push({ messageId: e.data.messageId, text: e.data.text, at: e.data.at, index });
        return;
      case 'AgentReplied': {
        const d = e.data;
        close(
          pending.filter((p) => d.inReplyTo.includes(p.messageId)),
          {
            kind: 'agent',
            messageId: d.messageId,
            text: d.text.slice(0, REPLAY_LIMITS.recordedText),
            model: d.model,
            inputTokens: d.inputTokens,
            outputTokens: d.outputTokens,
            handoff: d.handoff,
            ...(d.provenance ? { provenance: d.provenance } : {}),
          },
        );
        return;
      }
      case 'MessagesUnanswered':
        close(
          pending.filter((p) => e.data.messageIds.includes(p.messageId)),
          { kind: 'unanswered', reason: e.data.reason },
        );
        return;
      case 'OperatorMessageSent':
      case 'OperatorMessageRecorded':
        close([...pending], { kind: 'operator', text: e.data.text.slice(0, REPLAY_LIMITS.recordedText) });
        return;
      default:
    }
  });
  close([...pending], { kind: 'none' });
  return turns
    .sort((a, b) => a.last - b.last)
    .map(({ last, ...t }) => ({ ...t, history: events.slice(0, last + 1) }));
}

/** The text of the turns a prompt keeps before the question (what buildPrompt sends, in characters). */
function promptChars(draft: ReplayDraft, turn: ReplayTurn): number {
  const own = new Set(turn.messageIds);
  const history: number[] = [];
  for (const e of turn.history) {
    if (e.type === 'MessageReceived' && !own.has(e.data.messageId)) history.push(e.data.text.length);
    else if (e.type === 'AgentReplied' || e.type === 'OperatorMessageSent' || e.type === 'OperatorMessageRecorded') history.push(e.data.text.length);
  }
  const kept = history.slice(-PROMPT_HISTORY_TURNS).reduce((a, b) => a + b, 0);
  return draft.systemPrompt.length + kept + turn.customerText.length;
}

/** Knowledge passages added to a prompt when the knowledge base is on: 5 passages of about this many tokens. */
const PASSAGE_TOKENS = 5 * 200;
/** Per message of the prompt (role, separators), as providers count it. */
const MESSAGE_OVERHEAD_TOKENS = 4 * (PROMPT_HISTORY_TURNS + 2);
/** An answer's length when nothing recorded says better. */
const DEFAULT_OUTPUT_TOKENS = 200;

export interface TurnEstimate {
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
}

/**
 * The tokens and price of answering one turn with the draft: the prompt's characters / 4 (how the service
 * counts tokens a provider does not report), passages when the knowledge base is on, and the recorded answer's
 * length as the likely output. Free (0) on the builtin provider.
 */
export function estimateTurn(draft: ReplayDraft, turn: ReplayTurn, llm: AnsweringLlm, pricing: Pricing): TurnEstimate {
  const outputTokens = turn.recorded.kind === 'agent' && turn.recorded.outputTokens > 0 ? turn.recorded.outputTokens : DEFAULT_OUTPUT_TOKENS;
  return estimateAnswer({ promptChars: promptChars(draft, turn), useKnowledgeBase: draft.useKnowledgeBase, outputTokens }, llm, pricing);
}

/** Who answers: the company's provider, and the model asked for (the agent's, else the company's). */
export type AnsweringLlm = { kind: 'builtin' | 'openai'; model: string };

/**
 * The tokens and price of one answer to a prompt of `promptChars` characters (what estimateTurn prices, and a
 * test case's turn): the characters / 4, passages when the knowledge base is on, `outputTokens` (default: an
 * answer's usual length) out. Free (0) on the builtin provider.
 */
export function estimateAnswer(prompt: { promptChars: number; useKnowledgeBase: boolean; outputTokens?: number }, llm: AnsweringLlm, pricing: Pricing): TurnEstimate {
  const inputTokens = Math.ceil(prompt.promptChars / 4) + MESSAGE_OVERHEAD_TOKENS + (prompt.useKnowledgeBase ? PASSAGE_TOKENS : 0);
  const outputTokens = prompt.outputTokens ?? DEFAULT_OUTPUT_TOKENS;
  const cost = llm.kind === 'builtin' ? 0 : costMicros(llm.model, { inputTokens, outputTokens }, pricing.table, pricing.defaultPrice);
  return { inputTokens, outputTokens, costMicros: cost };
}

/** An answer's characters when nothing says better (DEFAULT_OUTPUT_TOKENS, 4 characters a token). */
export const DEFAULT_ANSWER_CHARS = DEFAULT_OUTPUT_TOKENS * 4;
