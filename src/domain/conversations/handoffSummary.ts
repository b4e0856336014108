import { compilePattern } from '../linearPattern.js';
import { HANDOFF_SUMMARY_LIMITS, type ConversationEvent, type HandoffSummary } from './events.js';
import type { Handoff } from './state.js';

/**
 * The summary the person taking over a handoff reads: what the customer wants, what the AI tried, the sources it
 * used and why it handed off. `sources` and `why` are facts of the events; `wants` and `tried` are written by the
 * company's model when it has one, else extracted here (deterministic: the same events give the same summary).
 */

/** Customer messages quoted in an extracted `wants` (the newest ones). */
const WANTS_MESSAGES = 3;
/** Turns of the conversation the model reads to write a summary. */
export const SUMMARY_TURNS = 20;
/** Characters of one message in the model's transcript. */
const TRANSCRIPT_MESSAGE_CHARS = 500;

const clip = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
};

type Reply = Extract<ConversationEvent, { type: 'AgentReplied' }>;
const isAnswer = (e: ConversationEvent): e is Reply => e.type === 'AgentReplied' && !e.data.handoff && !e.data.aiFailed;

/** Why the conversation was handed to people, in plain words. */
export function handoffWhy(handoff: Handoff): string {
  const detail = handoff.detail ? clip(handoff.detail, HANDOFF_SUMMARY_LIMITS.why - 60) : null;
  switch (handoff.reason) {
    case 'agent_handoff':
      return detail ? `The AI handed off: ${detail}` : 'The AI handed off: it had no answer it was sure enough of';
    case 'no_confident_answer':
      return 'The AI had no confident answer: the knowledge base did not cover the question well enough';
    case 'ai_unanswered':
      return `The AI could not answer: ${detail ?? 'the reason was not recorded'}`;
    case 'customer_request':
      return 'The customer asked for a person';
    case 'dialog_transferred':
      return 'The messaging platform transferred the dialog to its operators';
    case 'experiment_holdout':
      return 'The conversation is in an experiment’s holdout: people answer it, not the AI';
  }
}

/** The knowledge-base documents the AI's replies in these events drew from, first use first, each once. */
export function sourcesUsed(events: readonly ConversationEvent[]): HandoffSummary['sources'] {
  const seen = new Map<string, string>();
  for (const e of events) {
    if (e.type !== 'AgentReplied') continue;
    for (const s of e.data.provenance?.sources ?? []) if (!seen.has(s.documentId)) seen.set(s.documentId, clip(s.title, HANDOFF_SUMMARY_LIMITS.title));
  }
  return [...seen].slice(0, HANDOFF_SUMMARY_LIMITS.sources).map(([documentId, title]) => ({ documentId, title }));
}

/** The summary taken from the messages alone: the builtin provider's, and the fallback when the model fails. */
export function extractiveSummary(events: readonly ConversationEvent[], handoff: Handoff): HandoffSummary {
  const asked = events.flatMap((e) => (e.type === 'MessageReceived' && e.data.text.trim() ? [e.data.text] : [])).slice(-WANTS_MESSAGES);
  const answers = events.filter(isAnswer);
  const lastAnswer = answers.at(-1);
  const failed = events.some((e) => e.type === 'AgentReplied' && e.data.aiFailed);
  const tried = lastAnswer
    ? `The AI answered ${answers.length === 1 ? 'once' : `${answers.length} times`}, last: “${clip(lastAnswer.data.text, HANDOFF_SUMMARY_LIMITS.text - 60)}”`
    : failed
      ? 'The AI could not answer; the customer got the handoff message'
      : 'The AI did not answer; the customer got the handoff message';
  return {
    wants: asked.length ? clip(asked.map((t) => `“${clip(t, 250)}”`).join(' '), HANDOFF_SUMMARY_LIMITS.text) : 'The customer has not written yet',
    tried: clip(tried, HANDOFF_SUMMARY_LIMITS.text),
    sources: sourcesUsed(events),
    why: handoffWhy(handoff),
  };
}

/** What the model is asked to write: two labelled lines, from the conversation's recent turns. */
export function summaryPrompt(events: readonly ConversationEvent[]): { role: 'system' | 'user'; content: string }[] {
  const transcript = events
    .flatMap((e) => {
      if (e.type === 'MessageReceived') return [`Customer: ${clip(e.data.text, TRANSCRIPT_MESSAGE_CHARS)}`];
      if (e.type === 'AgentReplied') return [`AI${e.data.handoff ? ' (handoff message)' : ''}: ${clip(e.data.text, TRANSCRIPT_MESSAGE_CHARS)}`];
      if (e.type === 'OperatorMessageSent' || e.type === 'OperatorMessageRecorded') return [`Teammate: ${clip(e.data.text, TRANSCRIPT_MESSAGE_CHARS)}`];
      return [];
    })
    .slice(-SUMMARY_TURNS);
  return [
    {
      role: 'system',
      content:
        'You write a handoff note for a support teammate who takes over a conversation from an AI assistant. ' +
        'Answer with exactly two lines and nothing else:\nWANTS: what the customer wants, in one sentence\nTRIED: what the AI assistant tried or answered, in one sentence',
    },
    { role: 'user', content: transcript.join('\n') || '(no messages)' },
  ];
}

/**
 * The model's two lines read back; a line it left out is taken from the extracted summary, so a model that
 * ignores the format still gives a useful note (its whole text as `wants`).
 */
export function readModelSummary(text: string, extracted: HandoffSummary): Pick<HandoffSummary, 'wants' | 'tried'> {
  // On RE2: the model's text is the company's endpoint's to choose, and a backtracking engine takes quadratic time
  // on a run of blank lines here (`\s*` spans them from every line start).
  const line = (label: string) => {
    const labelled = compilePattern(`^\\s*\\**${label}\\**\\s*:\\s*(.+)$`, { caseInsensitive: true, multiline: true });
    return labelled.ok ? labelled.pattern.firstGroup(text)?.trim() : undefined;
  };
  const wants = line('WANTS');
  const tried = line('TRIED');
  if (!wants && !tried) return { wants: text.trim() ? clip(text, HANDOFF_SUMMARY_LIMITS.text) : extracted.wants, tried: extracted.tried };
  return { wants: wants ? clip(wants, HANDOFF_SUMMARY_LIMITS.text) : extracted.wants, tried: tried ? clip(tried, HANDOFF_SUMMARY_LIMITS.text) : extracted.tried };
}
