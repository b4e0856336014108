import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { changeStage, closeConversation, pauseConversation, reopenConversation, resumeConversation, sendOperatorMessage } from '../../commands/conversations/manageConversation.js';
import { conversationStream } from '../../domain/conversations/decider.js';
import { platformIdSchema } from '../../domain/platformId.js';
import { customerIdFor } from '../../domain/customers/customerId.js';
import { CONVERSATIONS, MESSAGES, type ConversationDoc, type MessageDoc } from '../../projections/conversations/conversationsProjection.js';
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
});
const contextSchema = z.object({
  transfers: z.array(z.object({ dialogId: platformIdSchema.nullable(), requestId: platformIdSchema.nullable(), at: z.string() })),
  notes: z.array(z.string()),
});

export const conversationView = (d: ConversationDoc): z.infer<typeof conversationSchema> => ({
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
});

const MESSAGES_SHOWN = 500;

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

  return async (app) => {
    app.addHook('onRequest', authenticator(services));

    app.get(
      '/api/conversations',
      {
        schema: {
          tags: ['conversations'],
          security,
          querystring: listQuery.extend({
            state: sessionState.optional(),
            integrationId: z.coerce.number().int().positive().optional(),
            stageId: z.uuid().optional(),
          }),
          response: { 200: z.object({ conversations: z.array(conversationSchema), nextCursor: z.string().nullable() }), ...errorResponses },
        },
      },
      async (request) => {
        const q = request.query;
        const page = await services.readStore.find<ConversationDoc>(CONVERSATIONS, {
          where: {
            companyId: authOf(request).companyId,
            ...(q.state ? { sessionState: q.state } : {}),
            ...(q.integrationId !== undefined ? { integrationId: q.integrationId } : {}),
            ...(q.stageId ? { stageId: q.stageId } : {}),
          },
          orderBy: [{ field: 'lastMessageAt', direction: 'desc' }],
          limit: q.limit,
          cursor: q.cursor,
        });
        return { conversations: page.items.map(conversationView), nextCursor: page.nextCursor };
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
        const doc = await owned(authOf(request).companyId, request.params.id);
        const page = await services.readStore.find<MessageDoc>(MESSAGES, {
          where: { conversationId: doc.id },
          orderBy: [{ field: 'seq', direction: 'desc' }],
          limit: MESSAGES_SHOWN,
        });
        return { conversation: conversationView(doc), messages: page.items.reverse().map(messageView), context: doc.context };
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
      ['close', closeConversation],
      ['reopen', reopenConversation],
    ] as const) {
      app.post(
        `/api/conversations/:id/${action}`,
        { schema: { tags: ['conversations'], security, params, response: { 200: one, ...errorResponses, 409: errorResponses[400] } } },
        async (request) => {
          const auth = authOf(request);
          await owned(auth.companyId, request.params.id);
          const result = await run(services.commands, auth, request.params.id);
          await services.waitForProjections(result.position);
          return { conversation: conversationView(await owned(auth.companyId, request.params.id)) };
        },
      );
    }

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
        return { conversation: conversationView(await owned(auth.companyId, request.params.id)) };
      },
    );
  };
}
