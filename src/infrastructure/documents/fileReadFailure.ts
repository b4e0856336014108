/**
 * Why a file could not be read, in words an uploader may see. Whatever a parser or the runtime throws is
 * classified here, on the worker and on the host, so that no message carrying a server path, module name or
 * stack reaches a client: the file's own faults keep pdf.js's short fixed wording (a file that passes a reading
 * limit is 'too-large', in the reader's own words), and everything else (the
 * reader could not start, a module failed to load) becomes the reader's failure, told in generic words.
 */
export type FileReadFailure = { fault: 'file'; message: string } | { fault: 'too-large'; message: string } | { fault: 'reader'; detail: string };

/** What pdf.js throws for a file it cannot read (subclasses of its BaseException); anything else is not the file's fault. */
const PDF_FILE_FAULTS: Record<string, string | null> = {
  InvalidPDFException: null,
  FormatError: null,
  UnknownErrorException: null,
  MissingPDFException: 'the file is empty or not a PDF',
  PasswordException: 'the PDF is password-protected',
};

const MAX_MESSAGE = 200;

/** A message is shown only if it looks like prose: no path, URL, module specifier or stack frame. */
const INTERNALS = /[/\\]|file:|node:|\bat\s+\S+\s*\(|\.m?[jt]s\b|ERR_[A-Z_]/;

export function publicMessage(message: string, fallback: string): string {
  const first = message.split('\n')[0]!.trim().slice(0, MAX_MESSAGE);
  return first && !INTERNALS.test(first) ? first.replace(/\.$/, '') : fallback;
}

/** Classifies what reading a file threw (on the worker thread). */
export function classifyReadError(err: unknown): FileReadFailure {
  const e = err as { name?: unknown; code?: unknown; message?: unknown } | null;
  const name = typeof e?.name === 'string' ? e.name : 'Error';
  if (name in PDF_FILE_FAULTS) {
    return { fault: 'file', message: PDF_FILE_FAULTS[name] ?? publicMessage(String(e?.message ?? ''), 'its structure is invalid') };
  }
  return { fault: 'reader', detail: readerDetail(err) };
}

/** For the server's log: the error's name and code, never its message (which may hold a path). */
export function readerDetail(err: unknown): string {
  const e = err as { name?: unknown; code?: unknown } | null;
  const name = typeof e?.name === 'string' ? e.name : typeof err;
  return typeof e?.code === 'string' ? `${name} ${e.code}` : name;
}
