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
  routeConversationToTeam,
  unassignConversation,
} from '../../commands/conversations/manageConversation.js';
import { readConversationEvents } from '../../commands/conversations/streamReads.js';
import { conversationSla } from '../../projections/sla/queries.js';
import { approveActionCall, refuseActionCall } from '../../commands/conversations/actionApprovals.js';
import {
  conversationReadOf,
  findCompanyConversation,
  findMessage,
  inboxViewCounts,
  listConversations,
  recentMessages,
} from '../../projections/conversations/queries.js';
import { authenticator, authOf, type AuthContext } from '../authenticate.js';
import { idForKey } from '../../commands/idempotentStart.js';
import { DomainError } from '../../domain/errors.js';
import { notFound } from '../errors.js';
import { idempotencyKeyOf, markRepeated } from '../idempotencyKey.js';
import type { HttpServices } from '../services.js';
import {
  approveActionCallSchema,
  assignConversationSchema,
  setConversationTeamSchema,
  changeStageSchema,
  closeConversationSchema,
  conversationActionSchema,
  conversationEventsSchema,
  conversationView,
  getConversationSchema,
  inboxViewsSchema,
  listConversationsSchema,
  markReadSchema,
  messageView,
  operatorMessageSchema,
  refuseActionCallSchema,
} from './conversations.schemas.js';
import type { ZodApp } from './zodApp.js';

/** The conversation when it is the company's; anything else (another company's, not a UUID) is 404. */
async function ownedConversation(services: HttpServices, companyId: string, id: string) {
  const doc = z.uuid().safeParse(id).success ? await findCompanyConversation(services.readStore, companyId, id) : null;
  if (!doc) throw notFound('Conversation');
  return doc;
}

/** The conversation as the caller sees it (with their unread count), read after the write settled. */
async function conversationFor(services: HttpServices, auth: Pick<AuthContext, 'companyId' | 'userId'>, id: string) {
  const doc = await ownedConversation(services, auth.companyId, id);
  const [read, sla] = await Promise.all([conversationReadOf(services.readStore, doc.id, auth.userId), conversationSla(services.readStore, doc.id)]);
  return { conversation: conversationView(doc, read, sla) };
}

/** The inbox: conversations, their views and counts, one conversation with its messages, its audit replay. */
export function conversationRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    registerInboxReads(app, services);
    registerConversationActions(app, services);
    registerConversationTeam(app, services);
    registerConversationWrites(app, services);
    registerActionApprovals(app, services);
  };
}

function registerInboxReads(app: ZodApp, services: HttpServices): void {
  app.get('/api/conversations', { schema: listConversationsSchema }, async (request) => {
    const { limit, cursor, ...filter } = request.query;
    const page = await listConversations(services.readStore, authOf(request), filter, { limit, cursor });
    return { conversations: page.items.map((c) => conversationView(c.conversation, c.read, c.sla)), nextCursor: page.nextCursor };
  });

  app.get('/api/conversations/views', { schema: inboxViewsSchema }, async (request) => ({
    views: await inboxViewCounts(services.readStore, authOf(request)),
  }));

  app.get('/api/conversations/:id', { schema: getConversationSchema }, async (request) => {
    const auth = authOf(request);
    const doc = await ownedConversation(services, auth.companyId, request.params.id);
    const [read, messages, sla] = await Promise.all([conversationReadOf(services.readStore, doc.id, auth.userId), recentMessages(services.readStore, doc.id), conversationSla(services.readStore, doc.id)]);
    return { conversation: conversationView(doc, read, sla), messages: messages.map(messageView), context: doc.context };
  });

  app.get('/api/conversations/:id/events', { schema: conversationEventsSchema }, async (request) => {
    const doc = await ownedConversation(services, authOf(request).companyId, request.params.id);
    const events = await readConversationEvents(services.commands.eventStore, doc.id);
    // Positions and revisions are 64-bit: strings in JSON so no precision is lost.
    return { events: events.map((e) => ({ position: String(e.position), revision: String(e.revision), type: e.type, data: e.data, createdAt: e.createdAt })) };
  });
}

/** The actions without a body, then close and assign: each answers with the conversation as it is after the write. */
function registerConversationActions(app: ZodApp, services: HttpServices): void {
  for (const [action, run] of [
    ['pause', pauseConversation],
    ['resume', resumeConversation],
    ['reopen', reopenConversation],
    ['unassign', unassignConversation],
  ] as const) {
    app.post(`/api/conversations/:id/${action}`, { schema: conversationActionSchema() }, async (request) => {
      const auth = authOf(request);
      await ownedConversation(services, auth.companyId, request.params.id);
      const result = await run(services.commands, auth, request.params.id);
      await services.waitForProjections(result.position);
      return conversationFor(services, auth, request.params.id);
    });
  }

  app.post('/api/conversations/:id/close', { schema: closeConversationSchema }, async (request) => {
    const auth = authOf(request);
    await ownedConversation(services, auth.companyId, request.params.id);
    const result = await closeConversation(services.commands, auth, request.params.id, request.body?.resolution);
    await services.waitForProjections(result.position);
    return conversationFor(services, auth, request.params.id);
  });

  app.post('/api/conversations/:id/assign', { schema: assignConversationSchema }, async (request) => {
    const auth = authOf(request);
    await ownedConversation(services, auth.companyId, request.params.id);
    const result = await assignConversation(services.commands, auth, request.params.id, request.body.assigneeId);
    await services.waitForProjections(result.position);
    return conversationFor(services, auth, request.params.id);
  });
}

/** PUT /api/conversations/:id/team: a teammate moves the conversation to a support team (or to none). */
function registerConversationTeam(app: ZodApp, services: HttpServices): void {
  app.put('/api/conversations/:id/team', { schema: setConversationTeamSchema }, async (request) => {
    const auth = authOf(request);
    await ownedConversation(services, auth.companyId, request.params.id);
    const result = await routeConversationToTeam(services.commands, auth, request.params.id, request.body.teamId);
    await services.waitForProjections(result.position);
    return conversationFor(services, auth, request.params.id);
  });
}

/** Read markers, operator messages and the pipeline stage. */
function registerConversationWrites(app: ZodApp, services: HttpServices): void {
  app.post('/api/conversations/:id/read', { schema: markReadSchema }, async (request) => {
    const auth = authOf(request);
    const doc = await ownedConversation(services, auth.companyId, request.params.id);
    const result = await markConversationRead(services.commands, auth, doc.id, doc.customerMessageCount ?? 0);
    await services.waitForProjections(result.position);
    return conversationFor(services, auth, doc.id);
  });

  app.post('/api/conversations/:id/messages', { schema: operatorMessageSchema }, async (request, reply) => {
    const auth = authOf(request);
    const conversation = await ownedConversation(services, auth.companyId, request.params.id);
    const key = idempotencyKeyOf(request);
    const keyed = key ? idForKey(auth.companyId, 'operator-message', key.key, conversation.id) : undefined;
    const result = await sendOperatorMessage(services.commands, auth, conversation.id, request.body.text, keyed);
    const repeated = keyed !== undefined && result.events.length === 0;
    // A repeat appended nothing: the read models must hold what is stored now, the first request's message with it.
    await services.waitForProjections(repeated ? await services.commands.eventStore.headPosition() : result.position);
    const message = await findMessage(services.readStore, result.messageId);
    if (!message) throw notFound('Message');
    if (repeated && message.text !== request.body.text) throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for a different message: send a new key with a new message');
    return markRepeated(reply, repeated).status(202).send({ message: messageView(message) });
  });

  app.put('/api/conversations/:id/stage', { schema: changeStageSchema }, async (request) => {
    const auth = authOf(request);
    await ownedConversation(services, auth.companyId, request.params.id);
    const result = await changeStage(services.commands, auth, request.params.id, request.body.stageId);
    await services.waitForProjections(result.position);
    return conversationFor(services, auth, request.params.id);
  });
}

/** A teammate's decision on the conversation's pending action call (the reply worker resumes after an approval or a refusal). */
function registerActionApprovals(app: ZodApp, services: HttpServices): void {
  const callIdOf = (raw: string) => {
    if (!z.uuid().safeParse(raw).success) throw notFound('Action call');
    return raw;
  };
  app.post('/api/conversations/:id/action-calls/:callId/approve', { schema: approveActionCallSchema }, async (request) => {
    const auth = authOf(request);
    await ownedConversation(services, auth.companyId, request.params.id);
    const result = await approveActionCall(services.commands, auth, request.params.id, callIdOf(request.params.callId));
    await services.waitForProjections(result.position);
    return conversationFor(services, auth, request.params.id);
  });

  app.post('/api/conversations/:id/action-calls/:callId/refuse', { schema: refuseActionCallSchema }, async (request) => {
    const auth = authOf(request);
    await ownedConversation(services, auth.companyId, request.params.id);
    const result = await refuseActionCall(services.commands, auth, request.params.id, callIdOf(request.params.callId), request.body?.reason || null);
    await services.waitForProjections(result.position);
    return conversationFor(services, auth, request.params.id);
  });
}
