import { z } from 'zod';
import { customerDisplayName } from '../../domain/conversations/state.js';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from '../../ports/readStore.js';
import type { ConversationSearchHit } from '../../projections/search/queries.js';
import { snippetOf } from '../../projections/search/snippet.js';
import { bearerSecurity as security, errorResponses, listQuery } from './schemas.js';

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

/** A hit as plain text with match offsets (never HTML), so a client marks it up without trusting customer text. */
export const searchResultView = ({ doc, matches, conversation }: ConversationSearchHit): z.infer<typeof resultSchema> => ({
  conversationId: doc.conversationId,
  integrationId: doc.integrationId,
  connectorType: conversation?.connectorType ?? null,
  // The conversation's display name (one rule, domain/customers/displayName.ts), as the inbox row shows it.
  customerName: conversation ? (conversation.customerName ?? customerDisplayName(conversation.integrationId, conversation.customer)) : doc.kind === 'customer' ? doc.text : null,
  kind: doc.kind,
  message:
    doc.kind === 'message' && doc.messageId && doc.author && doc.direction
      ? { id: doc.messageId, author: doc.author, direction: doc.direction, createdAt: doc.at }
      : null,
  snippet: snippetOf(doc.text, matches.text ?? []),
});

export const searchSchema = {
  tags: ['conversations'],
  description:
    'Full-text search over the company’s customer messages, AI and human replies and customer names. Every word must match ' +
    '(a word also matches longer words it begins, on the embedded store); punctuation and query syntax are ignored.',
  security,
  querystring: listQuery.extend({
    // Smaller pages than other lists: every hit is parsed and highlighted.
    limit: z.coerce.number().int().min(1).max(MAX_SEARCH_LIMIT).default(DEFAULT_SEARCH_LIMIT),
    q: z.string().trim().min(1, 'enter at least one character to search for').max(MAX_SEARCH_QUERY_LENGTH, `at most ${MAX_SEARCH_QUERY_LENGTH} characters`),
  }),
  response: { 200: z.object({ results: z.array(resultSchema), nextCursor: z.string().nullable() }), ...errorResponses },
};
