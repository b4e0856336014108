import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CATALOG_VERSION, isPublicEventType, type PublicEventType } from '../../domain/publicEvents/catalog.js';
import { decodeFeedCursor, encodeFeedCursor, listPublicEvents } from '../../projections/publicEvents/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import { validationError } from '../errors.js';
import type { HttpServices } from '../services.js';
import { listPublicEventsSchema } from './publicEvents.schemas.js';

function parseTypes(raw: string | undefined): PublicEventType[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  const types = raw.split(',').map((t) => t.trim()).filter((t) => t !== '');
  const unknown = types.find((t) => !isPublicEventType(t));
  if (unknown !== undefined) throw validationError(`types: ${unknown} is not a public event type`);
  return types as PublicEventType[];
}

/** GET /api/events: the events feed, for consumers that poll rather than receive webhooks. */
export function publicEventRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    app.get('/api/events', { schema: listPublicEventsSchema }, async (request) => {
      const { after, types, limit } = request.query;
      const page = await listPublicEvents(services.readStore, authOf(request).companyId, { after: after ? decodeFeedCursor(after) : 0, types: parseTypes(types), limit });
      return { events: page.items.map((d) => d.event), nextCursor: encodeFeedCursor(page.next), hasMore: page.hasMore, catalogVersion: CATALOG_VERSION };
    });
  };
}
