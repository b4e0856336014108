import { z } from 'zod';
import { FALSE_ANSWER_TARGETS, type Calibration } from '../../domain/answers/calibration.js';
import { ANSWER_THRESHOLDS } from '../../domain/answers/evidence.js';
import { MAX_DOCUMENT_BYTES, MAX_DOCUMENT_TITLE } from '../../domain/knowledge/documents/content.js';
import { type KnowledgeDocumentEvent } from '../../domain/knowledge/documents/events.js';
import { type KnowledgeDocumentState } from '../../domain/knowledge/documents/state.js';
import { expectActive } from '../../domain/lifecycle.js';
import type { KnowledgeDocumentDoc } from '../../projections/knowledgeDocuments/knowledgeDocumentsProjection.js';
import { bearerSecurity as security, errorBody, errorResponses, listQuery } from './schemas.js';

export const documentSchema = z.object({
  id: z.uuid(),
  title: z.string(),
  chunkCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** 1 after the upload, +1 per edit; an edit names the revision it was made on. */
  revision: z.number().int().min(1),
});
export const documentView = (d: KnowledgeDocumentDoc): z.infer<typeof documentSchema> => ({
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

const tags = ['knowledge-base'];
const idParams = z.object({ id: z.string().max(64) });

export const listDocumentsSchema = {
  tags,
  security,
  querystring: listQuery,
  response: { 200: z.object({ documents: z.array(documentSchema), nextCursor: z.string().nullable() }), ...errorResponses },
};

export const addDocumentSchema = {
  tags,
  security,
  description: `Adds a document (plain text or markdown). content: at most ${MAX_DOCUMENT_BYTES} bytes of UTF-8 (413 PAYLOAD_TOO_LARGE beyond). 409 QUOTA_EXCEEDED when the company already stores KNOWLEDGE_MAX_DOCUMENTS documents or the content would take it past KNOWLEDGE_MAX_BYTES.`,
  body: z.strictObject({
    title: z.string().trim().min(1).max(MAX_DOCUMENT_TITLE),
    // No max here: an oversized content is a 413, not a 400 (checked by the route, in bytes).
    content: z.string().refine((c) => c.trim().length > 0, 'must not be empty'),
  }),
  response: { 201: z.object({ document: documentSchema }), 409: errorBody, ...errorResponses },
};

export const getDocumentSchema = {
  tags,
  security,
  description: 'One document with its full content (as last uploaded or edited) and its revision, which an edit must name.',
  params: idParams,
  response: { 200: z.object({ document: fullDocumentSchema }), ...errorResponses },
};

export const reviseDocumentSchema = {
  tags,
  security,
  description:
    `Replaces the document's title and content and re-indexes it (its old passages leave the search index). expectedRevision: the revision the edit was made on (from GET); ` +
    `when the document has moved on meanwhile (another edit won), 409 CONFLICT and nothing changes. content: at most ${MAX_DOCUMENT_BYTES} bytes of UTF-8 (413 PAYLOAD_TOO_LARGE). ` +
    '409 QUOTA_EXCEEDED when the larger content would take the company past KNOWLEDGE_MAX_BYTES.',
  params: idParams,
  body: z.strictObject({
    title: z.string().trim().min(1).max(MAX_DOCUMENT_TITLE),
    content: z.string().refine((c) => c.trim().length > 0, 'must not be empty'),
    expectedRevision: z.number().int().min(1),
  }),
  response: { 200: z.object({ document: documentSchema }), 409: errorBody, ...errorResponses },
};

export const deleteDocumentSchema = { tags, security, params: idParams, response: { 204: z.null(), ...errorResponses } };

export const searchKnowledgeSchema = {
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
};

const settingTrade = z.object({
  /** The share of the questions the knowledge base does not cover this setting aims to answer (wrongly), at most. */
  falseAnswerTarget: z.number(),
  /** Measured on the company's own probe questions (null until the first calibration): share answered rightly of those it covers. */
  coveredAnsweredRight: z.number().nullable(),
  /** Share answered (wrongly) of probe questions whose document was left out. */
  uncoveredAnswered: z.number().nullable(),
});

export const answerTradeSchema = {
  tags,
  security,
  description:
    'What each answer setting (strict, balanced, lenient) trades on this company\'s knowledge base, measured on questions derived from its own documents, ' +
    'asked with the document present and left out (refitted a moment after the knowledge base changes). calibrated: false until the first fit.',
  response: {
    200: z.object({
      calibrated: z.boolean(),
      probes: z.object({ answerable: z.number().int(), unanswerable: z.number().int() }).nullable(),
      settings: z.object({ strict: settingTrade, balanced: settingTrade, lenient: settingTrade }),
    }),
    ...errorResponses,
  },
};

export const answerTradeView = (calibration: Calibration | null) => ({
  calibrated: calibration !== null,
  probes: calibration === null ? null : { answerable: calibration.answerable, unanswerable: calibration.unanswerable },
  settings: Object.fromEntries(
    ANSWER_THRESHOLDS.map((s) => [
      s,
      {
        falseAnswerTarget: FALSE_ANSWER_TARGETS[s],
        coveredAnsweredRight: calibration?.settings[s].coveredAnswered ?? null,
        uncoveredAnswered: calibration?.settings[s].uncoveredAnswered ?? null,
      },
    ]),
  ) as Record<(typeof ANSWER_THRESHOLDS)[number], z.infer<typeof settingTrade>>,
});
