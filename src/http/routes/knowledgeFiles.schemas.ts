import { z } from 'zod';
import { MAX_DOCUMENT_BYTES, MAX_DOCUMENT_TITLE } from '../../domain/knowledge/documents/content.js';
import { ACCEPTED_EXTENSIONS } from '../../domain/knowledge/fileKinds.js';
import { documentSchema } from './knowledgeBase.schemas.js';
import { bearerSecurity as security, errorBody, errorResponses } from './schemas.js';

/** Largest PDF accepted (its text must still fit a document: MAX_DOCUMENT_BYTES). */
export const KNOWLEDGE_PDF_MAX_BYTES = 10 * 1024 * 1024;
/** Largest .txt/.md/.html accepted: markup around 1 MiB of text, and bounded HTML-to-text work on the event loop. */
export const KNOWLEDGE_TEXT_FILE_MAX_BYTES = 2 * 1024 * 1024;

export const mib = (bytes: number) => `${bytes / (1024 * 1024)} MiB`;

export const uploadFileSchema = {
  tags: ['knowledge-base'],
  security,
  description:
    `Uploads a file as a knowledge-base document. The request body is the file's bytes (not multipart), with its Content-Type ` +
    `(text/plain, text/markdown, text/html, application/pdf, or application/octet-stream) and its name in ?filename= or the X-Filename header. ` +
    `Accepted: ${ACCEPTED_EXTENSIONS.join(', ')}; other types are 415 UNSUPPORTED_MEDIA_TYPE. PDFs up to ${mib(KNOWLEDGE_PDF_MAX_BYTES)}, text files up to ` +
    `${mib(KNOWLEDGE_TEXT_FILE_MAX_BYTES)}, and the extracted text up to ${MAX_DOCUMENT_BYTES} bytes (413 PAYLOAD_TOO_LARGE beyond; also 413 as soon as ` +
    'a file expands past 256 MiB while read). Files are read in turns between companies: 503 SERVICE_UNAVAILABLE when the company already has ' +
    'its share waiting, or a file waited 10 s; a reading past 15 s is 400. ' +
    'A text file that is not UTF-8, a malformed PDF or a PDF without text (a scan) is 400 VALIDATION_ERROR. An HTML page keeps its main ' +
    'content only (Readability; navigation, header, footer, sidebars, cookie banners, scripts and styles removed) as readable text. ' +
    "The document's title is ?title= when given, else the file's own (an HTML page's <h1> or <title>, a PDF's Title metadata or first-page " +
    'heading, a Markdown file\'s "# heading"), else the file name without its extension. Quotas as for POST /documents (409 QUOTA_EXCEEDED).',
  querystring: z.strictObject({
    filename: z.string().trim().min(1).max(255).optional(),
    title: z.string().trim().min(1).max(MAX_DOCUMENT_TITLE).optional().describe("The document's title; absent: the file's own title, else its name"),
  }),
  response: { 201: z.object({ document: documentSchema, source: z.object({ filename: z.string(), kind: z.enum(['text', 'markdown', 'html', 'pdf']), bytes: z.number().int(), pages: z.number().int().nullable() }) }), 409: errorBody, 415: errorBody, 503: errorBody, ...errorResponses },
};
