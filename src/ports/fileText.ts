/**
 * File → text for knowledge-base uploads. CPU-heavy, so the implementation (src/infrastructure/documents/) runs it
 * off the event loop. A failure is an Error with `reason` 'malformed' | 'timeout' | 'busy' | 'failed' (FileTextError).
 */
export interface FileTextReader {
  /** The text of every page, in order; throws when the file cannot be read. */
  pdfText(bytes: Uint8Array): Promise<{ text: string; pages: number }>;
  /** The readable text of an HTML page (see infrastructure/documents/htmlToText). */
  htmlText(html: string): Promise<string>;
}
