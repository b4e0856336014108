import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { setConversationPriority, snoozeConversation, unsnoozeConversation } from '../../commands/conversations/triage.js';
import { conversationReadOf, findCompanyConversation } from '../../projections/conversations/queries.js';
import { authenticator, authOf, type AuthContext } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { conversationSla } from '../../projections/sla/queries.js';
import { conversationView } from './conversations.schemas.js';
import { setPrioritySchema, snoozeSchema, unsnoozeSchema } from './conversationTriage.schemas.js';

/** The conversation when it is the company's; anything else (another company's, not a UUID) is 404. */
async function owned(services: HttpServices, companyId: string, id: string) {
  const doc = z.uuid().safeParse(id).success ? await findCompanyConversation(services.readStore, companyId, id) : null;
  if (!doc) throw notFound('Conversation');
  return doc;
}

/** After the write settled: the conversation as the caller sees it. */
async function after(services: HttpServices, auth: Pick<AuthContext, 'companyId' | 'userId'>, id: string, position: bigint | null) {
  await services.waitForProjections(position);
  const doc = await owned(services, auth.companyId, id);
  const [read, sla] = await Promise.all([conversationReadOf(services.readStore, doc.id, auth.userId), conversationSla(services.readStore, doc.id)]);
  return { conversation: conversationView(doc, read, sla) };
}

/** Triage of a conversation: its priority, and snoozing it until a time (domain/conversations/triage.ts). */
export function conversationTriageRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    app.put('/api/conversations/:id/priority', { schema: setPrioritySchema }, async (request) => {
      const auth = authOf(request);
      await owned(services, auth.companyId, request.params.id);
      const result = await setConversationPriority(services.commands, auth, request.params.id, request.body.priority);
      return after(services, auth, request.params.id, result.position);
    });
    app.post('/api/conversations/:id/snooze', { schema: snoozeSchema }, async (request) => {
      const auth = authOf(request);
      await owned(services, auth.companyId, request.params.id);
      const result = await snoozeConversation(services.commands, auth, request.params.id, new Date(request.body.until).toISOString());
      return after(services, auth, request.params.id, result.position);
    });
    app.post('/api/conversations/:id/unsnooze', { schema: unsnoozeSchema }, async (request) => {
      const auth = authOf(request);
      await owned(services, auth.companyId, request.params.id);
      const result = await unsnoozeConversation(services.commands, auth, request.params.id);
      return after(services, auth, request.params.id, result.position);
    });
  };
}
