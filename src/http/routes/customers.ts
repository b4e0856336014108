import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { loadCustomer, setCustomerNote, setCustomerTags } from '../../commands/customers/customers.js';
import { CUSTOMER_LIMITS } from '../../domain/customers/events.js';
import { type KnownCustomer } from '../../domain/customers/state.js';
import { platformIdSchema } from '../../domain/platformId.js';
import { CUSTOMER_CONVERSATIONS, type CustomerConversationDoc } from '../../projections/customerConversations/customerConversationsProjection.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { errorResponses, listQuery } from './schemas.js';

export const customerSchema = z.object({
  id: z.uuid(),
  integrationId: z.number().int(),
  clientId: platformIdSchema,
  channelId: platformIdSchema.nullable(),
  transport: z.string().nullable(),
  name: z.string().nullable(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  note: z.string(),
  noteUpdatedBy: z.string().nullable(),
  noteUpdatedAt: z.string().nullable(),
  tags: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const customerView = (c: KnownCustomer): z.infer<typeof customerSchema> => ({
  id: c.customerId,
  integrationId: c.integrationId,
  clientId: c.clientId,
  channelId: c.profile.channelId ?? null,
  transport: c.profile.transport ?? null,
  name: c.profile.name ?? null,
  phone: c.profile.phone ?? null,
  email: c.profile.email ?? null,
  note: c.note,
  noteUpdatedBy: c.noteUpdatedBy,
  noteUpdatedAt: c.noteUpdatedAt,
  tags: c.tags,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

const customerConversationSchema = z.object({
  id: z.uuid(),
  integrationId: z.number().int(),
  connectorType: z.enum(['msgplatform', 'webchat']),
  transport: z.string(),
  sessionState: z.enum(['active', 'paused', 'closed', 'none']),
  messageCount: z.number().int(),
  lastMessageAt: z.string(),
  createdAt: z.string(),
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const params = z.object({ id: z.string().max(64) });

/** GET /api/customers/:id, PUT /api/customers/:id/note, PUT /api/customers/:id/tags, GET /api/customers/:id/conversations. */
export function customerRoutes(services: HttpServices): FastifyPluginAsyncZod {
  const deps = services.commands;
  const owned = async (companyId: string, raw: string) => {
    const customer = UUID.test(raw) ? await loadCustomer(deps.eventStore, companyId, raw.toLowerCase()) : null;
    if (!customer) throw notFound('Customer');
    return customer;
  };
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    const security = [{ bearer: [] }];
    const tags = ['customers'];
    const one = z.object({ customer: customerSchema });

    app.get(
      '/api/customers/:id',
      {
        schema: {
          tags,
          security,
          description: "A customer's profile: what the channel said (name, phone, email, platform ids) and the teammates' note and tags. Another company's customer: 404.",
          params,
          response: { 200: one, ...errorResponses },
        },
      },
      async (request) => ({ customer: customerView(await owned(authOf(request).companyId, request.params.id)) }),
    );

    app.put(
      '/api/customers/:id/note',
      {
        schema: {
          tags,
          security,
          description: `Replaces the note (trimmed; at most ${CUSTOMER_LIMITS.note} characters; "" clears it). Records who set it and when.`,
          params,
          body: z.strictObject({ note: z.string().max(CUSTOMER_LIMITS.note * 2) }),
          response: { 200: one, ...errorResponses },
        },
      },
      async (request) => {
        const auth = authOf(request);
        const customer = await owned(auth.companyId, request.params.id);
        const result = await setCustomerNote(deps, { companyId: auth.companyId, userId: auth.userId, customerId: customer.customerId, note: request.body.note });
        return { customer: customerView(result.state as KnownCustomer) };
      },
    );

    app.put(
      '/api/customers/:id/tags',
      {
        schema: {
          tags,
          security,
          description: `Replaces the tags: trimmed, lower-cased, duplicates once; at most ${CUSTOMER_LIMITS.tags} tags of at most ${CUSTOMER_LIMITS.tag} characters.`,
          params,
          body: z.strictObject({ tags: z.array(z.string().max(CUSTOMER_LIMITS.tag * 4)).max(CUSTOMER_LIMITS.tags * 4) }),
          response: { 200: one, ...errorResponses },
        },
      },
      async (request) => {
        const auth = authOf(request);
        const customer = await owned(auth.companyId, request.params.id);
        const result = await setCustomerTags(deps, { companyId: auth.companyId, userId: auth.userId, customerId: customer.customerId, tags: request.body.tags });
        return { customer: customerView(result.state as KnownCustomer) };
      },
    );

    app.get(
      '/api/customers/:id/conversations',
      {
        schema: {
          tags,
          security,
          description: "The customer's conversations, newest activity first (paginated).",
          params,
          querystring: listQuery,
          response: { 200: z.object({ conversations: z.array(customerConversationSchema), nextCursor: z.string().nullable() }), ...errorResponses },
        },
      },
      async (request) => {
        const customer = await owned(authOf(request).companyId, request.params.id);
        const page = await services.readStore.find<CustomerConversationDoc>(CUSTOMER_CONVERSATIONS, {
          where: { customerId: customer.customerId },
          orderBy: [{ field: 'lastMessageAt', direction: 'desc' }],
          limit: request.query.limit,
          cursor: request.query.cursor ?? null,
        });
        return {
          conversations: page.items.map((d) => ({
            id: d.id,
            integrationId: d.integrationId,
            connectorType: d.connectorType,
            transport: d.transport,
            sessionState: d.sessionState,
            messageCount: d.messageCount,
            lastMessageAt: d.lastMessageAt,
            createdAt: d.createdAt,
          })),
          nextCursor: page.nextCursor,
        };
      },
    );
  };
}
