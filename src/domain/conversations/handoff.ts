import { z } from 'zod';
import { NO_CONFIDENT_ANSWER_REASON } from '../answers/provenance.js';
import type { ConversationEvent } from './events.js';

/**
 * The "Needs human" queue. A handoff is distinct from a manual pause: an operator pausing the AI takes the
 * conversation themself, while a handoff means a customer waits for someone. It is set by the events that hand
 * the conversation to people and cleared when a human replies, the conversation is resolved (closed), or the AI
 * is resumed. Both the decider's state and the conversations read model fold it with `evolveHandoff`, so the
 * queue and the decisions can never disagree.
 */
export const handoffReason = z.enum([
  /** The model answered with the agent's handoff message (its reason, when it gave one, is the detail). */
  'agent_handoff',
  /**
   * The answerer had no confident answer: the builtin provider's evidence was under the agent's setting, or a
   * grounded model handed off, cited no passage it was given, or sent a reply that could not be read.
   */
  'no_confident_answer',
  /** The AI could not answer (the language model failed) and left the messages to a human. */
  'ai_unanswered',
  /** The customer asked for a person. */
  'customer_request',
  /** The messaging platform transferred the dialog to its operators. */
  'dialog_transferred',
  /** The conversation fell in an experiment's holdout: it goes to people, as the experiment's baseline. */
  'experiment_holdout',
]);
export type HandoffReason = z.infer<typeof handoffReason>;

/** Why a conversation whose action approval timed out is handed to people (the handoff's detail). */
export const APPROVAL_EXPIRED_REASON = 'An action waited for a teammate’s approval and nobody decided in time';

export interface Handoff {
  reason: HandoffReason;
  /** More about the reason when there is some (why the AI could not answer). */
  detail: string | null;
  /** Since when the customer waits: their oldest message no one has answered, else when the handoff happened. */
  since: string;
  /** Handed off outside business hours: when people are back (the queue shows it as "after hours"). Absent in hours. */
  backAt?: string;
}

export interface HandoffTrack {
  handoff: Handoff | null;
  /** The oldest customer message not yet answered (by the AI or a human); null when nobody waits. */
  waitingSince: string | null;
  /** The reason of the newest MessagesUnanswered, for a handoff that follows it in the same decision. */
  lastUnansweredReason: string | null;
}

export const noHandoff: HandoffTrack = { handoff: null, waitingSince: null, lastUnansweredReason: null };

const handedOff = (track: HandoffTrack, reason: HandoffReason, at: string, detail: string | null = null, backAt?: string): HandoffTrack =>
  // The first reason stays: the customer has waited since then, whatever else happened meanwhile.
  track.handoff ? track : { ...track, handoff: { reason, detail, since: track.waitingSince ?? at, ...(backAt ? { backAt } : {}) } };

export function evolveHandoff(track: HandoffTrack, event: Pick<ConversationEvent, 'type' | 'data'>): HandoffTrack {
  const e = event as ConversationEvent;
  switch (e.type) {
    case 'MessageReceived':
      return track.waitingSince ? track : { ...track, waitingSince: e.data.at };
    case 'AgentReplied':
      // A handoff reply tells the customer someone will come: they still wait, now for a human. Sent because the
      // model failed, it is the AI that could not answer, for the reason recorded just before.
      if (e.data.aiFailed) return handedOff(track, 'ai_unanswered', e.data.at, track.lastUnansweredReason, e.data.backAt);
      if (!e.data.handoff) return { ...track, waitingSince: null };
      // "no confident answer" is the reason itself, not more about it: only a model's own words are a detail.
      return handedOff(track, e.data.handoffCause ?? 'agent_handoff', e.data.at, e.data.handoffReason === NO_CONFIDENT_ANSWER_REASON ? null : (e.data.handoffReason ?? null), e.data.backAt);
    case 'MessagesUnanswered':
      return { ...track, lastUnansweredReason: e.data.reason };
    // The handoff pause that follows says why: no teammate decided on the action call in time.
    case 'ActionApprovalExpired':
      return { ...track, lastUnansweredReason: APPROVAL_EXPIRED_REASON };
    case 'AiSessionPaused':
      return e.data.reason === 'handoff' ? handedOff(track, 'ai_unanswered', e.data.at, track.lastUnansweredReason, e.data.backAt) : track;
    case 'HumanRequested':
      return handedOff(track, 'customer_request', e.data.at);
    case 'DialogTransferred':
      return handedOff(track, 'dialog_transferred', e.data.at);
    case 'OperatorMessageSent':
    case 'OperatorMessageRecorded':
    case 'AiSessionClosed':
      return noHandoff;
    case 'AiSessionResumed':
      return { ...track, handoff: null };
    default:
      return track;
  }
}

/**
 * Whether a customer message asks for a person ("can I talk to a human?", "real person please", "operator").
 * Deliberately narrow: a false positive takes the AI off the conversation, so only clear requests count.
 */
export function asksForHuman(text: string): boolean {
  const t = text.toLowerCase().replace(/\s+/g, ' ').trim();
  if (t.length > 300) return false;
  if (/^(a )?(human|person|operator|real person|live agent|human agent)( please| pls)?[.!?]*$/.test(t)) return true;
  if (/\b(real|live|actual) (person|human|agent|operator)\b/.test(t)) return true;
  if (/\b(need|want) (a |an |to talk to a |to speak to a |to speak with a )?(human|operator)\b/.test(t)) return true;
  return /\b(talk|speak|chat|connect me|put me through|transfer me)\b[^.?!]{0,25}\b(a |an |to a |to an |with a |with an |to )?(human|person|operator|representative|someone real)\b/.test(t);
}
