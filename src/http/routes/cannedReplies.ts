import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createCannedReply, deleteCannedReply, loadCannedReply, updateCannedReply } from '../../commands/cannedReplies/cannedReplies.js';
import { CANNED_REPLY_LIMITS } from '../../domain/cannedReplies/events.js';
import { type CannedReply } from '../../domain/cannedReplies/state.js';
import { CANNED_REPLIES, type CannedReplyDoc } from '../../projections/cannedReplies/cannedRepliesProjection.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { errorBody, errorResponses, listQuery } from './schemas.js';

export const cannedReplySchema = z.object({
  id: z.uuid(),
  shortcut: z.string(),
  title: z.string(),
  text: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const view = (r: CannedReply | CannedReplyDoc): z.infer<typeof cannedReplySchema> => ({
  id: r.id,
  shortcut: r.shortcut,
  title: r.title,
  text: r.text,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

const writable = {
  // A leading "/" is accepted and dropped; the rest is checked by the domain (lower-case letters, digits, - and _).
  shortcut: z.string().trim().min(1).max(CANNED_REPLY_LIMITS.shortcut + 1),
  title: z.string().trim().min(1).max(CANNED_REPLY_LIMITS.title),
  text: z.string().trim().min(1).max(CANNED_REPLY_LIMITS.text),
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const params = z.object({ id: z.string().max(64) });
const parseId = (raw: string) => {
  if (!UUID.test(raw)) throw notFound('Canned reply');
  return raw.toLowerCase();
};

/** GET/POST /api/canned-replies, GET/PATCH/DELETE /api/canned-replies/:id. */
export function cannedReplyRoutes(services: HttpServices): FastifyPluginAsyncZod {
  const deps = services.commands;
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    const security = [{ bearer: [] }];
    const tags = ['canned-replies'];
    const one = z.object({ cannedReply: cannedReplySchema });

    app.get(
      '/api/canned-replies',
      {
        schema: {
          tags,
          security,
          description: "The company's canned replies, by shortcut.",
          querystring: listQuery,
          response: { 200: z.object({ cannedReplies: z.array(cannedReplySchema), nextCursor: z.string().nullable() }), ...errorResponses },
        },
      },
      async (request) => {
        const page = await services.readStore.find<CannedReplyDoc>(CANNED_REPLIES, {
          where: { companyId: authOf(request).companyId },
          orderBy: [{ field: 'shortcut', direction: 'asc' }],
          limit: request.query.limit,
          cursor: request.query.cursor ?? null,
        });
        return { cannedReplies: page.items.map(view), nextCursor: page.nextCursor };
      },
    );

    app.post(
      '/api/canned-replies',
      {
        schema: {
          tags,
          security,
          description: `Adds a canned reply. shortcut: what follows "/" in the reply box (lower-case letters, digits, "-", "_"; at most ${CANNED_REPLY_LIMITS.shortcut}); 409 CONFLICT when another reply uses it. At most ${CANNED_REPLY_LIMITS.count} per company (409 QUOTA_EXCEEDED).`,
          body: z.strictObject(writable),
          response: { 201: one, 409: errorBody, ...errorResponses },
        },
      },
      async (request, reply) => {
        const auth = authOf(request);
        const result = await createCannedReply(deps, { companyId: auth.companyId, userId: auth.userId, ...request.body });
        await services.waitForProjections(result.position);
        return reply.status(201).send({ cannedReply: view(result.cannedReply) });
      },
    );

    app.get('/api/canned-replies/:id', { schema: { tags, security, params, response: { 200: one, ...errorResponses } } }, async (request) => {
      const found = await loadCannedReply(deps.eventStore, authOf(request).companyId, parseId(request.params.id));
      if (!found) throw notFound('Canned reply');
      return { cannedReply: view(found) };
    });

    app.patch(
      '/api/canned-replies/:id',
      {
        schema: {
          tags,
          security,
          params,
          body: z.strictObject({ shortcut: writable.shortcut.optional(), title: writable.title.optional(), text: writable.text.optional() }),
          response: { 200: one, 409: errorBody, ...errorResponses },
        },
      },
      async (request) => {
        const auth = authOf(request);
        const result = await updateCannedReply(deps, { companyId: auth.companyId, userId: auth.userId, cannedReplyId: parseId(request.params.id), changes: request.body });
        await services.waitForProjections(result.position);
        return { cannedReply: view(result.cannedReply) };
      },
    );

    app.delete('/api/canned-replies/:id', { schema: { tags, security, params, response: { 204: z.null(), ...errorResponses } } }, async (request, reply) => {
      const auth = authOf(request);
      const result = await deleteCannedReply(deps, { companyId: auth.companyId, userId: auth.userId, cannedReplyId: parseId(request.params.id) });
      await services.waitForProjections(result.position);
      return reply.status(204).send(null);
    });
  };
}
