import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { loadCustomer, setCustomerNote, setCustomerTags } from '../../commands/customers/customers.js';
import type { KnownCustomer } from '../../domain/customers/state.js';
import { listCustomerConversations } from '../../projections/customerConversations/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import { eraseCustomer } from '../../commands/customers/eraseCustomer.js';
import { exportCustomer } from '../../commands/customers/exportCustomer.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { customerConversationsSchema, customerConversationView, customerView, eraseCustomerSchema, exportCustomerSchema, getCustomerSchema, setNoteSchema, setTagsSchema } from './customers.schemas.js';
import type { ZodApp } from './zodApp.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The company's customer, from its stream; anything else (another company's, not a UUID) is 404. */
async function ownedCustomer(services: HttpServices, companyId: string, raw: string): Promise<KnownCustomer> {
  const customer = UUID.test(raw) ? await loadCustomer(services.commands.eventStore, companyId, raw.toLowerCase()) : null;
  if (!customer) throw notFound('Customer');
  return customer;
}

/** GET and DELETE /api/customers/:id, PUT /api/customers/:id/note, PUT /api/customers/:id/tags, GET /api/customers/:id/conversations, GET /api/customers/:id/export. */
export function customerRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    registerCustomerProfile(app, services);
    registerCustomerConversations(app, services);
    registerCustomerErasure(app, services);
    registerCustomerExport(app, services);
  };
}

function registerCustomerExport(app: ZodApp, services: HttpServices): void {
  app.get('/api/customers/:id/export', { schema: exportCustomerSchema }, async (request, reply) => {
    const auth = authOf(request);
    const customer = await ownedCustomer(services, auth.companyId, request.params.id);
    const exported = await exportCustomer(services.commands, { companyId: auth.companyId, userId: auth.userId, customer });
    const { profile, ...rest } = exported;
    // A download: the browser saves it as a file named after the customer's id (never after their name).
    void reply.header('content-disposition', `attachment; filename="customer-${customer.customerId}.json"`);
    return { export: { ...rest, profile: profile ? customerView(profile) : null } };
  });
}

function registerCustomerErasure(app: ZodApp, services: HttpServices): void {
  app.delete('/api/customers/:id', { schema: eraseCustomerSchema }, async (request, reply) => {
    const auth = authOf(request);
    const customer = await ownedCustomer(services, auth.companyId, request.params.id);
    const erasure = services.erasure;
    if (!erasure) throw new Error('erasure is not wired in this process');
    const result = await eraseCustomer({ ...services.commands, personalKeys: erasure.keys }, { companyId: auth.companyId, userId: auth.userId, customer, reason: request.body.reason });
    erasure.sweep.request();
    return reply.code(202).send({ erasure: { customerId: customer.customerId, recorded: result.erasedNow, keysDeleted: result.keysDeleted } });
  });
}

function registerCustomerProfile(app: ZodApp, services: HttpServices): void {
  app.get('/api/customers/:id', { schema: getCustomerSchema }, async (request) => ({
    customer: customerView(await ownedCustomer(services, authOf(request).companyId, request.params.id)),
  }));

  app.put('/api/customers/:id/note', { schema: setNoteSchema }, async (request) => {
    const auth = authOf(request);
    const customer = await ownedCustomer(services, auth.companyId, request.params.id);
    const result = await setCustomerNote(services.commands, { companyId: auth.companyId, userId: auth.userId, customerId: customer.customerId, note: request.body.note });
    return { customer: customerView(result.state as KnownCustomer) };
  });

  app.put('/api/customers/:id/tags', { schema: setTagsSchema }, async (request) => {
    const auth = authOf(request);
    const customer = await ownedCustomer(services, auth.companyId, request.params.id);
    const result = await setCustomerTags(services.commands, { companyId: auth.companyId, userId: auth.userId, customerId: customer.customerId, tags: request.body.tags });
    return { customer: customerView(result.state as KnownCustomer) };
  });
}

function registerCustomerConversations(app: ZodApp, services: HttpServices): void {
  app.get('/api/customers/:id/conversations', { schema: customerConversationsSchema }, async (request) => {
    const customer = await ownedCustomer(services, authOf(request).companyId, request.params.id);
    const page = await listCustomerConversations(services.readStore, customer.customerId, request.query);
    return { conversations: page.items.map(customerConversationView), nextCursor: page.nextCursor };
  });
}
