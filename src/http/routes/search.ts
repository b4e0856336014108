import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CONVERSATIONS, type ConversationDoc } from '../../projections/conversations/conversationsProjection.js';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from '../../ports/readStore.js';
import { SEARCH_ENTRIES, type SearchEntryDoc } from '../../projections/search/searchProjection.js';
import { snippetOf } from '../../projections/search/snippet.js';
import { authenticator, authOf } from '../authenticate.js';
import type { HttpServices } from '../services.js';
import { errorResponses, listQuery } from './schemas.js';

export const MAX_SEARCH_QUERY_LENGTH = 200;

const range = z.object({ start: z.number().int(), end: z.number().int() });
const resultSchema = z.object({
  conversationId: z.uuid(),
  integrationId: z.number().int(),
  connectorType: z.enum(['msgplatform', 'webchat']).nullable(),
  customerName: z.string().nullable(),
  /** What matched: a message, or the customer's name. */
  kind: z.enum(['message', 'customer']),
  message: z
    .object({ id: z.string(), author: z.enum(['customer', 'agent', 'operator']), direction: z.enum(['inbound', 'outbound']), createdAt: z.string() })
    .nullable(),
  snippet: z.object({ text: z.string(), highlights: z.array(range), truncatedStart: z.boolean(), truncatedEnd: z.boolean() }),
});

/**
 * GET /api/search: the company's messages and customer names holding every word of `q`, newest first. Hits carry
 * plain text and match offsets (never HTML), so a client marks them up without trusting customer text.
 */
export function searchRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    app.get(
      '/api/search',
      {
        schema: {
          tags: ['conversations'],
          description:
            'Full-text search over the company’s customer messages, AI and human replies and customer names. Every word must match ' +
            '(a word also matches longer words it begins, on the embedded store); punctuation and query syntax are ignored.',
          security: [{ bearer: [] }],
          querystring: listQuery.extend({
            // Smaller pages than other lists: every hit is parsed and highlighted.
            limit: z.coerce.number().int().min(1).max(MAX_SEARCH_LIMIT).default(DEFAULT_SEARCH_LIMIT),
            q: z.string().trim().min(1, 'enter at least one character to search for').max(MAX_SEARCH_QUERY_LENGTH, `at most ${MAX_SEARCH_QUERY_LENGTH} characters`),
          }),
          response: { 200: z.object({ results: z.array(resultSchema), nextCursor: z.string().nullable() }), ...errorResponses },
        },
      },
      async (request) => {
        const { q, limit, cursor } = request.query;
        const companyId = authOf(request).companyId;
        const page = await services.readStore.search<SearchEntryDoc>(SEARCH_ENTRIES, { scope: companyId, text: q, limit, cursor });
        // The conversation as the dashboard shows it (its current customer name), read by id: at most `limit` reads.
        const conversations = new Map<string, ConversationDoc | null>();
        for (const { doc } of page.items) {
          if (!conversations.has(doc.conversationId)) conversations.set(doc.conversationId, await services.readStore.get<ConversationDoc>(CONVERSATIONS, doc.conversationId));
        }
        const results = page.items.flatMap(({ doc, matches }) => {
          const conversation = conversations.get(doc.conversationId) ?? null;
          if (conversation && conversation.companyId !== companyId) return []; // never: the index is per company
          return [
            {
              conversationId: doc.conversationId,
              integrationId: doc.integrationId,
              connectorType: conversation?.connectorType ?? null,
              customerName: conversation?.customer.name ?? (doc.kind === 'customer' ? doc.text : null),
              kind: doc.kind,
              message:
                doc.kind === 'message' && doc.messageId && doc.author && doc.direction
                  ? { id: doc.messageId, author: doc.author, direction: doc.direction, createdAt: doc.at }
                  : null,
              snippet: snippetOf(doc.text, matches.text ?? []),
            },
          ];
        });
        return { results, nextCursor: page.nextCursor };
      },
    );
  };
}
