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
  /**
   * The text of every page, in order, and the PDF's title (its metadata's Title, else the first page's heading;
   * null: none); throws when the file cannot be read.
   */
  pdfText(bytes: Uint8Array, options?: FileReadOptions): Promise<{ text: string; pages: number; title: string | null }>;
  /**
   * The main content of an HTML page as text, without its navigation, header, footer, sidebars and cookie banner,
   * and the page's title (its `<h1>`, else `<title>`; null: none). See infrastructure/documents/mainContent.
   */
  htmlText(html: string, options?: FileReadOptions): Promise<{ text: string; title: string | null }>;
}
