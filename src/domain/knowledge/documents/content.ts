/** A knowledge-base document's content limit: 1 MiB of UTF-8. A literal: the dashboard checks its copy against the type. */
export const MAX_DOCUMENT_BYTES = 1_048_576;
export const MAX_DOCUMENT_TITLE = 300;
/**
 * A document's content is stored in parts of at most this many bytes of UTF-8, one event each, after a small
 * header event. A single 1 MiB event cost every reader (each projection, the search indexer, its waits) a
 * 1 MiB string to fetch, JSON-parse and validate, and a large-object allocation the young-generation GC
 * cannot reclaim, all inside one event-loop task; 64 KiB pieces are ~3× cheaper to read and collect.
 */
export const CONTENT_PART_BYTES = 64 * 1024;
export const MAX_CONTENT_PARTS = Math.ceil(MAX_DOCUMENT_BYTES / CONTENT_PART_BYTES) + 8; // + parts shortened at a character boundary

export const contentBytes = (content: string) => Buffer.byteLength(content, 'utf8');

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Splits content into consecutive pieces of at most `maxBytes` of UTF-8 each, never inside a surrogate pair,
 * so joining them gives the content back. Linear: each piece is measured a few times at most.
 */
export function splitContent(content: string, maxBytes = CONTENT_PART_BYTES): string[] {
  const parts: string[] = [];
  let start = 0;
  while (start < content.length) {
    // A UTF-16 code unit is at least one byte of UTF-8: maxBytes code units is the longest piece that may fit.
    let end = Math.min(content.length, start + maxBytes);
    for (;;) {
      if (end < content.length && end - start > 1 && isHighSurrogate(content.charCodeAt(end - 1))) end--;
      const bytes = contentBytes(content.slice(start, end));
      if (bytes <= maxBytes) break;
      end = start + Math.max(1, Math.floor(((end - start) * maxBytes) / bytes) - 1);
    }
    parts.push(content.slice(start, end));
    start = end;
  }
  return parts;
}

