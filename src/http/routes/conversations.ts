import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  assignConversation,
  changeStage,
  closeConversation,
  markConversationRead,
  pauseConversation,
  reopenConversation,
  resumeConversation,
  sendOperatorMessage,
  unassignConversation,
} from '../../commands/conversations/manageConversation.js';
import { answerProvenanceSchema } from '../../domain/answers/provenance.js';
import { conversationStream } from '../../domain/conversations/decider.js';
import { handoffReason } from '../../domain/conversations/handoff.js';
import { platformIdSchema } from '../../domain/platformId.js';
import { customerIdFor } from '../../domain/customers/customerId.js';
import { CONVERSATION_READS, conversationReadId, unreadFor, type ConversationReadDoc } from '../../projections/conversations/conversationReadsProjection.js';
import { CONVERSATIONS, MESSAGES, type ConversationDoc, type MessageDoc } from '../../projections/conversations/conversationsProjection.js';
import type { FindQuery, ReadStore } from '../../ports/readStore.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { errorResponses, listQuery } from './schemas.js';
import { customerDisplayName } from '../../domain/conversations/customerName.js';

const sessionState = z.enum(['active', 'paused', 'closed']);

export const conversationSchema = z.object({
  id: z.uuid(),
  integrationId: z.number().int(),
  connectorType: z.enum(['msgplatform', 'webchat']),
  customer: z.object({
    clientId: platformIdSchema,
    channelId: platformIdSchema.nullable(),
    transport: z.string(),
    name: z.string().optional(),
    displayName: z.string().describe('how to name the customer: the name they gave, "Visitor 4F2A" for a web chat visitor, else "Client <clientId>"'),
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
  /** Set while a customer waits for a human ("Needs human"): why, and since when they wait. */
  handoff: z
    .object({
      reason: handoffReason,
      detail: z.string().nullable(),
      since: z.string(),
    })
    .nullable(),
  /** How it was resolved, while it stays closed. */
  resolution: z.string().nullable(),
  /** Customer messages the caller has not seen (since they last opened it). */
  unread: z.number().int().min(0),
});
export const messageSchema = z.object({
  id: z.string(),
  author: z.enum(['customer', 'agent', 'operator', 'system']),
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
});
const contextSchema = z.object({
  transfers: z.array(z.object({ dialogId: platformIdSchema.nullable(), requestId: platformIdSchema.nullable(), at: z.string() })),
  notes: z.array(z.string()),
});

export const conversationView = (d: ConversationDoc, read: Pick<ConversationReadDoc, 'customerMessages'> | null = null): z.infer<typeof conversationSchema> => ({
  id: d.id,
  integrationId: d.integrationId,
  connectorType: d.connectorType,
  // Documents projected before customerName existed are named the same way until the next rebuild.
  customer: { ...d.customer, displayName: d.customerName ?? customerDisplayName(d.connectorType, d.customer) },
  session: d.session,
  stageId: d.stageId,
  lastMessageAt: d.lastMessageAt,
  messageCount: d.messageCount,
  createdAt: d.createdAt,
  unansweredReason: d.unansweredReason,
  customerId: customerIdFor(d.integrationId, d.customer.clientId),
  assigneeId: d.assigneeId ?? null,
  handoff: d.handoff ?? null,
  resolution: d.resolution ?? null,
  unread: unreadFor(d, read),
});
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
});

const MESSAGES_SHOWN = 500;
/** Unread counts per view look at this many of the view's conversations at most (the rest: `unreadCapped`). */
const VIEW_UNREAD_SCAN = 200;

/** The inbox views, each an equality filter on an indexed field of the read model (no scan of history). */
const viewName = z.enum(['mine', 'unassigned', 'needs_human']);
type ViewName = z.infer<typeof viewName>;
function viewQuery(view: ViewName, companyId: string, userId: string): Pick<FindQuery, 'where' | 'orderBy'> {
  switch (view) {
    case 'mine':
      return { where: { companyId, openAssignee: userId }, orderBy: [{ field: 'lastMessageAt', direction: 'desc' }] };
    case 'unassigned':
      return { where: { companyId, openAssignee: '' }, orderBy: [{ field: 'lastMessageAt', direction: 'desc' }] };
    case 'needs_human':
      // A queue: whoever has waited longest comes first.
      return { where: { companyId, needsHuman: true }, orderBy: [{ field: 'handoffSince', direction: 'asc' }] };
  }
}

/** The caller's read markers of these conversations (one lookup per listed conversation: bounded by the page). */
async function readsOf(readStore: ReadStore, userId: string, docs: ConversationDoc[]) {
  const reads = await Promise.all(docs.map((d) => readStore.get<ConversationReadDoc>(CONVERSATION_READS, conversationReadId(d.id, userId))));
  return new Map(docs.map((d, i) => [d.id, reads[i] ?? null]));
}

export function conversationRoutes(services: HttpServices): FastifyPluginAsyncZod {
  const owned = async (companyId: string, id: string) => {
    if (!z.uuid().safeParse(id).success) throw notFound('Conversation');
    const doc = await services.readStore.get<ConversationDoc>(CONVERSATIONS, id);
    if (!doc || doc.companyId !== companyId) throw notFound('Conversation');
    return doc;
  };
  const params = z.object({ id: z.string().max(64) });
  const security = [{ bearer: [] }];
  const one = z.object({ conversation: conversationSchema });
  /** The conversation as the caller sees it (with their unread count), read after the write settled. */
  const viewFor = async (auth: { companyId: string; userId: string }, id: string) => {
    const doc = await owned(auth.companyId, id);
    return conversationView(doc, await services.readStore.get<ConversationReadDoc>(CONVERSATION_READS, conversationReadId(doc.id, auth.userId)));
  };
  const viewCount = z.object({ count: z.number().int(), unread: z.number().int(), unreadCapped: z.boolean() });

  return async (app) => {
    app.addHook('onRequest', authenticator(services));

    app.get(
      '/api/conversations',
      {
        schema: {
          tags: ['conversations'],
          security,
          description:
            'Newest activity first. `view`: `mine` (open, assigned to the caller), `unassigned` (open, no owner), `needs_human` (a customer waits for a human after a handoff; longest waiting first). Combines with the other filters; keyset-paginated by `cursor`.',
          querystring: listQuery.extend({
            view: viewName.optional(),
            state: sessionState.optional(),
            integrationId: z.coerce.number().int().positive().optional(),
            stageId: z.uuid().optional(),
          }),
          response: { 200: z.object({ conversations: z.array(conversationSchema), nextCursor: z.string().nullable() }), ...errorResponses },
        },
      },
      async (request) => {
        const q = request.query;
        const auth = authOf(request);
        const view = q.view ? viewQuery(q.view, auth.companyId, auth.userId) : null;
        const page = await services.readStore.find<ConversationDoc>(CONVERSATIONS, {
          where: {
            ...view?.where,
            companyId: auth.companyId,
            ...(q.state ? { sessionState: q.state } : {}),
            ...(q.integrationId !== undefined ? { integrationId: q.integrationId } : {}),
            ...(q.stageId ? { stageId: q.stageId } : {}),
          },
          orderBy: view?.orderBy ?? [{ field: 'lastMessageAt', direction: 'desc' }],
          limit: q.limit,
          cursor: q.cursor,
        });
        const reads = await readsOf(services.readStore, auth.userId, page.items);
        return { conversations: page.items.map((d) => conversationView(d, reads.get(d.id))), nextCursor: page.nextCursor };
      },
    );

    app.get(
      '/api/conversations/views',
      {
        schema: {
          tags: ['conversations'],
          summary: 'The inbox views with their counts',
          description:
            'For each view (`mine`, `unassigned`, `needs_human`): how many conversations it holds, and how many of them have customer messages the caller has not read (counted over the view\'s first 200; `unreadCapped` when it holds more).',
          security,
          response: { 200: z.object({ views: z.object({ mine: viewCount, unassigned: viewCount, needs_human: viewCount }) }), ...errorResponses },
        },
      },
      async (request) => {
        const auth = authOf(request);
        const countView = async (view: ViewName) => {
          const query = viewQuery(view, auth.companyId, auth.userId);
          const [count, page] = await Promise.all([
            services.readStore.count(CONVERSATIONS, query.where),
            services.readStore.find<ConversationDoc>(CONVERSATIONS, { ...query, limit: VIEW_UNREAD_SCAN }),
          ]);
          const reads = await readsOf(services.readStore, auth.userId, page.items);
          const unread = page.items.filter((d) => unreadFor(d, reads.get(d.id) ?? null) > 0).length;
          return { count, unread, unreadCapped: page.nextCursor !== null };
        };
        const [mine, unassigned, needsHuman] = await Promise.all([countView('mine'), countView('unassigned'), countView('needs_human')]);
        return { views: { mine, unassigned, needs_human: needsHuman } };
      },
    );

    app.get(
      '/api/conversations/:id',
      {
        schema: {
          tags: ['conversations'],
          security,
          params,
          response: { 200: z.object({ conversation: conversationSchema, messages: z.array(messageSchema), context: contextSchema }), ...errorResponses },
        },
      },
      async (request) => {
        const auth = authOf(request);
        const doc = await owned(auth.companyId, request.params.id);
        const read = await services.readStore.get<ConversationReadDoc>(CONVERSATION_READS, conversationReadId(doc.id, auth.userId));
        const page = await services.readStore.find<MessageDoc>(MESSAGES, {
          where: { conversationId: doc.id },
          orderBy: [{ field: 'seq', direction: 'desc' }],
          limit: MESSAGES_SHOWN,
        });
        return { conversation: conversationView(doc, read), messages: page.items.reverse().map(messageView), context: doc.context };
      },
    );

    app.get(
      '/api/conversations/:id/events',
      {
        schema: {
          tags: ['conversations'],
          description: 'The audit replay: every event of the conversation stream, in order.',
          security,
          params,
          response: {
            200: z.object({ events: z.array(z.object({ position: z.string(), revision: z.string(), type: z.string(), data: z.unknown(), createdAt: z.string() })) }),
            ...errorResponses,
          },
        },
      },
      async (request) => {
        const doc = await owned(authOf(request).companyId, request.params.id);
        const events = await services.commands.eventStore.readStream(conversationStream(doc.id));
        // Positions and revisions are 64-bit: strings in JSON so no precision is lost.
        return { events: events.map((e) => ({ position: String(e.position), revision: String(e.revision), type: e.type, data: e.data, createdAt: e.createdAt })) };
      },
    );

    for (const [action, run] of [
      ['pause', pauseConversation],
      ['resume', resumeConversation],
      ['reopen', reopenConversation],
      ['unassign', unassignConversation],
    ] as const) {
      app.post(
        `/api/conversations/:id/${action}`,
        { schema: { tags: ['conversations'], security, params, response: { 200: one, ...errorResponses, 409: errorResponses[400] } } },
        async (request) => {
          const auth = authOf(request);
          await owned(auth.companyId, request.params.id);
          const result = await run(services.commands, auth, request.params.id);
          await services.waitForProjections(result.position);
          return { conversation: await viewFor(auth, request.params.id) };
        },
      );
    }

    app.post(
      '/api/conversations/:id/close',
      {
        schema: {
          tags: ['conversations'],
          description: 'Closes the AI session; with a `resolution`, resolves the conversation (the note is kept on it and in its history). The body is optional.',
          security,
          params,
          body: z.strictObject({ resolution: z.string().trim().min(1).max(500).optional() }).nullish(),
          response: { 200: one, ...errorResponses, 409: errorResponses[400] },
        },
      },
      async (request) => {
        const auth = authOf(request);
        await owned(auth.companyId, request.params.id);
        const result = await closeConversation(services.commands, auth, request.params.id, request.body?.resolution);
        await services.waitForProjections(result.position);
        return { conversation: await viewFor(auth, request.params.id) };
      },
    );

    app.post(
      '/api/conversations/:id/assign',
      {
        schema: {
          tags: ['conversations'],
          description: 'Gives the conversation to a teammate: a user of the same company (anyone else: 400). Assigning the current owner again changes nothing.',
          security,
          params,
          body: z.strictObject({ assigneeId: z.uuid() }),
          response: { 200: one, ...errorResponses, 409: errorResponses[400] },
        },
      },
      async (request) => {
        const auth = authOf(request);
        await owned(auth.companyId, request.params.id);
        const result = await assignConversation(services.commands, auth, request.params.id, request.body.assigneeId);
        await services.waitForProjections(result.position);
        return { conversation: await viewFor(auth, request.params.id) };
      },
    );

    app.post(
      '/api/conversations/:id/read',
      {
        schema: {
          tags: ['conversations'],
          description: "Marks the conversation read by the caller (the dashboard calls it when a teammate opens it): its `unread` becomes 0 for them. Records something only when there was something unread.",
          security,
          params,
          response: { 200: one, ...errorResponses },
        },
      },
      async (request) => {
        const auth = authOf(request);
        const doc = await owned(auth.companyId, request.params.id);
        const result = await markConversationRead(services.commands, auth, doc.id, doc.customerMessageCount ?? 0);
        await services.waitForProjections(result.position);
        return { conversation: await viewFor(auth, doc.id) };
      },
    );

    app.post(
      '/api/conversations/:id/messages',
      {
        schema: {
          tags: ['conversations'],
          description: 'An operator message, sent to the customer through the channel. The AI session is paused.',
          security,
          params,
          body: z.strictObject({ text: z.string().trim().min(1).max(4096) }),
          response: { 202: z.object({ message: messageSchema }), ...errorResponses },
        },
      },
      async (request, reply) => {
        const auth = authOf(request);
        await owned(auth.companyId, request.params.id);
        const result = await sendOperatorMessage(services.commands, auth, request.params.id, request.body.text);
        await services.waitForProjections(result.position);
        const message = await services.readStore.get<MessageDoc>(MESSAGES, result.messageId);
        if (!message) throw notFound('Message');
        return reply.status(202).send({ message: messageView(message) });
      },
    );

    app.put(
      '/api/conversations/:id/stage',
      { schema: { tags: ['conversations'], security, params, body: z.strictObject({ stageId: z.uuid() }), response: { 200: one, ...errorResponses } } },
      async (request) => {
        const auth = authOf(request);
        await owned(auth.companyId, request.params.id);
        const result = await changeStage(services.commands, auth, request.params.id, request.body.stageId);
        await services.waitForProjections(result.position);
        return { conversation: await viewFor(auth, request.params.id) };
      },
    );
  };
}
