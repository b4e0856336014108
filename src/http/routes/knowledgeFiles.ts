import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ServerResponse } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { addKnowledgeDocument } from '../../commands/knowledge/knowledgeDocuments.js';
import { contentBytes, MAX_DOCUMENT_BYTES, MAX_DOCUMENT_TITLE } from '../../domain/knowledge/documents/content.js';
import { decodeTextFile, fileKindOf, looksLikePdf, markdownTitle, titleFromFilename, type FileKind } from '../../domain/knowledge/fileKinds.js';
import { authenticator, authOf } from '../authenticate.js';
import { HttpError } from '../errors.js';
import type { HttpServices } from '../services.js';
import type { FileReadOptions, FileTextReader } from '../../ports/fileText.js';
import { writtenDocumentView } from './knowledgeBase.schemas.js';
import { KNOWLEDGE_PDF_MAX_BYTES, KNOWLEDGE_TEXT_FILE_MAX_BYTES, mib, uploadFileSchema } from './knowledgeFiles.schemas.js';

/**
 * What the reader throws: `reason` tells a bad file (malformed, too-large, timeout) from a busy service, from an
 * upload given up by its sender (aborted) and from a reader that failed on its own (`failed`: its message is generic; `detail`, an error name and code, is for the log).
 */
type ReadFailure = Error & { reason?: 'malformed' | 'too-large' | 'timeout' | 'busy' | 'aborted' | 'failed'; detail?: string };

const unsupported = (message: string) => new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', message);
const unreadable = (message: string) => new HttpError(400, 'VALIDATION_ERROR', message);
const tooLarge = (message: string) => new HttpError(413, 'PAYLOAD_TOO_LARGE', message);

/**
 * POST /api/knowledge-base/files: a .txt, .md, .html or .pdf file becomes a knowledge-base document.
 *
 * The body is the file itself (not multipart: @fastify/multipart is not a dependency, and a raw body needs no
 * parser, buffering or temp files of its own). The name comes from `?filename=` or the `X-Filename` header
 * (URL-encoded); the type from its extension, or from the Content-Type when the name has none.
 */
export function knowledgeFileRoutes(services: HttpServices, options: { files: FileTextReader }): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    // A declared size over the limit is refused before a byte of the body is read.
    app.addHook('onRequest', async (request) => {
      const declared = Number(request.headers['content-length'] ?? NaN);
      if (Number.isFinite(declared) && declared > KNOWLEDGE_PDF_MAX_BYTES) {
        throw tooLarge(`file: at most ${mib(KNOWLEDGE_PDF_MAX_BYTES)} (PDF) or ${mib(KNOWLEDGE_TEXT_FILE_MAX_BYTES)} (.txt, .md, .html)`);
      }
    });
    // This plugin's routes take any body as raw bytes (encapsulated: other routes keep their JSON parser).
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: KNOWLEDGE_PDF_MAX_BYTES }, (_request, body, done) => done(null, body));

    app.post('/api/knowledge-base/files', { bodyLimit: KNOWLEDGE_PDF_MAX_BYTES, schema: uploadFileSchema }, async (request, reply) => {
      const auth = authOf(request);
      const file = await uploadedFile(request, request.query, { reader: options.files, companyId: auth.companyId, signal: whileClientWaits(reply.raw) });
      const chunkCount = await services.knowledge.chunkCount({ title: file.title, content: file.content });
      const result = await addKnowledgeDocument(services.commands, {
        companyId: auth.companyId,
        userId: auth.userId,
        title: file.title,
        content: file.content,
        chunkCount,
        limits: services.config.knowledgeQuota,
      });
      if (result.position !== null) await Promise.all([services.waitForProjections(result.position), services.knowledge.waitForPosition(result.position)]);
      return reply.status(201).send({ document: writtenDocumentView(result, chunkCount), source: file.source });
    });
  };
}

/**
 * Aborted when the connection closes before the answer is sent (the uploader went away): the file's reading, or
 * its place in the queue, is given up at once instead of running to its deadline for nobody.
 */
function whileClientWaits(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}

type Reading = FileReadOptions & { reader: FileTextReader };

/** The uploaded file read as a document: its title and text, and where it came from (or the 4xx that refuses it). */
async function uploadedFile(request: FastifyRequest, query: { filename?: string | undefined; title?: string | undefined }, reading: Reading) {
  const filename = query.filename ?? headerFilename(request.headers['x-filename']);
  if (!filename) throw unreadable('filename: give the file name in ?filename= or the X-Filename header');
  const body = request.body;
  if (!Buffer.isBuffer(body) || body.length === 0) throw unreadable('file: the request body (the file) is empty');
  const kind = fileKindOf(filename, request.headers['content-type']);
  if (!kind.ok) throw unsupported(kind.message);
  const { text, pages, title: ownTitle } = await textOf(kind.kind, body, reading, (detail) => request.log.error({ fileReader: detail, kind: kind.kind }, 'file reader failed'));
  const content = text.trim();
  if (!content) throw unreadable(kind.kind === 'pdf' ? 'file: the PDF has no text to read (a scanned image? only PDFs with a text layer are supported)' : 'file: the file has no text');
  const bytes = contentBytes(content);
  if (bytes > MAX_DOCUMENT_BYTES) throw tooLarge(`file: its text is ${bytes} bytes; a document holds at most ${MAX_DOCUMENT_BYTES} bytes (1 MiB) of UTF-8 text`);
  // The uploader's title, else the file's own (a page's <h1>/<title>, a PDF's metadata or heading, a Markdown
  // file's "# heading"), else its name: "returns" says less than "Returns and refunds".
  const title = (query.title ?? ownTitle ?? titleFromFilename(filename)).slice(0, MAX_DOCUMENT_TITLE).trim() || 'Untitled';
  return { title, content, source: { filename, kind: kind.kind, bytes: body.length, pages } };
}

function headerFilename(value: string | string[] | undefined): string | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  try {
    return decodeURIComponent(raw).trim().slice(0, 255) || undefined;
  } catch {
    return raw.trim().slice(0, 255) || undefined;
  }
}

async function textOf(kind: FileKind, body: Buffer, reading: Reading, logReaderFailure: (detail: string) => void): Promise<{ text: string; pages: number | null; title: string | null }> {
  const { reader, ...readOptions } = reading;
  try {
    if (kind === 'pdf') {
      if (!looksLikePdf(body)) throw unreadable('file: not a PDF (it does not start with %PDF-)');
      return await reader.pdfText(body, readOptions);
    }
    if (body.length > KNOWLEDGE_TEXT_FILE_MAX_BYTES) throw tooLarge(`file: a .txt, .md or .html file may be at most ${mib(KNOWLEDGE_TEXT_FILE_MAX_BYTES)}`);
    const text = decodeTextFile(body);
    if (text === null) throw unreadable('file: not UTF-8 text (a binary file, or another character encoding)');
    if (kind === 'html') return { ...(await reader.htmlText(text, readOptions)), pages: null };
    return { text, pages: null, title: kind === 'markdown' ? markdownTitle(text) : null };
  } catch (err) {
    const failure = err as ReadFailure;
    if (failure.reason === 'busy') throw new HttpError(503, 'SERVICE_UNAVAILABLE', 'Too many files are being read right now; try again shortly', 5);
    if (failure.reason === 'timeout') throw unreadable(`file: ${failure.message}; it is too complex to read`);
    if (failure.reason === 'too-large') throw tooLarge(`file: too large to read: ${failure.message}`);
    // The uploader went away: nobody reads this answer, the log does.
    if (failure.reason === 'aborted') throw new HttpError(400, 'VALIDATION_ERROR', 'file: the upload was cancelled before the file was read');
    if (failure.reason === 'malformed') throw unreadable(kind === 'pdf' ? `file: not a readable PDF (${failure.message})` : `file: could not be read (${failure.message})`);
    // Not the file's fault: a 500 that says nothing of the server (the reader's detail goes to the log).
    if (failure.reason === 'failed') {
      logReaderFailure(failure.detail ?? 'unknown');
      throw new HttpError(500, 'INTERNAL_ERROR', 'The file could not be read because of a server error; nothing was stored');
    }
    throw err;
  }
}
