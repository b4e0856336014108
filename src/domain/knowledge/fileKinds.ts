/**
 * Which uploaded files the knowledge base takes, and how each becomes text. Pure: the HTTP layer hands in the
 * file name, its Content-Type and its bytes; PDF text extraction itself runs elsewhere (off the event loop).
 */

export type FileKind = 'text' | 'markdown' | 'html' | 'pdf';

const BY_EXTENSION: Record<string, FileKind> = { txt: 'text', text: 'text', md: 'markdown', markdown: 'markdown', html: 'html', htm: 'html', pdf: 'pdf' };
const BY_TYPE: Record<string, FileKind> = {
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/pdf': 'pdf',
};
/** Content-Types that say nothing about the file: the name's extension decides. */
const GENERIC = new Set(['application/octet-stream', 'binary/octet-stream', '']);

export const ACCEPTED_EXTENSIONS = ['.txt', '.md', '.html', '.htm', '.pdf'] as const;

export type KindResult = { ok: true; kind: FileKind } | { ok: false; message: string };

export function fileKindOf(filename: string, contentType: string | undefined): KindResult {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const dot = filename.lastIndexOf('.');
  const ext = dot > 0 ? filename.slice(dot + 1).toLowerCase() : '';
  const byExt = ext ? BY_EXTENSION[ext] : undefined;
  const byType = BY_TYPE[type];
  const accepted = `accepted: ${ACCEPTED_EXTENSIONS.join(', ')}`;
  if (ext && !byExt) return { ok: false, message: `file: .${ext.slice(0, 20)} files are not supported (${accepted})` };
  if (!GENERIC.has(type) && !byType) return { ok: false, message: `Content-Type ${type.slice(0, 60)} is not supported (${accepted})` };
  if (byExt && byType && byExt !== byType && !(byType === 'text' && byExt === 'markdown')) {
    return { ok: false, message: `file: the name says .${ext} but the Content-Type says ${type}` };
  }
  const kind = byExt ?? byType;
  return kind ? { ok: true, kind } : { ok: false, message: `file: cannot tell the file type; give a file name ending in one of ${ACCEPTED_EXTENSIONS.join(', ')}` };
}

/** A PDF starts with "%PDF-" (some writers put a little junk before it; the format allows 1 KiB). */
export const looksLikePdf = (bytes: Uint8Array) => Buffer.from(bytes.subarray(0, 1024)).includes('%PDF-');

/** Text files must be UTF-8 (a BOM is dropped) and not binary (no NUL bytes). Null when they are not. */
export function decodeTextFile(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
}

/** The document title a file gets when none is given: its name without the extension. */
export function titleFromFilename(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? filename;
  const dot = base.lastIndexOf('.');
  return (dot > 0 ? base.slice(0, dot) : base).trim();
}

/**
 * A Markdown file's own title: its first line, when that line is a level-1 heading ("# Returns policy"), as
 * an HTML page's `<h1>` or a PDF's heading title theirs. Null otherwise (then the file name titles it).
 */
export function markdownTitle(text: string): string | null {
  const first = /^\s*#[ \t]+([^\n]+)/.exec(text.slice(0, 1000));
  const title = first?.[1]!.replace(/[ \t]+#+[ \t]*$/, '').trim() ?? '';
  return title.length > 0 && title.length <= 200 ? title : null;
}
