import { z } from 'zod';
import type { WebhookLogEntry } from '../platformWebhooks/events.js';
import { platformIdSchema } from '../platformId.js';
import { answerProvenanceSchema, handoffCause } from '../answers/provenance.js';
import { CSAT_COMMENT_MAX_LENGTH, csatRating, csatVia } from './csat.js';
import { actionCallEvents } from './actionCalls.js';
import { triageEvents } from './triage.js';
import { experimentAssignment } from '../agents/experiments.js';

const at = z.iso.datetime();
const json = z.json();

export const customerSchema = z.object({
  clientId: platformIdSchema,
  channelId: platformIdSchema.nullable(),
  transport: z.string().max(64),
  name: z.string().max(1024).optional(),
});

export const pausedReason = z.enum([
  'api',
  'operator_message',
  'credits_exhausted',
  'dialog_transferred',
  'handoff',
]);
export type PausedReason = z.infer<typeof pausedReason>;

export const deliveredTo = z.enum(['platform', 'webchat', 'sandbox']);
export type DeliveredTo = z.infer<typeof deliveredTo>;

export const platformRefs = z.object({
  messageId: platformIdSchema.optional(),
  requestId: platformIdSchema.optional(),
  dialogId: platformIdSchema.optional(),
  eventTime: z.union([z.string(), z.number()]).optional(),
});

/** Why a conversation got its owner: a teammate chose (manual), or automatic assignment (auto). */
export const assignmentReason = z.enum(['manual', 'auto']);
export type AssignmentReason = z.infer<typeof assignmentReason>;
/** Limits of a handoff summary: short enough to read at a glance in the queue. */
export const HANDOFF_SUMMARY_LIMITS = { text: 600, why: 500, sources: 10, title: 300 } as const;

export const handoffSummarySchema = z.object({
  /** What the customer wants, in a sentence or two. */
  wants: z.string().max(HANDOFF_SUMMARY_LIMITS.text),
  /** What the AI tried (its answers), or that it did not answer. */
  tried: z.string().max(HANDOFF_SUMMARY_LIMITS.text),
  /** The knowledge-base documents the AI's answers drew from. */
  sources: z.array(z.object({ documentId: z.string().max(100), title: z.string().max(HANDOFF_SUMMARY_LIMITS.title) })).max(HANDOFF_SUMMARY_LIMITS.sources),
  /** Why it was handed off, in plain words. */
  why: z.string().max(HANDOFF_SUMMARY_LIMITS.why),
});
export type HandoffSummary = z.infer<typeof handoffSummarySchema>;

/** Limits of an internal note: a few paragraphs, and a handful of teammates mentioned. */
export const NOTE_LIMITS = { text: 4000, mentions: 20 } as const;

export const conversationEvents = {
  ConversationStarted: z.object({
    conversationId: z.uuid(),
    companyId: z.uuid(),
    integrationId: z.number().int().positive(),
    connectorType: z.enum(['msgplatform', 'webchat']),
    customer: customerSchema,
    stageId: z.uuid().nullable(),
    at,
  }),
  MessageReceived: z.object({
    messageId: z.uuid(),
    /** Dedupe key of the delivery (`msg:` + a platform message id of up to 256 characters, or a body hash) and until when it counts; null = forever. */
    dedupeKey: z.string().max(300),
    dedupeUntil: at.nullable(),
    text: z.string().max(65_536),
    attachments: z.array(json).max(50).optional(),
    client: z.record(z.string(), json).optional(),
    platform: platformRefs,
    clientMessageId: z.string().max(100).optional(),
    at,
  }),
  OperatorMessageRecorded: z.object({
    messageId: z.uuid(),
    dedupeKey: z.string().max(300),
    dedupeUntil: at.nullable(),
    text: z.string().max(65_536),
    attachments: z.array(json).max(50).optional(),
    platform: platformRefs,
    at,
  }),
  AiSessionOpened: z.object({ sessionId: z.uuid(), at }),
  AiSessionPaused: z.object({
    sessionId: z.uuid(),
    reason: pausedReason,
    by: z.string().max(100).nullable(),
    /** A handoff outside business hours: when people are back (absent in hours, and on older events). */
    backAt: at.optional(),
    at,
  }),
  AiSessionResumed: z.object({ sessionId: z.uuid(), by: z.string().max(100).nullable(), at }),
  AiSessionClosed: z.object({
    sessionId: z.uuid(),
    reason: z.enum(['close_dialog', 'close_request', 'api']),
    action: z.literal('session_close'),
    by: z.string().max(100).nullable(),
    /** How an operator resolved the conversation when closing it (absent: closed without a note, or by the platform). */
    resolution: z.string().min(1).max(500).optional(),
    at,
  }),
  /** An operator reopened a closed conversation: a new AI session starts, active, without waiting for the customer. */
  ConversationReopened: z.object({ sessionId: z.uuid(), previousSessionId: z.uuid(), by: z.string().max(100).nullable(), at }),
  DialogTransferred: z.object({
    action: z.literal('session_transfer_external'),
    dialogId: platformIdSchema.nullable(),
    requestId: platformIdSchema.nullable(),
    at,
  }),
  StageChanged: z.object({ stageId: z.uuid(), by: z.string().max(100).nullable(), at }),
  AgentReplied: z.object({
    messageId: z.uuid(),
    sessionId: z.uuid(),
    agentId: z.uuid().nullable(),
    text: z.string().max(65_536),
    inReplyTo: z.array(z.uuid()).min(1),
    model: z.string().max(200),
    inputTokens: z.number().int().min(0),
    outputTokens: z.number().int().min(0),
    handoff: z.boolean(),
    /** Why the model handed off, in its own words (untrusted plain text); absent when it gave none or on older events. */
    handoffReason: z.string().max(500).optional(),
    /** Set when the answerer handed off for want of a confident answer (handoffReason, state.ts); absent: the model's own handoff. */
    handoffCause: handoffCause.optional(),
    /** What produced the answer (sources, latency, cost). Absent on replies stored before it was recorded. */
    provenance: answerProvenanceSchema.optional(),
    /** The agent version that wrote it (the published one at the time); absent on replies stored before versions. */
    agentVersion: z.number().int().min(1).optional(),
    /** A handoff outside business hours: when people are back, as the reply told the customer (absent in hours). */
    backAt: at.optional(),
    /**
     * Not the model's answer: the agent's handoff message, sent because the model failed (the MessagesUnanswered
     * before it says why), so the customer is never left in silence. Costs nothing; absent on every real answer.
     */
    aiFailed: z.literal(true).optional(),
    /** Written in an experiment: which one and which arm (`holdout`: the handoff that sends it to people). Absent otherwise. */
    experiment: z.object({ experimentId: z.uuid(), arm: experimentAssignment }).optional(),
    at,
  }),
  OperatorMessageSent: z.object({ messageId: z.uuid(), text: z.string().min(1).max(65_536), by: z.string().max(100), at }),
  /** Recorded before each send, so a send whose outcome was lost is never repeated blindly. */
  MessageSendAttempted: z.object({ messageId: z.uuid(), attempt: z.number().int().min(1), idempotencyKey: z.string().max(200), at }),
  MessageDelivered: z.object({
    messageId: z.uuid(),
    platformMessageId: platformIdSchema.nullable(),
    /**
     * Where it went: the messaging platform, the web-chat socket, or the sandbox (an msgplatform integration
     * without an apiUrl keeps replies in the service and sends them nowhere). Absent on events stored before.
     */
    deliveredTo: deliveredTo.optional(),
    at,
  }),
  MessageDeliveryFailed: z.object({ messageId: z.uuid(), reason: z.string().max(500), attempts: z.number().int().min(1), at }),
  MessagesUnanswered: z.object({ messageIds: z.array(z.uuid()).min(1), reason: z.string().max(500), at }),
  /** The customer asked for a person: the conversation joins the "Needs human" queue. */
  HumanRequested: z.object({ messageId: z.uuid(), at }),
  /** A teammate (a user of the conversation's company) now owns the conversation. `by` is `user:<id>`. */
  /** `reason`: why (manual: a teammate chose; auto: automatic assignment of a handed-off conversation). Absent on events stored before it was recorded: manual. */
  ConversationAssigned: z.object({ assigneeId: z.uuid(), previousAssigneeId: z.uuid().nullable(), by: z.string().max(100), reason: assignmentReason.optional(), at }),
  ConversationUnassigned: z.object({ previousAssigneeId: z.uuid(), by: z.string().max(100), at }),
  /**
   * The support team (domain/supportTeams) the conversation is for now; null: the whole company again. `by`:
   * `routing` when the integration's route chose it on a handoff, else `user:<id>`. Automatic assignment then
   * picks among the team's members.
   */
  ConversationRoutedToTeam: z.object({ teamId: z.uuid().nullable(), previousTeamId: z.uuid().nullable(), by: z.string().max(100), at }),
  /**
   * The closed session's satisfaction survey went out (csat.ts), delivered like a reply under `messageId`: on the
   * platform as the message `text`, on web chat as the widget's inline form. `agentId` answered last in the
   * session (`agentVersion`: the version of it that wrote that answer, absent when unknown), `teammateId` owned
   * the conversation: who the rating is for.
   */
  CsatRequested: z.object({
    surveyId: z.uuid(),
    sessionId: z.uuid(),
    via: csatVia,
    messageId: z.uuid().optional(),
    text: z.string().max(1000).optional(),
    agentId: z.uuid().nullable(),
    agentVersion: z.number().int().min(1).optional(),
    teammateId: z.uuid().nullable(),
    at,
  }),
  /** The customer answered the survey. A platform reply read as an answer keeps its dedupe key (a redelivery is no new message). */
  CsatSubmitted: z.object({
    surveyId: z.uuid(),
    rating: csatRating,
    comment: z.string().max(CSAT_COMMENT_MAX_LENGTH).nullable(),
    via: csatVia,
    agentId: z.uuid().nullable(),
    agentVersion: z.number().int().min(1).optional(),
    teammateId: z.uuid().nullable(),
    dedupeKey: z.string().max(300).optional(),
    dedupeUntil: at.nullable().optional(),
    at,
  }),
  /**
   * A short summary for the person who takes over a handoff: written by the company's model (charged like an
   * answer, under `summaryId`) or, on the builtin provider or when the model fails, extracted from the messages.
   * `since` is the handoff it summarises (its `handoff.since`).
   */
  /**
   * The conversation joined the agent's running experiment the first time it was answered while it ran, in
   * `arm` (version null for the holdout); it keeps the arm for as long as that experiment runs. `waitingSince`:
   * when the customer began to wait for that first answer (the experiment's first-response time counts from it).
   */
  ExperimentArmAssigned: z.object({
    experimentId: z.uuid(),
    agentId: z.uuid(),
    arm: experimentAssignment,
    version: z.number().int().min(1).nullable(),
    waitingSince: at.nullable(),
    at,
  }),
  HandoffSummarized: handoffSummarySchema.extend({
    summaryId: z.uuid(),
    since: at,
    writtenBy: z.enum(['llm', 'extractive']),
    model: z.string().max(200),
    inputTokens: z.number().int().min(0),
    outputTokens: z.number().int().min(0),
    at,
  }),
  /**
   * A web-chat visitor's identity, signed by the company's own site with the integration's identity secret
   * (an HMAC over the user id, the scheme Intercom and Crisp use) and checked by the service. Actions that need
   * identity (domain/actions) take it from here, never from the model or from an unsigned claim.
   */
  CustomerIdentityVerified: z.object({ userId: z.string().min(1).max(256), email: z.string().max(320).nullable(), at }),
  /**
   * A teammate's internal note on the conversation: for the team only, never sent to the customer, and given to
   * the model only when the company chose so (noteSharing). `mentions`: the teammates its @names named, resolved
   * against the company's team when it was written (each is notified).
   */
  NoteAdded: z.object({
    noteId: z.uuid(),
    authorId: z.uuid(),
    text: z.string().min(1).max(NOTE_LIMITS.text),
    mentions: z.array(z.uuid()).max(NOTE_LIMITS.mentions),
    at,
  }),
  ...actionCallEvents,
  ...triageEvents,
};

type Events = typeof conversationEvents;
export type ConversationEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];
/**
 * What a conversation stream holds: the conversation's events, and the log entry of each webhook delivery that
 * brought one, appended in the same commit (one append per delivery). A log entry changes nothing in the state.
 */
export type ConversationStreamEvent = ConversationEvent | { type: 'WebhookDeliveryLogged'; data: WebhookLogEntry; id?: string };
export type ConversationStreamEventType = ConversationStreamEvent['type'];
/** Every event type a conversation stream may hold. */
export const conversationStreamEventTypes: readonly ConversationStreamEventType[] = [...(Object.keys(conversationEvents) as ConversationEventType[]), 'WebhookDeliveryLogged'];
export type ConversationEventType = ConversationEvent['type'];
export type Customer = z.infer<typeof customerSchema>;
export type PlatformRefs = z.infer<typeof platformRefs>;
export type { CsatVia } from './csat.js';
