import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { addKnowledgeDocument, deleteKnowledgeDocument, reviseKnowledgeDocument } from '../../commands/knowledge/knowledgeDocuments.js';
import { readKnowledgeDocument } from '../../commands/knowledge/streamReads.js';
import { contentBytes, MAX_DOCUMENT_BYTES } from '../../domain/knowledge/documents/content.js';
import { findKnowledgeDocument, listKnowledgeDocuments } from '../../projections/knowledgeDocuments/queries.js';
import { BODY_LIMIT } from '../app.js';
import { authenticator, authOf } from '../authenticate.js';
import { HttpError, notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import {
  addDocumentSchema,
  answerTradeSchema,
  answerTradeView,
  deleteDocumentSchema,
  documentView,
  getDocumentSchema,
  listDocumentsSchema,
  reviseDocumentSchema,
  searchKnowledgeSchema,
  writtenDocumentView,
} from './knowledgeBase.schemas.js';
import type { ZodApp } from './zodApp.js';

/**
 * The route accepts bodies a little over the app-wide 1 MiB limit so that the content limit — 1 MiB
 * (1,048,576 bytes) of UTF-8 content — is checked here, on the content itself, not on the JSON envelope
 * (title, quotes, escapes such as \n or \"). Content over it: 413 PAYLOAD_TOO_LARGE from this route; a body
 * over this route limit: 413 PAYLOAD_TOO_LARGE from fastify, before parsing.
 */
export const KNOWLEDGE_DOCUMENT_BODY_LIMIT = BODY_LIMIT + 256 * 1024;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const parseId = (raw: string) => {
  if (!UUID.test(raw)) throw notFound('Document');
  return raw.toLowerCase();
};

const tooLarge = () => new HttpError(413, 'PAYLOAD_TOO_LARGE', `content: a document may hold at most ${MAX_DOCUMENT_BYTES} bytes (1 MiB) of UTF-8 text`);
const checkContentSize = (content: string) => {
  if (contentBytes(content) > MAX_DOCUMENT_BYTES) throw tooLarge();
};

/** Read-your-writes for both the document list (projections) and search (the in-memory index). */
async function waitForAll(services: HttpServices, position: bigint | null): Promise<void> {
  if (position === null) return;
  await Promise.all([services.waitForProjections(position), services.knowledge.waitForPosition(position)]);
}

/** One document with its content, from its stream; its chunk count from the read model when it shows this revision. */
async function fullDocument(services: HttpServices, companyId: string, id: string) {
  const [stored, doc] = await Promise.all([readKnowledgeDocument(services.commands, companyId, id), findKnowledgeDocument(services.readStore, id)]);
  if (!stored) throw notFound('Document');
  const { content, bytes, revision, title, createdAt, updatedAt } = stored;
  // The read model may lag the stream by a moment: then the passages are counted again.
  const chunkCount = doc && (doc.revision ?? 1) === revision ? doc.chunkCount : await services.knowledge.chunkCount({ title, content });
  return { id, title, content, bytes, revision, chunkCount, createdAt, updatedAt };
}

/**
 * GET/POST /api/knowledge-base/documents, GET/PUT/DELETE /api/knowledge-base/documents/:id,
 * GET /api/knowledge-base/search, GET /api/knowledge-base/answer-trade.
 */
export function knowledgeBaseRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    registerDocumentList(app, services);
    registerDocument(app, services);
    registerKnowledgeSearch(app, services);
  };
}

function registerDocumentList(app: ZodApp, services: HttpServices): void {
  app.get('/api/knowledge-base/documents', { schema: listDocumentsSchema }, async (request) => {
    const page = await listKnowledgeDocuments(services.readStore, authOf(request).companyId, request.query);
    return { documents: page.items.map(documentView), nextCursor: page.nextCursor };
  });

  app.post('/api/knowledge-base/documents', { bodyLimit: KNOWLEDGE_DOCUMENT_BODY_LIMIT, schema: addDocumentSchema }, async (request, reply) => {
    const auth = authOf(request);
    checkContentSize(request.body.content);
    const chunkCount = await services.knowledge.chunkCount(request.body);
    const result = await addKnowledgeDocument(services.commands, {
      companyId: auth.companyId,
      userId: auth.userId,
      ...request.body,
      chunkCount,
      limits: services.config.knowledgeQuota,
    });
    await waitForAll(services, result.position);
    return reply.status(201).send({ document: writtenDocumentView(result, chunkCount) });
  });
}

function registerDocument(app: ZodApp, services: HttpServices): void {
  app.get('/api/knowledge-base/documents/:id', { schema: getDocumentSchema }, async (request) => ({
    document: await fullDocument(services, authOf(request).companyId, parseId(request.params.id)),
  }));

  app.put('/api/knowledge-base/documents/:id', { bodyLimit: KNOWLEDGE_DOCUMENT_BODY_LIMIT, schema: reviseDocumentSchema }, async (request) => {
    const auth = authOf(request);
    const documentId = parseId(request.params.id);
    checkContentSize(request.body.content);
    const { title, content, expectedRevision } = request.body;
    const chunkCount = await services.knowledge.chunkCount({ title, content });
    const result = await reviseKnowledgeDocument(services.commands, {
      companyId: auth.companyId,
      userId: auth.userId,
      documentId,
      expectedRevision,
      title,
      content,
      chunkCount,
      limits: services.config.knowledgeQuota,
    });
    await waitForAll(services, result.position);
    return { document: writtenDocumentView(result, chunkCount) };
  });

  app.delete('/api/knowledge-base/documents/:id', { schema: deleteDocumentSchema }, async (request, reply) => {
    const auth = authOf(request);
    const result = await deleteKnowledgeDocument(services.commands, { companyId: auth.companyId, userId: auth.userId, documentId: parseId(request.params.id) });
    await waitForAll(services, result.position);
    return reply.status(204).send(null);
  });
}

function registerKnowledgeSearch(app: ZodApp, services: HttpServices): void {
  app.get('/api/knowledge-base/search', { schema: searchKnowledgeSchema }, async (request) => {
    const hits = await services.knowledge.search(authOf(request).companyId, request.query.q, { limit: request.query.limit });
    return { results: hits.map((h) => ({ documentId: h.documentId, title: h.title, snippet: h.snippet, score: h.score })) };
  });

  // The agent page's sentence: at this setting, about N % of covered questions are answered, about M % of uncovered ones wrongly.
  app.get('/api/knowledge-base/answer-trade', { schema: answerTradeSchema }, async (request) => answerTradeView(await services.knowledge.calibration(authOf(request).companyId)));
}
