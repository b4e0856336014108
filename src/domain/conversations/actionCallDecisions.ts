import type { ActionMode } from '../actions/definition.js';
import type { AppendAgentReply } from './agentReply.js';
import { DomainError } from '../errors.js';
import { ACTION_CALL_LIMITS } from './actionCalls.js';
import type { ConversationEvent } from './events.js';
import type { ConversationState } from './state.js';

/**
 * The reply worker's decisions on a call's life (actionCalls.ts has the whole life): requested or rejected, the
 * customer's confirmation asked and answered, the attempt recorded before the HTTP call and its outcome after.
 * Approvals and expiries are decided beside these (the approval commands).
 *
 * Every decision is safe to repeat: one that finds its event already decided (the call started, settled, no
 * longer pending) decides nothing, so a redelivered job cannot record a call twice.
 */

type Recorded = Record<string, string | number | boolean>;

/** The reply that carries a confirmation question (or a holding reply, a follow-up): an AgentReplied like any answer (sent, charged), never a handoff. */
export type ConfirmationReply = Pick<AppendAgentReply, 'messageId' | 'sessionId' | 'agentId' | 'text' | 'inReplyTo' | 'model' | 'inputTokens' | 'outputTokens' | 'agentVersion'>;

export type ActionCallCommand =
  /** `rejection`: the call was refused before it was made (schema, identity); recorded with its request. */
  | { type: 'RequestActionCall'; callId: string; replyId: string; actionId: string; actionName: string; mode: ActionMode; arguments: Recorded; agentVersion?: number; rejection?: string; now: string }
  | { type: 'AskActionConfirmation'; callId: string; prompt: string; expiresAt: string; reply: ConfirmationReply; now: string }
  /** `approve`: the customer is told `reply.text` (the action's holding reply) while a teammate decides. */
  | { type: 'AskActionApproval'; callId: string; approverRoles: string[] | null; expiresAt: string; reply: ConfirmationReply; now: string }
  /**
   * After a teammate decided an approve call: the agent tells the customer how it went, in reply to the messages the
   * holding reply answered. A session a human paused or closed meanwhile drops it (they tell the customer).
   */
  | { type: 'FollowUpActionCall'; callId: string; reply: ConfirmationReply; now: string }
  | { type: 'ConfirmActionCall'; callId: string; inMessage: string; now: string }
  | { type: 'DeclineActionCall'; callId: string; why: 'no' | 'other_reply' | 'silence'; now: string }
  | { type: 'StartActionCall'; callId: string; idempotencyKey: string; mocked: boolean; now: string }
  | { type: 'SucceedActionCall'; callId: string; status: number | null; durationMs: number; response: string; mocked: boolean; now: string }
  | { type: 'FailActionCall'; callId: string; status: number | null; durationMs: number; error: string; outcomeUnknown?: boolean; now: string };

type CommandOf<T extends ActionCallCommand['type']> = Extract<ActionCallCommand, { type: T }>;
type Decision<T extends ActionCallCommand['type']> = (command: CommandOf<T>, state: ConversationState) => ConversationEvent[];
/** The conversation's own reply decision (AppendAgentReply), passed in: this module does not import the decider. */
export type ReplyDecision = (reply: ConfirmationReply & Pick<AppendAgentReply, 'now'> & { handoff: false }, state: ConversationState) => ConversationEvent[];

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
const pendingConfirmation = (state: ConversationState, callId: string) => state.pendingAction?.callId === callId && state.pendingAction.mode === 'confirm';

const decideRequest: Decision<'RequestActionCall'> = (command, state) => {
  if (!state.exists) throw new DomainError('NOT_FOUND', 'Conversation not found');
  if (state.lastRequestedCall?.callId === command.callId) return [];
  const { callId, replyId, actionId, actionName, mode, agentVersion, now } = command;
  const requested: ConversationEvent = {
    type: 'ActionCallRequested',
    data: { callId, replyId, actionId, actionName, mode, arguments: recordedArguments(command.arguments), ...(agentVersion !== undefined ? { agentVersion } : {}), at: now },
  };
  const rejection = command.rejection ?? (mode !== 'auto' ? stillWaiting(state) : undefined);
  if (rejection === undefined) return [requested];
  return [requested, { type: 'ActionCallRejected', data: { callId, error: cut(rejection, ACTION_CALL_LIMITS.error), at: now } }];
};

/**
 * A conversation holds one waiting call. Another call that must wait (confirm, approve) is refused while one does,
 * rather than replacing it: the teammate deciding the first, or the customer answering its question, must not
 * find it gone. The refusal is recorded (the team reads it in the action log) and read by the model, which tells
 * the customer that the first must be settled first. A lookup (auto) runs as usual.
 */
function stillWaiting(state: ConversationState): string | undefined {
  const pending = state.pendingAction;
  if (!pending) return undefined;
  return `another action is waiting for ${pending.mode === 'approve' ? "a teammate's approval" : "the customer's confirmation"}: ask again once it is decided`;
}

/** Arguments as the event schema holds them: at most 64-character names, strings capped. */
function recordedArguments(args: Recorded): Recorded {
  return Object.fromEntries(
    Object.entries(args)
      .slice(0, 30)
      .map(([k, v]) => [k.slice(0, 64), typeof v === 'string' ? cut(v, 2000) : v]),
  );
}

const decideAsk =
  (appendReply: ReplyDecision): Decision<'AskActionConfirmation'> =>
  (command, state) => {
    if (state.lastRequestedCall?.callId !== command.callId || state.replies.includes(command.reply.messageId)) return [];
    const replied = appendReply({ ...command.reply, handoff: false, now: command.now }, state);
    const asked: ConversationEvent = {
      type: 'ActionConfirmationAsked',
      data: { callId: command.callId, messageId: command.reply.messageId, prompt: cut(command.prompt, ACTION_CALL_LIMITS.prompt), expiresAt: command.expiresAt, at: command.now },
    };
    return [...replied, asked];
  };

const decideAskApproval =
  (appendReply: ReplyDecision): Decision<'AskActionApproval'> =>
  (command, state) => {
    if (state.lastRequestedCall?.callId !== command.callId || state.replies.includes(command.reply.messageId)) return [];
    const replied = appendReply({ ...command.reply, handoff: false, now: command.now }, state);
    const { callId, approverRoles, expiresAt, now } = command;
    return [...replied, { type: 'ActionApprovalRequested', data: { callId, messageId: command.reply.messageId, holdingReply: cut(command.reply.text, 1000), approverRoles, expiresAt, at: now } }];
  };

const decideFollowUp: Decision<'FollowUpActionCall'> = (command, state) => {
  const { reply } = command;
  if (state.replies.includes(reply.messageId)) return [];
  const session = state.session;
  if (!session || session.id !== reply.sessionId || session.state !== 'active') {
    throw new DomainError('REPLY_DROPPED', `The AI session is ${session?.state ?? 'missing'}; the follow-up is dropped`);
  }
  if (reply.inReplyTo.length === 0) throw new DomainError('VALIDATION_ERROR', 'A follow-up answers the messages its holding reply answered');
  const { agentVersion, ...fields } = reply;
  return [{ type: 'AgentReplied', data: { ...fields, handoff: false, ...(agentVersion !== undefined ? { agentVersion } : {}), at: command.now } }];
};

const decideConfirm: Decision<'ConfirmActionCall'> = (command, state) =>
  pendingConfirmation(state, command.callId) ? [{ type: 'ActionCallConfirmed', data: { callId: command.callId, inMessage: command.inMessage, at: command.now } }] : [];

const decideDecline: Decision<'DeclineActionCall'> = (command, state) => {
  if (!pendingConfirmation(state, command.callId)) return [];
  // Silence is only silence once the window closed; a job that runs early decides nothing.
  if (command.why === 'silence' && Date.parse(command.now) < Date.parse(state.pendingAction!.expiresAt)) return [];
  return [{ type: 'ActionCallDeclined', data: { callId: command.callId, why: command.why, at: command.now } }];
};

const decideStart: Decision<'StartActionCall'> = (command, state) => {
  if (state.startedCalls.includes(command.callId)) return [];
  // A call still waiting for a yes or an approval is not made before it gets one.
  if (state.pendingAction?.callId === command.callId) throw new DomainError('INVALID_STATE', 'The call waits for a confirmation or an approval');
  return [{ type: 'ActionCallStarted', data: { callId: command.callId, idempotencyKey: command.idempotencyKey, mocked: command.mocked, at: command.now } }];
};

const decideSucceed: Decision<'SucceedActionCall'> = (command, state) => {
  if (!state.startedCalls.includes(command.callId)) return [];
  const { callId, status, durationMs, mocked, now } = command;
  return [{ type: 'ActionCallSucceeded', data: { callId, status, durationMs: Math.max(0, Math.round(durationMs)), response: cut(command.response, ACTION_CALL_LIMITS.response), mocked, at: now } }];
};

const decideFail: Decision<'FailActionCall'> = (command, state) => {
  if (!state.startedCalls.includes(command.callId)) return [];
  const { callId, status, durationMs, now } = command;
  return [
    {
      type: 'ActionCallFailed',
      data: { callId, status, durationMs: Math.max(0, Math.round(durationMs)), error: cut(command.error, ACTION_CALL_LIMITS.error), ...(command.outcomeUnknown ? { outcomeUnknown: true } : {}), at: now },
    },
  ];
};

export function makeActionCallDecisions(appendReply: ReplyDecision): { [T in ActionCallCommand['type']]: Decision<T> } {
  return {
    RequestActionCall: decideRequest,
    AskActionConfirmation: decideAsk(appendReply),
    AskActionApproval: decideAskApproval(appendReply),
    FollowUpActionCall: decideFollowUp,
    ConfirmActionCall: decideConfirm,
    DeclineActionCall: decideDecline,
    StartActionCall: decideStart,
    SucceedActionCall: decideSucceed,
    FailActionCall: decideFail,
  };
}

/**
 * The customer's answer to a confirmation question: only an explicit yes runs the call, an explicit no declines it,
 * anything else is a new message (the call is declined as `other_reply` and the message answered as usual).
 */
export function confirmationAnswer(text: string): 'yes' | 'no' | 'other' {
  const words = text
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[.!?,;:…"“”«»()]+/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  if (words.length === 0 || words.length > 4) return 'other';
  const said = words.join(' ');
  if (YES.has(said) || (words.length <= 3 && YES.has(words[0]!) && words.slice(1).every((w) => POLITE.has(w)))) return 'yes';
  if (NO.has(said) || (words.length <= 3 && NO.has(words[0]!) && words.slice(1).every((w) => POLITE.has(w)))) return 'no';
  return 'other';
}

/**
 * The customer's turn, in however many messages it came: read as one sentence ("yes" + "please"), or, when that
 * is no plain answer, as the same answer in each message ("yes", "yes": a customer who said it twice quickly).
 * Mixed answers are neither.
 */
export function confirmationAnswerOf(texts: string[]): 'yes' | 'no' | 'other' {
  const together = confirmationAnswer(texts.join(' '));
  if (together !== 'other' || texts.length < 2) return together;
  const each = new Set(texts.map(confirmationAnswer));
  return each.size === 1 ? [...each][0]! : 'other';
}

const YES = new Set(['yes', 'y', 'yeah', 'yep', 'yup', 'confirm', 'confirmed', 'ok', 'okay', 'sure', 'go ahead', 'do it', 'ja', 'oui', 'sí', 'si', 'sim', 'да', 'tak', 'jo', 'kyllä', 'evet', 'はい', '是', '好']);
const NO = new Set(['no', 'n', 'nope', 'nah', 'cancel', "don't", 'do not', 'stop', 'nein', 'non', 'não', 'nao', 'нет', 'nie', 'nej', 'ei', 'hayır', 'いいえ', '不']);
const POLITE = new Set(['please', 'thanks', 'thank', 'you', 'thx', 'bitte', 'merci', 'gracias', 'danke', 'пожалуйста', 'спасибо']);
