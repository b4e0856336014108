import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { addKnowledgeDocument, deleteKnowledgeDocument, reviseKnowledgeDocument } from '../../commands/knowledge/knowledgeDocuments.js';
import { readKnowledgeDocument } from '../../commands/knowledge/queries.js';
import { contentBytes, MAX_DOCUMENT_BYTES, MAX_DOCUMENT_TITLE } from '../../domain/knowledge/documents/content.js';
import { type KnowledgeDocumentEvent } from '../../domain/knowledge/documents/events.js';
import { type KnowledgeDocumentState } from '../../domain/knowledge/documents/state.js';
import { expectActive } from '../../domain/lifecycle.js';
import { KNOWLEDGE_DOCUMENTS, type KnowledgeDocumentDoc } from '../../projections/knowledgeDocuments/knowledgeDocumentsProjection.js';
import { BODY_LIMIT } from '../app.js';
import { authenticator, authOf } from '../authenticate.js';
import { HttpError, notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { errorBody, errorResponses, listQuery } from './schemas.js';

/**
 * The route accepts bodies a little over the app-wide 1 MiB limit so that the content limit — 1 MiB
 * (1,048,576 bytes) of UTF-8 content — is checked here, on the content itself, not on the JSON envelope
 * (title, quotes, escapes such as \n or \"). Content over it: 413 PAYLOAD_TOO_LARGE from this route; a body
 * over this route limit: 413 PAYLOAD_TOO_LARGE from fastify, before parsing.
 */
export const KNOWLEDGE_DOCUMENT_BODY_LIMIT = BODY_LIMIT + 256 * 1024;

export const documentSchema = z.object({
  id: z.uuid(),
  title: z.string(),
  chunkCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** 1 after the upload, +1 per edit; an edit names the revision it was made on. */
  revision: z.number().int().min(1),
});
const documentView = (d: KnowledgeDocumentDoc): z.infer<typeof documentSchema> => ({
  id: d.id,
  title: d.title,
  chunkCount: d.chunkCount,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt ?? d.createdAt,
  revision: d.revision ?? 1,
});
const fullDocumentSchema = documentSchema.extend({ content: z.string(), bytes: z.number().int() });

/**
 * The document as its command just wrote it (upload or edit): the answer is the write's own, whether or not the
 * read model caught up within the read-your-writes wait.
 */
export function writtenDocumentView(result: { state: KnowledgeDocumentState; events: readonly KnowledgeDocumentEvent[] }, chunkCount: number): z.infer<typeof documentSchema> {
  const state = expectActive(result.state, 'knowledge document');
  let updatedAt = state.createdAt;
  for (const e of result.events) if (e.type === 'KnowledgeDocumentRevised') updatedAt = e.data.at;
  return { id: state.documentId, title: state.title, chunkCount, createdAt: state.createdAt, updatedAt, revision: state.revision };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const parseId = (raw: string) => {
  if (!UUID.test(raw)) throw notFound('Document');
  return raw.toLowerCase();
};

const tooLarge = () => new HttpError(413, 'PAYLOAD_TOO_LARGE', `content: a document may hold at most ${MAX_DOCUMENT_BYTES} bytes (1 MiB) of UTF-8 text`);

/**
 * GET/POST /api/knowledge-base/documents, GET/PUT/DELETE /api/knowledge-base/documents/:id,
 * GET /api/knowledge-base/search.
 */
export function knowledgeBaseRoutes(services: HttpServices): FastifyPluginAsyncZod {
  const deps = services.commands;
  /** Read-your-writes for both the document list (projections) and search (the in-memory index). */
  const waitForAll = async (position: bigint | null) => {
    if (position === null) return;
    await Promise.all([services.waitForProjections(position), services.knowledge.waitForPosition(position)]);
  };

  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    const security = [{ bearer: [] }];
    const tags = ['knowledge-base'];

    app.get(
      '/api/knowledge-base/documents',
      {
        schema: {
          tags,
          security,
          querystring: listQuery,
          response: { 200: z.object({ documents: z.array(documentSchema), nextCursor: z.string().nullable() }), ...errorResponses },
        },
      },
      async (request) => {
        const page = await services.readStore.find<KnowledgeDocumentDoc>(KNOWLEDGE_DOCUMENTS, {
          where: { companyId: authOf(request).companyId },
          orderBy: [{ field: 'createdAt', direction: 'desc' }],
          limit: request.query.limit,
          cursor: request.query.cursor ?? null,
        });
        return { documents: page.items.map(documentView), nextCursor: page.nextCursor };
      },
    );

    app.post(
      '/api/knowledge-base/documents',
      {
        bodyLimit: KNOWLEDGE_DOCUMENT_BODY_LIMIT,
        schema: {
          tags,
          security,
          description: `Adds a document (plain text or markdown). content: at most ${MAX_DOCUMENT_BYTES} bytes of UTF-8 (413 PAYLOAD_TOO_LARGE beyond). 409 QUOTA_EXCEEDED when the company already stores KNOWLEDGE_MAX_DOCUMENTS documents or the content would take it past KNOWLEDGE_MAX_BYTES.`,
          body: z.strictObject({
            title: z.string().trim().min(1).max(MAX_DOCUMENT_TITLE),
            // No max here: an oversized content is a 413, not a 400 (checked below, in bytes).
            content: z.string().refine((c) => c.trim().length > 0, 'must not be empty'),
          }),
          response: { 201: z.object({ document: documentSchema }), 409: errorBody, ...errorResponses },
        },
      },
      async (request, reply) => {
        const auth = authOf(request);
        if (contentBytes(request.body.content) > MAX_DOCUMENT_BYTES) throw tooLarge();
        const chunkCount = await services.knowledge.chunkCount(request.body);
        const result = await addKnowledgeDocument(deps, {
          companyId: auth.companyId,
          userId: auth.userId,
          ...request.body,
          chunkCount,
          limits: services.config.knowledgeQuota,
        });
        await waitForAll(result.position);
        return reply.status(201).send({ document: writtenDocumentView(result, chunkCount) });
      },
    );

    app.get(
      '/api/knowledge-base/documents/:id',
      {
        schema: {
          tags,
          security,
          description: 'One document with its full content (as last uploaded or edited) and its revision, which an edit must name.',
          params: z.object({ id: z.string().max(64) }),
          response: { 200: z.object({ document: fullDocumentSchema }), ...errorResponses },
        },
      },
      async (request) => {
        const auth = authOf(request);
        const id = parseId(request.params.id);
        const [stored, doc] = await Promise.all([
          readKnowledgeDocument(deps, auth.companyId, id),
          services.readStore.get<KnowledgeDocumentDoc>(KNOWLEDGE_DOCUMENTS, id),
        ]);
        if (!stored) throw notFound('Document');
        const { content, bytes, revision, title, createdAt, updatedAt } = stored;
        // chunkCount from the read model when it shows this revision (it may lag the stream by a moment).
        const chunkCount = doc && (doc.revision ?? 1) === revision ? doc.chunkCount : await services.knowledge.chunkCount({ title, content });
        return { document: { id, title, content, bytes, revision, chunkCount, createdAt, updatedAt } };
      },
    );

    app.put(
      '/api/knowledge-base/documents/:id',
      {
        bodyLimit: KNOWLEDGE_DOCUMENT_BODY_LIMIT,
        schema: {
          tags,
          security,
          description:
            `Replaces the document's title and content and re-indexes it (its old passages leave the search index). expectedRevision: the revision the edit was made on (from GET); ` +
            `when the document has moved on meanwhile (another edit won), 409 CONFLICT and nothing changes. content: at most ${MAX_DOCUMENT_BYTES} bytes of UTF-8 (413 PAYLOAD_TOO_LARGE). ` +
            '409 QUOTA_EXCEEDED when the larger content would take the company past KNOWLEDGE_MAX_BYTES.',
          params: z.object({ id: z.string().max(64) }),
          body: z.strictObject({
            title: z.string().trim().min(1).max(MAX_DOCUMENT_TITLE),
            content: z.string().refine((c) => c.trim().length > 0, 'must not be empty'),
            expectedRevision: z.number().int().min(1),
          }),
          response: { 200: z.object({ document: documentSchema }), 409: errorBody, ...errorResponses },
        },
      },
      async (request) => {
        const auth = authOf(request);
        const documentId = parseId(request.params.id);
        if (contentBytes(request.body.content) > MAX_DOCUMENT_BYTES) throw tooLarge();
        const { title, content, expectedRevision } = request.body;
        const chunkCount = await services.knowledge.chunkCount({ title, content });
        const result = await reviseKnowledgeDocument(deps, {
          companyId: auth.companyId,
          userId: auth.userId,
          documentId,
          expectedRevision,
          title,
          content,
          chunkCount,
          limits: services.config.knowledgeQuota,
        });
        await waitForAll(result.position);
        return { document: writtenDocumentView(result, chunkCount) };
      },
    );

    app.delete(
      '/api/knowledge-base/documents/:id',
      { schema: { tags, security, params: z.object({ id: z.string().max(64) }), response: { 204: z.null(), ...errorResponses } } },
      async (request, reply) => {
        const auth = authOf(request);
        const result = await deleteKnowledgeDocument(deps, { companyId: auth.companyId, userId: auth.userId, documentId: parseId(request.params.id) });
        await waitForAll(result.position);
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/api/knowledge-base/search',
      {
        schema: {
          tags,
          security,
          querystring: z.strictObject({
            // As long as a customer message: the index itself keeps only the first 32 terms of ≤ 64 characters.
            q: z.string().trim().min(1).max(65_536),
            limit: z.coerce.number().int().min(1).max(50).default(10),
          }),
          response: {
            200: z.object({ results: z.array(z.object({ documentId: z.string(), title: z.string(), snippet: z.string(), score: z.number() })) }),
            ...errorResponses,
          },
        },
      },
      async (request) => {
        const hits = await services.knowledge.search(authOf(request).companyId, request.query.q, { limit: request.query.limit });
        return { results: hits.map((h) => ({ documentId: h.documentId, title: h.title, snippet: h.snippet, score: h.score })) };
      },
    );
  };
}
