import { z } from 'zod';
import { answerProvenanceSchema } from '../../domain/answers/provenance.js';
import { customerDisplayName, handoffReason } from '../../domain/conversations/state.js';
import { customerIdFor } from '../../domain/customers/decider.js';
import { platformIdSchema } from '../../domain/platformId.js';
import { unreadFor, type ConversationReadDoc } from '../../projections/conversations/conversationReadsProjection.js';
import type { ConversationDoc, MessageDoc } from '../../projections/conversations/conversationsProjection.js';
import { INBOX_VIEWS } from '../../projections/conversations/queries.js';
import { DEFAULT_PRIORITY, priority } from '../../domain/conversations/triage.js';
import type { SlaConversationDoc } from '../../projections/sla/slaProjection.js';
import { bearerSecurity as security, errorResponses, idempotencyKeyHeaders, listQuery } from './schemas.js';

const sessionState = z.enum(['active', 'paused', 'closed']);

export const pendingActionSchema = z.object({
  callId: z.uuid(),
  actionId: z.uuid(),
  actionName: z.string(),
  mode: z.enum(['confirm', 'approve']),
  arguments: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).describe('as recorded: identity values replaced by their source, long strings cut'),
  expiresAt: z.string(),
  approverRoles: z.array(z.string()).nullable().describe('approve: the roles that may decide; null: any teammate'),
  holdingReply: z.string().nullable(),
  prompt: z.string().nullable().describe('confirm: the question the customer was asked'),
  requestedAt: z.string(),
  askedAt: z.string(),
});

const slaView = z
  .object({
    response: z.object({ kind: z.enum(['firstResponse', 'nextResponse']), dueAt: z.string() }).nullable(),
    resolution: z.object({ dueAt: z.string() }).nullable(),
  })
  .nullable();

export const conversationSchema = z.object({
  id: z.uuid(),
  integrationId: z.number().int(),
  connectorType: z.enum(['msgplatform', 'webchat']),
  customer: z.object({
    clientId: platformIdSchema,
    channelId: platformIdSchema.nullable(),
    transport: z.string(),
    name: z.string().optional(),
    displayName: z.string().describe('how to name the customer, the same everywhere: the name they gave, else a readable name generated from their customer id ("Amber Otter"), never the raw id'),
  }),
  session: z.object({ id: z.uuid(), state: sessionState, pausedReason: z.string().optional() }).nullable(),
  stageId: z.uuid().nullable(),
  lastMessageAt: z.string(),
  messageCount: z.number().int(),
  createdAt: z.string(),
  unansweredReason: z.string().nullable(),
  /** The customer's profile: GET /api/customers/:customerId. */
  customerId: z.uuid(),
  /** The teammate (user id) who owns it; null: unassigned. */
  assigneeId: z.uuid().nullable(),
  /** The support team it is for (routing, or a teammate); null: none. */
  teamId: z.uuid().nullable(),
  /** Set while a customer waits for a human ("Needs human"): why, and since when they wait. */
  handoff: z
    .object({
      reason: handoffReason,
      detail: z.string().nullable(),
      since: z.string(),
      /** Handed off outside business hours: when people are back (the queue shows it as "after hours"). Absent in hours. */
      backAt: z.string().optional(),
    })
    .nullable(),
  /** How it was resolved, while it stays closed. */
  resolution: z.string().nullable(),
  /** The note for whoever takes over the current handoff: what the customer wants, what the AI tried, its sources, why. */
  handoffSummary: z
    .object({
      wants: z.string(),
      tried: z.string(),
      sources: z.array(z.object({ documentId: z.string(), title: z.string() })),
      why: z.string(),
      writtenBy: z.enum(['llm', 'extractive']).describe('llm: written by the company\'s model (charged); extractive: taken from the messages'),
      at: z.string(),
    })
    .nullable(),
  /** Customer messages the caller has not seen (since they last opened it). */
  unread: z.number().int().min(0),
  lastMessage: z
    .object({ author: z.enum(['customer', 'agent', 'operator']), text: z.string() })
    .nullable()
    .describe('the newest message for the inbox row: who wrote it and its first 160 characters (null before the first message)'),
  pendingAction: pendingActionSchema
    .nullable()
    .describe("the action call waiting for the customer's yes (confirm) or a teammate's approval (approve): what it will call, with the redacted arguments; null when none waits"),
  priority: priority.describe('urgent, high, normal (the default) or low: what SLA targets key on'),
  sla: slaView.describe('the running SLA clocks (targets of the company\'s SLA policy for this priority, in business hours): the response (first or next) and resolution due times; null when none runs'),
  snoozedUntil: z.string().nullable().describe('while snoozed: when it comes back to the open queues (a customer message brings it back sooner); null: not snoozed'),
});
export const messageSchema = z.object({
  id: z.string(),
  author: z.enum(['customer', 'agent', 'operator', 'system', 'note']).describe('note: a teammate\'s internal note, for the team only (never sent to the customer)'),
  text: z.string(),
  createdAt: z.string(),
  delivery: z.enum(['received', 'pending', 'sent', 'failed']),
  deliveryError: z.string().nullable(),
  /** Where a sent message went; `sandbox`: the integration has no platform apiUrl, so it was kept here and sent nowhere. */
  deliveredTo: z.enum(['platform', 'webchat', 'sandbox']).nullable(),
  attachments: z.array(z.unknown()),
  /** AI replies only (null on other messages): the model that answered, its token counts and what produced the answer. */
  model: z.string().nullable(),
  inputTokens: z.number().int().nullable(),
  outputTokens: z.number().int().nullable(),
  provenance: answerProvenanceSchema.nullable().describe('AI replies: the knowledge-base passages used, latency and cost; null on other messages and on replies stored before it was recorded'),
  agentId: z.string().nullable().describe('AI replies: the agent that wrote it (what a test case made from the conversation belongs to); null on other messages'),
  agentVersion: z.number().int().nullable().describe('AI replies: the agent version that wrote it; null on other messages and on replies stored before versions'),
  experiment: z
    .object({ experimentId: z.string(), arm: z.enum(['a', 'b', 'holdout']) })
    .nullable()
    .describe('AI replies written in an experiment: which one and which arm (holdout: the handoff that sent it to people); null otherwise'),
  note: z
    .object({ authorId: z.string(), mentions: z.array(z.string()) })
    .nullable()
    .describe('internal notes: the teammate who wrote it and the teammates its @names mention; null on other messages'),
});
const contextSchema = z.object({
  transfers: z.array(z.object({ dialogId: platformIdSchema.nullable(), requestId: platformIdSchema.nullable(), at: z.string() })),
  notes: z.array(z.string()),
});

export const conversationView = (d: ConversationDoc, read: Pick<ConversationReadDoc, 'customerMessages'> | null = null, sla: Pick<SlaConversationDoc, 'response' | 'resolution'> | null = null): z.infer<typeof conversationSchema> => ({
  id: d.id,
  integrationId: d.integrationId,
  connectorType: d.connectorType,
  // Documents projected before customerName existed are named the same way until the next rebuild.
  customer: { ...d.customer, displayName: d.customerName ?? customerDisplayName(d.integrationId, d.customer) },
  session: d.session,
  stageId: d.stageId,
  lastMessageAt: d.lastMessageAt,
  messageCount: d.messageCount,
  createdAt: d.createdAt,
  unansweredReason: d.unansweredReason,
  customerId: customerIdFor(d.integrationId, d.customer.clientId),
  assigneeId: d.assigneeId ?? null,
  teamId: d.teamId ?? null,
  handoff: d.handoff ?? null,
  resolution: d.resolution ?? null,
  handoffSummary: handoffSummaryView(d),
  unread: unreadFor(d, read),
  lastMessage: d.lastMessage ?? null,
  pendingAction: d.pendingAction ?? null,
  priority: d.priority ?? DEFAULT_PRIORITY,
  snoozedUntil: d.snoozedUntil ?? null,
  sla: sla && (sla.response || sla.resolution) ? { response: sla.response && sla.response.kind !== 'resolution' ? { kind: sla.response.kind, dueAt: sla.response.dueAt } : null, resolution: sla.resolution } : null,
});
/** Shown only with the handoff it summarises (documents written before summaries existed have none). */
const handoffSummaryView = (d: ConversationDoc): z.infer<typeof conversationSchema>['handoffSummary'] => {
  const s = d.handoffSummary;
  return s && d.handoff && s.since === d.handoff.since ? { wants: s.wants, tried: s.tried, sources: s.sources, why: s.why, writtenBy: s.writtenBy, at: s.at } : null;
};

export const messageView = (m: MessageDoc): z.infer<typeof messageSchema> => ({
  id: m.id,
  author: m.author,
  text: m.text,
  createdAt: m.createdAt,
  delivery: m.delivery,
  deliveryError: m.deliveryError,
  deliveredTo: m.deliveredTo ?? null,
  attachments: m.attachments,
  model: m.answer?.model ?? null,
  inputTokens: m.answer?.inputTokens ?? null,
  outputTokens: m.answer?.outputTokens ?? null,
  provenance: m.answer?.provenance ?? null,
  agentId: m.answer?.agentId ?? null,
  agentVersion: m.answer?.agentVersion ?? null,
  experiment: m.answer?.experiment ?? null,
  note: m.note ?? null,
});

const params = z.object({ id: z.string().max(64) });
const one = z.object({ conversation: conversationSchema });
const viewCount = z.object({ count: z.number().int(), unread: z.number().int(), unreadCapped: z.boolean() });

export const listConversationsSchema = {
  tags: ['conversations'],
  security,
  description:
    'Newest activity first. `view`: `mine` (open, assigned to the caller), `unassigned` (open, no owner), `needs_human` (a customer waits for a human after a handoff; longest waiting first), `snoozed` (put aside until a time; soonest back first — a snoozed conversation is in none of the other three). Combines with the other filters; keyset-paginated by `cursor`. `teamId`: the conversations of one support team (see /api/teams), with a view or alone (400 with `state`, `integrationId` or `stageId`).',
  querystring: listQuery.extend({
    view: z.enum(INBOX_VIEWS).optional(),
    state: sessionState.optional(),
    integrationId: z.coerce.number().int().positive().optional(),
    stageId: z.uuid().optional(),
    /** A support team's conversations (GET /api/teams): combines with `view`, not with the other filters. */
    teamId: z.uuid().optional(),
  }),
  response: { 200: z.object({ conversations: z.array(conversationSchema), nextCursor: z.string().nullable() }), ...errorResponses },
};

export const inboxViewsSchema = {
  tags: ['conversations'],
  summary: 'The inbox views with their counts',
  description:
    'For each view (`mine`, `unassigned`, `needs_human`, `snoozed`): how many conversations it holds, and how many of them have customer messages the caller has not read (counted over the view\'s first 200; `unreadCapped` when it holds more).',
  security,
  response: { 200: z.object({ views: z.object({ mine: viewCount, unassigned: viewCount, needs_human: viewCount, snoozed: viewCount }) }), ...errorResponses },
};

export const getConversationSchema = {
  tags: ['conversations'],
  security,
  params,
  response: { 200: z.object({ conversation: conversationSchema, messages: z.array(messageSchema), context: contextSchema }), ...errorResponses },
};

export const conversationEventsSchema = {
  tags: ['conversations'],
  description: 'The audit replay: every event of the conversation stream, in order.',
  security,
  params,
  response: {
    200: z.object({ events: z.array(z.object({ position: z.string(), revision: z.string(), type: z.string(), data: z.unknown(), createdAt: z.string() })) }),
    ...errorResponses,
  },
};

/** pause, resume, reopen, unassign: no body, the conversation back. */
export const conversationActionSchema = () => ({ tags: ['conversations'], security, params, response: { 200: one, ...errorResponses, 409: errorResponses[400] } });

export const closeConversationSchema = {
  tags: ['conversations'],
  description: 'Closes the AI session; with a `resolution`, resolves the conversation (the note is kept on it and in its history). The body is optional.',
  security,
  params,
  body: z.strictObject({ resolution: z.string().trim().min(1).max(500).optional() }).nullish(),
  response: { 200: one, ...errorResponses, 409: errorResponses[400] },
};

export const assignConversationSchema = {
  tags: ['conversations'],
  description: 'Gives the conversation to a teammate: a user of the same company (anyone else: 400). Assigning the current owner again changes nothing.',
  security,
  params,
  body: z.strictObject({ assigneeId: z.uuid() }),
  response: { 200: one, ...errorResponses, 409: errorResponses[400] },
};

export const setConversationTeamSchema = {
  tags: ['conversations'],
  description: 'Puts the conversation in one of the company\'s support teams (GET /api/teams), or in none (null); another company\'s team: 400. Every role, like assigning. The same team again changes nothing.',
  security,
  params,
  body: z.strictObject({ teamId: z.uuid().nullable() }),
  response: { 200: one, ...errorResponses },
};

export const markReadSchema = {
  tags: ['conversations'],
  description: "Marks the conversation read by the caller (the dashboard calls it when a teammate opens it): its `unread` becomes 0 for them. Records something only when there was something unread.",
  security,
  params,
  response: { 200: one, ...errorResponses },
};

export const operatorMessageSchema = {
  tags: ['conversations'],
  description: 'An operator message, sent to the customer through the channel. The AI session is paused.',
  security,
  headers: idempotencyKeyHeaders,
  params,
  body: z.strictObject({ text: z.string().trim().min(1).max(4096) }),
  response: { 202: z.object({ message: messageSchema }), ...errorResponses },
};

export const changeStageSchema = { tags: ['conversations'], security, params, body: z.strictObject({ stageId: z.uuid() }), response: { 200: one, ...errorResponses } };

const callParams = z.object({ id: z.string().max(64), callId: z.string().max(64) });

export const approveActionCallSchema = {
  tags: ['conversations'],
  summary: "Approves the conversation's pending action call",
  description:
    'Any teammate, unless the action names the roles that decide (403 otherwise). Only the pending `approve` call can be decided: approving it again is a no-op (200), after a refusal or its expiry 409; a call waiting for the customer\'s confirmation 409. Another company\'s conversation or call: 404.',
  security,
  params: callParams,
  response: { 200: one, ...errorResponses, 409: errorResponses[400] },
};

export const refuseActionCallSchema = {
  tags: ['conversations'],
  summary: "Refuses the conversation's pending action call",
  description: 'Like approve; `reason` (optional, up to 500 characters) is recorded with the refusal. Refusing it again is a no-op, after an approval or its expiry 409.',
  security,
  params: callParams,
  body: z.strictObject({ reason: z.string().trim().max(500).optional() }).nullish(),
  response: { 200: one, ...errorResponses, 409: errorResponses[400] },
};
