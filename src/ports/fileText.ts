/**
 * File → text for knowledge-base uploads. CPU-heavy, so the implementation (src/infrastructure/documents/) runs it
 * off the event loop, in turns between companies. A failure is an Error with `reason` 'malformed' | 'too-large' |
 * 'timeout' | 'busy' | 'aborted' | 'failed' (FileTextError).
 */
export interface FileReadOptions {
  /** Whose file: the readers are shared between companies in turns, so one company cannot take them all. */
  companyId?: string;
  /** Aborted when nobody waits for the text any more (the uploader went away): the reading stops and frees its thread. */
  signal?: AbortSignal;
}

export interface FileTextReader {
  /** The text of every page, in order; throws when the file cannot be read. */
  pdfText(bytes: Uint8Array, options?: FileReadOptions): Promise<{ text: string; pages: number }>;
  /** The readable text of an HTML page (see infrastructure/documents/htmlToText). */
  htmlText(html: string, options?: FileReadOptions): Promise<string>;
}
