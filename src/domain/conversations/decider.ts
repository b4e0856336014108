import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import type { PlatformId } from '../platformId.js';
import { NOTE_LIMITS, type AssignmentReason, type ConversationEvent, type ConversationStreamEvent, type Customer, type DeliveredTo, type HandoffSummary, type PausedReason, type PlatformRefs } from './events.js';
import { asksForHuman, evolveConversation, initialConversationState, isDuplicate, textFingerprint, type ConversationState } from './state.js';
import { parseCsatReply, type CsatVia } from './csat.js';
import { makeActionCallDecisions, type ActionCallCommand } from './actionCallDecisions.js';
import type { AppendAgentReply, ExperimentJoin } from './agentReply.js';
import { triageDecisions, wokenByCustomer, type TriageCommand } from './triage.js';
import { decideApproveActionCall, decideExpireActionCall, decideRefuseActionCall, type ActionApprovalCommand } from './actionApprovals.js';

export interface Start {
  conversationId: string;
  companyId: string;
  integrationId: number;
  connectorType: 'msgplatform' | 'webchat';
  customer: Customer;
  defaultStageId: string | null;
}

export interface Delivery {
  messageId: string;
  dedupeKey: string;
  dedupeUntil: string | null;
  text: string;
  attachments?: unknown[];
  platform: PlatformRefs;
}

export type ConversationCommand =
  /** `verifiedVisitor`: a web-chat visitor whose site signed their identity (recorded with the message when news). */
  | ({ type: 'ReceiveCustomerMessage'; start: Start; sessionId: string; client?: Record<string, unknown>; clientMessageId?: string; verifiedVisitor?: VerifiedVisitor; now: string } & Delivery)
  | ({ type: 'RecordOperatorMessage'; start: Start; now: string } & Delivery)
  | { type: 'PauseSession'; reason: PausedReason; by: string | null; now: string }
  | { type: 'ResumeSession'; by: string | null; now: string }
  | { type: 'CloseSession'; reason: 'close_dialog' | 'close_request' | 'api'; by: string | null; resolution?: string; now: string }
  | { type: 'ReopenConversation'; sessionId: string; by: string | null; now: string }
  | { type: 'TransferDialog'; dialogId: PlatformId | null; requestId: PlatformId | null; now: string }
  | { type: 'ChangeStage'; stageId: string; validStageIds: string[]; by: string | null; now: string }
  | AppendAgentReply
  | { type: 'SendOperatorMessage'; messageId: string; text: string; by: string; now: string }
  | { type: 'RecordSendAttempt'; messageId: string; idempotencyKey: string; now: string }
  | { type: 'RecordDelivery'; messageId: string; platformMessageId: PlatformId | null; deliveredTo?: DeliveredTo; now: string }
  | { type: 'RecordDeliveryFailure'; messageId: string; reason: string; attempts: number; now: string }
  | { type: 'MarkUnanswered'; messageIds: string[]; reason: string; handoff: boolean; backAt?: string; notice?: HandoffNotice; now: string }
  /** `assignee`: the user as the teammates query found them; null when no such user belongs to the company. */
  /**
   * `reason` auto: automatic assignment, which only takes a conversation still waiting for a human with no owner
   * (a teammate who took it meanwhile, or a resolve, wins: nothing is recorded).
   */
  /**
   * The conversation is for `teamId` now (null: the whole company). `teamExists`: the use case found the team in
   * the conversation's company. `ifUnrouted`: routing on a handoff, which never overrides a team already chosen.
   */
  | { type: 'RouteConversationToTeam'; teamId: string | null; teamExists: boolean; ifUnrouted: boolean; by: string; now: string; from?: string }
  | { type: 'AssignConversation'; assigneeId: string; assignee: Teammate | null; by: string; now: string; reason?: AssignmentReason }
  /**
   * After `sessionId` closed: the survey, if that session is still the closed one. `skipWithoutCustomerReply`:
   * none when the customer did not write after the first answer. `messageId`: its delivery (sent like a reply);
   * `question`: the platform message's text.
   */
  | { type: 'RequestCsat'; surveyId: string; sessionId: string; via: CsatVia; question?: string; messageId?: string; skipWithoutCustomerReply: boolean; now: string }
  /** A web-chat visitor's answer to the survey `surveyId`. */
  | { type: 'SubmitCsat'; surveyId: string; rating: number; comment: string | null; now: string }
  /** A summary of the current handoff (`since`: the handoff it was written for). */
  | ({ type: 'RecordHandoffSummary'; summaryId: string; since: string; writtenBy: 'llm' | 'extractive'; model: string; inputTokens: number; outputTokens: number; now: string } & HandoffSummary)
  /** The agent's hand-back timeout: a customer writing this long after people last had the conversation gets the AI again. */
  | { type: 'HandBackToAi'; afterMinutes: number; now: string }
  /** A returning web-chat visitor's signed identity, checked by the service (identityChange below). */
  | { type: 'VerifyCustomerIdentity'; visitor: VerifiedVisitor; now: string }
  /** A teammate's decision on a waiting action call, or the clock ending it (actionApprovals.ts). */
  | ActionApprovalCommand
  /** The reply loop's own action-call decisions (actionCallDecisions.ts). */
  | ActionCallCommand
  /** A teammate's internal note (`mentions`: the teammates its @names resolved to, notes.ts). */
  | { type: 'AddNote'; noteId: string; authorId: string; text: string; mentions: string[]; now: string }
  /** Priority and snooze (triage.ts). */
  | TriageCommand
  /** `from`: only while this teammate has it (a removal's cleanup must not undo someone's later assignment). */
  | { type: 'UnassignConversation'; by: string; now: string; from?: string };

export type { ExperimentJoin } from './agentReply.js';

/** The agent's handoff message, sent to the customer when the AI cannot answer (so a failure is never silence). */
export interface HandoffNotice {
  messageId: string;
  agentId: string | null;
  text: string;
}

/** The model name a handoff notice records: no model wrote it, and it costs nothing. */
export const NO_MODEL = 'none';

/** A user who may own conversations of their company (what the membership query answers). */
export interface Teammate {
  userId: string;
  companyId: string;
}

/**
 * The conversation's decisions: one pure `decideX(command, state) → events` per command (Emmett's
 * businessLogic shape), dispatched by `decide` through a map. docs/api/conversations.md has the AI session state table.
 */

type CommandOf<T extends ConversationCommand['type']> = Extract<ConversationCommand, { type: T }>;
type Decision<T extends ConversationCommand['type']> = (command: CommandOf<T>, state: ConversationState) => ConversationEvent[];

const invalidState = (message: string) => new DomainError('INVALID_STATE', message);
const notFound = () => new DomainError('NOT_FOUND', 'Conversation not found');

const startEvents = (state: ConversationState, start: Start, now: string): ConversationEvent[] =>
  state.exists
    ? []
    : [
        {
          type: 'ConversationStarted',
          data: {
            conversationId: start.conversationId,
            companyId: start.companyId,
            integrationId: start.integrationId,
            connectorType: start.connectorType,
            customer: start.customer,
            stageId: start.defaultStageId,
            at: now,
          },
        },
      ];

/** The survey waiting for an answer: its session is still the closed one and nobody answered it yet. */
/** The rated agent version, carried from the survey to its answer (absent when unknown). */
const versionOf = (survey: { agentVersion?: number }) => (survey.agentVersion !== undefined ? { agentVersion: survey.agentVersion } : {});

export const pendingSurvey = (state: ConversationState) =>
  state.survey && !state.survey.answered && state.session?.state === 'closed' && state.session.id === state.survey.sessionId ? state.survey : null;

export const decideReceiveCustomerMessage: Decision<'ReceiveCustomerMessage'> = (command, state) => {
  if (isDuplicate(state, command.dedupeKey, command.now)) return [];
  // Checked here, where the write is atomic, not only at hello: a socket that joined before the conversation was
  // verified must not write in the signed user's name, nor have actions act with that user's identity.
  if (!belongsToVisitor(state, command.verifiedVisitor ?? null)) throw new DomainError('FORBIDDEN', NOT_THE_VISITORS_CONVERSATION);
  // A platform customer's short reply to the survey ("4 thanks") is their answer, not a new question.
  const survey = pendingSurvey(state);
  const answer = survey?.via === 'platform' ? parseCsatReply(command.text) : null;
  if (survey && answer) {
    const { surveyId, via, agentId, teammateId } = survey;
    return [
      {
        type: 'CsatSubmitted',
        data: { surveyId, rating: answer.rating, comment: answer.comment, via, agentId, ...versionOf(survey), teammateId, dedupeKey: command.dedupeKey, dedupeUntil: command.dedupeUntil, at: command.now },
      },
    ];
  }
  const session = state.session;
  const events = startEvents(state, command.start, command.now);
  // A first message, or the first after a close, opens a new active AI session.
  if (!session || session.state === 'closed') events.push({ type: 'AiSessionOpened', data: { sessionId: command.sessionId, at: command.now } });
  // Before the message, in the same append: the reply it triggers already knows who is asking.
  events.push(...identityChange(state, command.verifiedVisitor, command.now));
  events.push({
    type: 'MessageReceived',
    data: {
      messageId: command.messageId,
      dedupeKey: command.dedupeKey,
      dedupeUntil: command.dedupeUntil,
      text: command.text,
      ...(command.attachments?.length ? { attachments: command.attachments as never } : {}),
      ...(command.client ? { client: command.client as never } : {}),
      ...(command.clientMessageId ? { clientMessageId: command.clientMessageId } : {}),
      platform: command.platform,
      at: command.now,
    },
  });
  events.push(...wokenByCustomer(state, command.now));
  // A customer asking for a person joins the "Needs human" queue. The AI still answers meanwhile (it may say a
  // colleague is coming, or solve it): the request stays in the queue until a human replies or resolves it.
  if (!state.handoff.handoff && asksForHuman(command.text)) events.push({ type: 'HumanRequested', data: { messageId: command.messageId, at: command.now } });
  return events;
};

export const decideRecordOperatorMessage: Decision<'RecordOperatorMessage'> = (command, state) => {
  if (isDuplicate(state, command.dedupeKey, command.now)) return [];
  // The platform reports our own sends as "outbox" too: those are not a human taking over.
  const echo =
    (command.platform.messageId !== undefined && state.sentPlatformIds.some((id) => String(id) === String(command.platform.messageId))) ||
    (command.text !== '' && state.recentSentTexts.includes(textFingerprint(command.text)));
  if (echo) return [];
  const session = state.session;
  const events = startEvents(state, command.start, command.now);
  events.push({
    type: 'OperatorMessageRecorded',
    data: {
      messageId: command.messageId,
      dedupeKey: command.dedupeKey,
      dedupeUntil: command.dedupeUntil,
      text: command.text,
      ...(command.attachments?.length ? { attachments: command.attachments as never } : {}),
      platform: command.platform,
      at: command.now,
    },
  });
  if (session?.state === 'active') {
    events.push({ type: 'AiSessionPaused', data: { sessionId: session.id, reason: 'operator_message', by: null, at: command.now } });
  }
  return events;
};

export const decidePauseSession: Decision<'PauseSession'> = (command, { session }) => {
  if (!session || session.state === 'closed') throw invalidState('There is no open AI session to pause');
  if (session.state === 'paused') return [];
  return [{ type: 'AiSessionPaused', data: { sessionId: session.id, reason: command.reason, by: command.by, at: command.now } }];
};

export const decideResumeSession: Decision<'ResumeSession'> = (command, { session }) => {
  if (!session || session.state === 'closed') throw invalidState('A closed AI session cannot be resumed; the next customer message opens a new one');
  if (session.state === 'active') return [];
  return [{ type: 'AiSessionResumed', data: { sessionId: session.id, by: command.by, at: command.now } }];
};

export const decideCloseSession: Decision<'CloseSession'> = (command, { session }) => {
  if (!session) throw invalidState('There is no AI session to close');
  if (session.state === 'closed') return [];
  return [
    {
      type: 'AiSessionClosed',
      data: { sessionId: session.id, reason: command.reason, action: 'session_close', by: command.by, ...(command.resolution ? { resolution: command.resolution } : {}), at: command.now },
    },
  ];
};

export const decideReopenConversation: Decision<'ReopenConversation'> = (command, state) => {
  const session = state.session;
  if (!state.exists) throw notFound();
  if (!session) throw invalidState('There is no closed AI session to reopen');
  // Reopening an open session is a no-op, so a double click or a retried request records nothing.
  if (session.state !== 'closed') return [];
  return [{ type: 'ConversationReopened', data: { sessionId: command.sessionId, previousSessionId: session.id, by: command.by, at: command.now } }];
};

export const decideTransferDialog: Decision<'TransferDialog'> = (command, state) => {
  if (!state.exists) throw notFound();
  const session = state.session;
  const events: ConversationEvent[] = [
    { type: 'DialogTransferred', data: { action: 'session_transfer_external', dialogId: command.dialogId, requestId: command.requestId, at: command.now } },
  ];
  // A transfer hands the dialog to people: an active AI steps back; a paused one stays paused.
  if (session?.state === 'active') {
    events.push({ type: 'AiSessionPaused', data: { sessionId: session.id, reason: 'dialog_transferred', by: null, at: command.now } });
  }
  return events;
};

export const decideChangeStage: Decision<'ChangeStage'> = (command, state) => {
  if (!state.exists) throw notFound();
  if (!command.validStageIds.includes(command.stageId)) throw new DomainError('VALIDATION_ERROR', "stageId is not a stage of this company's pipeline");
  if (state.stageId === command.stageId) return [];
  return [{ type: 'StageChanged', data: { stageId: command.stageId, by: command.by, at: command.now } }];
};

export const decideAppendAgentReply: Decision<'AppendAgentReply'> = (command, state) => {
  if (state.replies.includes(command.messageId)) return [];
  const session = state.session;
  // Generated against a session that a human paused or closed meanwhile: dropped, never sent.
  if (!session || session.id !== command.sessionId || session.state !== 'active') {
    throw new DomainError('REPLY_DROPPED', `The AI session is ${session?.state ?? 'missing'}; the reply is dropped`);
  }
  const inReplyTo = command.inReplyTo.filter((id) => state.unanswered.includes(id));
  if (inReplyTo.length === 0) throw new DomainError('REPLY_DROPPED', 'The messages were already answered');
  const experiment = command.experiment;
  return [
    ...joinExperiment(state, experiment, command.now),
    {
      type: 'AgentReplied',
      data: {
        messageId: command.messageId,
        sessionId: command.sessionId,
        agentId: command.agentId,
        text: command.text,
        inReplyTo,
        model: command.model,
        inputTokens: command.inputTokens,
        outputTokens: command.outputTokens,
        handoff: command.handoff,
        ...(command.handoff && command.handoffReason ? { handoffReason: command.handoffReason.slice(0, 500) } : {}),
        ...(command.handoff && command.handoffCause ? { handoffCause: command.handoffCause } : {}),
        ...(command.provenance ? { provenance: command.provenance } : {}),
        ...(command.agentVersion !== undefined ? { agentVersion: command.agentVersion } : {}),
        // A handoff, or an answer to a customer who waits for a person (they asked for one), after hours.
        ...(command.backAt && (command.handoff || state.handoff.handoff) ? { backAt: command.backAt } : {}),
        ...(experiment ? { experiment: { experimentId: experiment.experimentId, arm: experiment.arm } } : {}),
        at: command.now,
      },
    },
    ...(command.handoff ? [{ type: 'AiSessionPaused' as const, data: { sessionId: session.id, reason: 'handoff' as const, by: null, ...(command.backAt ? { backAt: command.backAt } : {}), at: command.now } }] : []),
  ];
};

/** The first answer in an experiment records the arm, so later answers (and config changes) cannot move the conversation. */
function joinExperiment(state: ConversationState, join: ExperimentJoin | undefined, now: string): ConversationEvent[] {
  if (!join || state.experiment?.experimentId === join.experimentId) return [];
  const { experimentId, agentId, arm, version } = join;
  return [{ type: 'ExperimentArmAssigned', data: { experimentId, agentId, arm, version, waitingSince: state.handoff.waitingSince, at: now } }];
}

export const decideSendOperatorMessage: Decision<'SendOperatorMessage'> = (command, state) => {
  if (!state.exists) throw notFound();
  if (command.messageId in state.outbound || state.settled.some((m) => m.messageId === command.messageId)) return [];
  const session = state.session;
  const events: ConversationEvent[] = [{ type: 'OperatorMessageSent', data: { messageId: command.messageId, text: command.text, by: command.by, at: command.now } }];
  // An operator writing to the customer takes over: the AI must not answer over them.
  if (session?.state === 'active') events.push({ type: 'AiSessionPaused', data: { sessionId: session.id, reason: 'operator_message', by: command.by, at: command.now } });
  return events;
};

export const decideRecordSendAttempt: Decision<'RecordSendAttempt'> = (command, state) => {
  const pending = state.outbound[command.messageId];
  if (!pending) return [];
  return [{ type: 'MessageSendAttempted', data: { messageId: command.messageId, attempt: pending.attempts + 1, idempotencyKey: command.idempotencyKey, at: command.now } }];
};

export const decideRecordDelivery: Decision<'RecordDelivery'> = (command, state) => {
  if (state.settled.some((m) => m.messageId === command.messageId && m.outcome === 'sent')) return [];
  if (!(command.messageId in state.outbound)) {
    if (state.settled.some((m) => m.messageId === command.messageId)) return [];
    throw new DomainError('NOT_FOUND', 'Message not found');
  }
  return [
    {
      type: 'MessageDelivered',
      data: {
        messageId: command.messageId,
        platformMessageId: command.platformMessageId,
        ...(command.deliveredTo ? { deliveredTo: command.deliveredTo } : {}),
        at: command.now,
      },
    },
  ];
};

export const decideRecordDeliveryFailure: Decision<'RecordDeliveryFailure'> = (command, state) => {
  if (!(command.messageId in state.outbound)) return [];
  return [{ type: 'MessageDeliveryFailed', data: { messageId: command.messageId, reason: command.reason, attempts: command.attempts, at: command.now } }];
};

export const decideMarkUnanswered: Decision<'MarkUnanswered'> = (command, state) => {
  const ids = command.messageIds.filter((id) => state.unanswered.includes(id));
  if (ids.length === 0) return [];
  const session = state.session;
  const events: ConversationEvent[] = [{ type: 'MessagesUnanswered', data: { messageIds: ids, reason: command.reason, at: command.now } }];
  if (command.handoff && session?.state === 'active') {
    // Handed to people, the customer is told so: the agent's handoff message answers what the AI could not.
    const notice = command.notice;
    if (notice && !state.replies.includes(notice.messageId)) {
      events.push({
        type: 'AgentReplied',
        data: {
          messageId: notice.messageId,
          sessionId: session.id,
          agentId: notice.agentId,
          text: notice.text,
          inReplyTo: ids,
          model: NO_MODEL,
          inputTokens: 0,
          outputTokens: 0,
          handoff: true,
          aiFailed: true,
          at: command.now,
        },
      });
    }
    events.push({ type: 'AiSessionPaused', data: { sessionId: session.id, reason: 'handoff', by: null, ...(command.backAt ? { backAt: command.backAt } : {}), at: command.now } });
  }
  return events;
};

export const decideAssignConversation: Decision<'AssignConversation'> = (command, state) => {
  if (!state.exists) throw notFound();
  // Only a user of the conversation's own company can own it; another company's user reads as no user at all.
  if (!command.assignee || command.assignee.userId !== command.assigneeId || command.assignee.companyId !== state.companyId) {
    throw new DomainError('VALIDATION_ERROR', 'assigneeId is not a user of this company');
  }
  // Assigning the current owner again records nothing: a double click or a retried request is harmless.
  if (state.assigneeId === command.assigneeId) return [];
  const reason = command.reason ?? 'manual';
  if (reason === 'auto' && (state.assigneeId !== null || state.handoff.handoff === null || state.session?.state === 'closed')) return [];
  return [{ type: 'ConversationAssigned', data: { assigneeId: command.assigneeId, previousAssigneeId: state.assigneeId, by: command.by, reason, at: command.now } }];
};

export const decideRouteConversationToTeam: Decision<'RouteConversationToTeam'> = (command, state) => {
  if (!state.exists) throw notFound();
  if (command.teamId !== null && !command.teamExists) throw new DomainError('VALIDATION_ERROR', 'teamId is not a team of this company');
  const current = state.teamId ?? null;
  // `from`: a deleted team's conversations go back to the whole company, unless moved to another team meanwhile.
  if (current === command.teamId || (command.ifUnrouted && current !== null) || (command.from !== undefined && current !== command.from)) return [];
  return [{ type: 'ConversationRoutedToTeam', data: { teamId: command.teamId, previousTeamId: current, by: command.by, at: command.now } }];
};

export const decideUnassignConversation: Decision<'UnassignConversation'> = (command, state) => {
  if (!state.exists) throw notFound();
  if (state.assigneeId === null || (command.from !== undefined && state.assigneeId !== command.from)) return [];
  return [{ type: 'ConversationUnassigned', data: { previousAssigneeId: state.assigneeId, by: command.by, at: command.now } }];
};

export const decideAddNote: Decision<'AddNote'> = (command, state) => {
  if (!state.exists) throw notFound();
  // A retried request (same Idempotency-Key, same note id) records nothing.
  if (state.recentNotes.includes(command.noteId)) return [];
  const text = command.text.trim();
  if (text === '') throw new DomainError('VALIDATION_ERROR', 'text: a note needs some text');
  if (text.length > NOTE_LIMITS.text) throw new DomainError('VALIDATION_ERROR', `text: at most ${NOTE_LIMITS.text} characters`);
  const mentions = [...new Set(command.mentions)].slice(0, NOTE_LIMITS.mentions);
  return [{ type: 'NoteAdded', data: { noteId: command.noteId, authorId: command.authorId, text, mentions, at: command.now } }];
};

export const decideRequestCsat: Decision<'RequestCsat'> = (command, state) => {
  if (!state.exists) throw notFound();
  // Reopened or written to since: that session's survey is moot. Asked already: nothing more.
  if (state.session?.state !== 'closed' || state.session.id !== command.sessionId || state.survey?.surveyId === command.surveyId) return [];
  if (command.skipWithoutCustomerReply && !state.sessionCustomerReplied) return [];
  const message = { ...(command.messageId ? { messageId: command.messageId } : {}), ...(command.via === 'platform' && command.question ? { text: command.question } : {}) };
  return [
    {
      type: 'CsatRequested',
      data: {
        surveyId: command.surveyId,
        sessionId: command.sessionId,
        via: command.via,
        ...message,
        agentId: state.lastAgentId,
        ...(state.lastAgentId && state.lastAgentVersion !== null ? { agentVersion: state.lastAgentVersion } : {}),
        teammateId: state.assigneeId,
        at: command.now,
      },
    },
  ];
};

export const decideSubmitCsat: Decision<'SubmitCsat'> = (command, state) => {
  if (!state.exists) throw notFound();
  // Answering twice (a double click, a resent frame) records the first answer only.
  if (state.survey?.surveyId === command.surveyId && state.survey.answered) return [];
  const survey = pendingSurvey(state);
  if (!survey || survey.surveyId !== command.surveyId) throw new DomainError('NOT_FOUND', 'No survey waits for an answer here');
  if (!Number.isInteger(command.rating) || command.rating < 1 || command.rating > 5) throw new DomainError('VALIDATION_ERROR', 'rating: a whole number from 1 to 5');
  const { surveyId, via, agentId, teammateId } = survey;
  return [{ type: 'CsatSubmitted', data: { surveyId, rating: command.rating, comment: command.comment?.trim().slice(0, 1000) || null, via, agentId, ...versionOf(survey), teammateId, at: command.now } }];
};

/** Who resumes the AI when a hand-back timeout passed (AiSessionResumed.by). */
export const HAND_BACK_TIMEOUT = 'hand-back-timeout';
/** The pauses a timeout may end: a handoff, or a teammate answering. A deliberate pause (api), credits or a platform transfer never. */
const handedBackAfterTimeout: readonly PausedReason[] = ['handoff', 'operator_message'];

export const decideHandBackToAi: Decision<'HandBackToAi'> = (command, state) => {
  const session = state.session;
  if (!session || session.state !== 'paused' || !session.pausedReason || !handedBackAfterTimeout.includes(session.pausedReason)) return [];
  // Only a customer writing after the timeout brings the AI back: a quiet conversation stays with people.
  if (state.unanswered.length === 0 || !state.lastCustomerMessageAt || !state.peopleSince) return [];
  const quietMs = Date.parse(state.lastCustomerMessageAt) - Date.parse(state.peopleSince);
  if (quietMs < command.afterMinutes * 60_000) return [];
  return [{ type: 'AiSessionResumed', data: { sessionId: session.id, by: HAND_BACK_TIMEOUT, at: command.now } }];
};

export const decideRecordHandoffSummary: Decision<'RecordHandoffSummary'> = (command, state) => {
  if (!state.exists) throw notFound();
  // Written for a handoff that has ended (a human answered, it was resolved) or was summarised already: dropped.
  if (state.handoff.handoff?.since !== command.since || state.summarizedHandoff === command.since) return [];
  const { type: _type, now, ...data } = command;
  return [{ type: 'HandoffSummarized', data: { ...data, at: now } }];
};

export const decideVerifyCustomerIdentity: Decision<'VerifyCustomerIdentity'> = (command, state) => {
  if (!state.exists) throw notFound();
  return identityChange(state, command.visitor, command.now);
};

const decisions: { [T in ConversationCommand['type']]: Decision<T> } = {
  ReceiveCustomerMessage: decideReceiveCustomerMessage,
  RecordOperatorMessage: decideRecordOperatorMessage,
  PauseSession: decidePauseSession,
  ResumeSession: decideResumeSession,
  CloseSession: decideCloseSession,
  ReopenConversation: decideReopenConversation,
  TransferDialog: decideTransferDialog,
  ChangeStage: decideChangeStage,
  AppendAgentReply: decideAppendAgentReply,
  SendOperatorMessage: decideSendOperatorMessage,
  RecordSendAttempt: decideRecordSendAttempt,
  RecordDelivery: decideRecordDelivery,
  RecordDeliveryFailure: decideRecordDeliveryFailure,
  MarkUnanswered: decideMarkUnanswered,
  AssignConversation: decideAssignConversation,
  RouteConversationToTeam: decideRouteConversationToTeam,
  UnassignConversation: decideUnassignConversation,
  AddNote: decideAddNote,
  RequestCsat: decideRequestCsat,
  SubmitCsat: decideSubmitCsat,
  HandBackToAi: decideHandBackToAi,
  RecordHandoffSummary: decideRecordHandoffSummary,
  VerifyCustomerIdentity: decideVerifyCustomerIdentity,
  ApproveActionCall: decideApproveActionCall,
  RefuseActionCall: decideRefuseActionCall,
  ExpireActionCall: decideExpireActionCall,
  ...triageDecisions,
  ...makeActionCallDecisions((reply, state) => decideAppendAgentReply({ type: 'AppendAgentReply', ...reply }, state)),
};

export function decide(command: ConversationCommand, state: ConversationState): ConversationEvent[] {
  return (decisions[command.type] as (command: ConversationCommand, state: ConversationState) => ConversationEvent[])(command, state);
}

/** The conversation aggregate: its state and evolve (state.ts) and the decisions above, composed. */
export const conversationDecider: Decider<ConversationCommand, ConversationStreamEvent, ConversationState> = {
  initialState: initialConversationState,
  evolve: evolveConversation,
  decide,
};

const CONVERSATION_PREFIX = 'conversation-';
export const conversationStream = (conversationId: string) => `${CONVERSATION_PREFIX}${conversationId}`;
export const conversationIdOfStream = (stream: string) => stream.slice(CONVERSATION_PREFIX.length);

/** A web-chat visitor's identity as the company's site signed it (the service checked the signature). */
export interface VerifiedVisitor {
  userId: string;
  email: string | null;
}

/**
 * CustomerIdentityVerified when the signed identity is news to the conversation: its first verification, or a
 * new email for the same user. Recorded once, not per message, so the stream does not grow with a chatty visitor.
 */
export function identityChange(state: Pick<ConversationState, 'verifiedVisitor'>, visitor: VerifiedVisitor | undefined, now: string): ConversationEvent[] {
  if (!visitor) return [];
  const known = state.verifiedVisitor;
  if (known && known.userId === visitor.userId && known.email === visitor.email) return [];
  return [{ type: 'CustomerIdentityVerified', data: { userId: visitor.userId, email: visitor.email, at: now } }];
}

/**
 * Whether a connection may continue this conversation: one a signed user verified belongs to that user, so a
 * visitor token left in a browser does not show their history (or act on their behalf) to anyone else.
 */
export const NOT_THE_VISITORS_CONVERSATION = 'This conversation belongs to another signed-in visitor';

export const belongsToVisitor = (state: Pick<ConversationState, 'verifiedVisitor'>, visitor: VerifiedVisitor | null) =>
  !state.verifiedVisitor || state.verifiedVisitor.userId === visitor?.userId;
