import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createCannedReply, deleteCannedReply, loadCannedReply, updateCannedReply } from '../../commands/cannedReplies/cannedReplies.js';
import { listCannedReplies } from '../../projections/cannedReplies/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import {
  cannedReplyView,
  createCannedReplySchema,
  deleteCannedReplySchema,
  getCannedReplySchema,
  listCannedRepliesSchema,
  updateCannedReplySchema,
} from './cannedReplies.schemas.js';
import type { ZodApp } from './zodApp.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const parseId = (raw: string) => {
  if (!UUID.test(raw)) throw notFound('Canned reply');
  return raw.toLowerCase();
};

/** GET/POST /api/canned-replies, GET/PATCH/DELETE /api/canned-replies/:id. */
export function cannedReplyRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    registerCannedReplyList(app, services);
    registerCannedReply(app, services);
  };
}

function registerCannedReplyList(app: ZodApp, services: HttpServices): void {
  app.get('/api/canned-replies', { schema: listCannedRepliesSchema }, async (request) => {
    const page = await listCannedReplies(services.readStore, authOf(request).companyId, request.query);
    return { cannedReplies: page.items.map(cannedReplyView), nextCursor: page.nextCursor };
  });

  app.post('/api/canned-replies', { schema: createCannedReplySchema }, async (request, reply) => {
    const auth = authOf(request);
    const result = await createCannedReply(services.commands, { companyId: auth.companyId, userId: auth.userId, ...request.body });
    await services.waitForProjections(result.position);
    return reply.status(201).send({ cannedReply: cannedReplyView(result.cannedReply) });
  });
}

function registerCannedReply(app: ZodApp, services: HttpServices): void {
  app.get('/api/canned-replies/:id', { schema: getCannedReplySchema }, async (request) => {
    const found = await loadCannedReply(services.commands.eventStore, authOf(request).companyId, parseId(request.params.id));
    if (!found) throw notFound('Canned reply');
    return { cannedReply: cannedReplyView(found) };
  });

  app.patch('/api/canned-replies/:id', { schema: updateCannedReplySchema }, async (request) => {
    const auth = authOf(request);
    const result = await updateCannedReply(services.commands, { companyId: auth.companyId, userId: auth.userId, cannedReplyId: parseId(request.params.id), changes: request.body });
    await services.waitForProjections(result.position);
    return { cannedReply: cannedReplyView(result.cannedReply) };
  });

  app.delete('/api/canned-replies/:id', { schema: deleteCannedReplySchema }, async (request, reply) => {
    const auth = authOf(request);
    const result = await deleteCannedReply(services.commands, { companyId: auth.companyId, userId: auth.userId, cannedReplyId: parseId(request.params.id) });
    await services.waitForProjections(result.position);
    return reply.status(204).send(null);
  });
}
