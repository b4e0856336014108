import { parentPort, workerData } from 'node:worker_threads';
import { getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { readablePage } from './mainContent.js';
import { ByteBudgetError, limitByteArrays } from './byteBudget.js';
import { classifyReadError, type FileReadFailure } from './fileReadFailure.js';

/**
 * One file → its text, on a short-lived worker thread: PDF parsing (pdf.js) takes seconds of CPU for a large
 * file and HTML-to-text hundreds of milliseconds for a big page, neither of which may run on the HTTP loop.
 *
 * Bounded while it reads, not after: the bytes it may allocate as byte arrays (what a compressed stream inflates
 * into: byteBudget.ts), the text it may collect (pages are read one at a time and reading stops past
 * `maxTextChars`), and its heap (the host's resourceLimits). A limit passed is told to the host at once, which
 * terminates the thread.
 */
export interface FileTextJob {
  file: { kind: 'pdf'; bytes: ArrayBuffer } | { kind: 'html'; html: string };
  limits: { maxExpandedBytes: number; maxTextChars: number };
}
/** `title`: the page's or PDF's own title (mainContent.ts, pdfTitle), null when it has none. */
export type FileTextReply = { ok: true; text: string; pages: number | null; title: string | null } | { ok: false; failure: FileReadFailure };

const { file, limits } = workerData as FileTextJob;
let replied = false;
const reply = (message: FileTextReply) => {
  if (replied) return;
  replied = true;
  parentPort!.postMessage(message);
};
const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;
const expandsTooMuch: FileReadFailure = { fault: 'too-large', message: `its content expands to more than ${mib(limits.maxExpandedBytes)} when read` };
const tooMuchText: FileReadFailure = { fault: 'too-large', message: `it holds more than ${limits.maxTextChars} characters of text` };

class TooMuchText extends Error {}

/** Page by page (unpdf's extractText reads every page at once), joined as unpdf's mergePages does. */
async function pdfText(bytes: ArrayBuffer): Promise<{ text: string; pages: number; title: string | null }> {
  await getResolvedPDFJS(); // loaded (and its polyfills installed on the real Uint8Array) before the budget
  const budget = limitByteArrays(limits.maxExpandedBytes, () => reply({ ok: false, failure: expandsTooMuch }));
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false });
  const texts: string[] = [];
  let chars = 0;
  let heading: string | null = null;
  for (let n = 1; n <= pdf.numPages; n++) {
    const content = await (await pdf.getPage(n)).getTextContent();
    if (n === 1) heading = firstHeading(content.items);
    let text = '';
    for (const item of content.items) if ('str' in item) text += item.str + (item.hasEOL ? '\n' : '');
    chars += text.length;
    if (chars > limits.maxTextChars) throw new TooMuchText();
    texts.push(text);
  }
  // pdf.js tolerates some failures inside a page (a font it could not load): a budget passed there still fails the file.
  if (budget.exceeded()) throw new ByteBudgetError('passed earlier');
  const merged = texts.join('\n').replace(/[^\S\n]+/g, ' ').replace(/ ?\n ?/g, '\n').replace(/\n{3,}/g, '\n\n');
  return { text: merged, pages: pdf.numPages, title: (await metadataTitle(pdf)) ?? heading };
}

/** The Title of the PDF's document information, unless it is empty or a file name a tool left there ("Microsoft Word - x.docx"). */
async function metadataTitle(pdf: Awaited<ReturnType<typeof getDocumentProxy>>): Promise<string | null> {
  const info = (await pdf.getMetadata().catch(() => null))?.info as { Title?: unknown } | undefined;
  const title = typeof info?.Title === 'string' ? info.Title.replace(/\s+/g, ' ').trim() : '';
  if (!title || title.length > 200 || /\.(docx?|pdf|pages|odt|rtf|txt|indd)$/i.test(title) || /^(untitled|microsoft word)/i.test(title)) return null;
  return title;
}

type TextItems = Awaited<ReturnType<Awaited<ReturnType<Awaited<ReturnType<typeof getDocumentProxy>>['getPage']>>['getTextContent']>>['items'];

/**
 * The first page's heading: its first line set in the largest type, if that type is larger than the page's body
 * text (the most common size): a title page or a document that opens with a heading. Null otherwise.
 */
function firstHeading(items: TextItems): string | null {
  const runs = items.flatMap((item) => ('str' in item && item.str.trim() ? [{ text: item.str, size: Math.round(Math.abs(item.transform[3] ?? item.height) * 10) / 10, eol: item.hasEOL }] : []));
  if (runs.length === 0) return null;
  const chars = new Map<number, number>();
  for (const run of runs) chars.set(run.size, (chars.get(run.size) ?? 0) + run.text.length);
  const body = [...chars].sort((a, b) => b[1] - a[1])[0]![0];
  const largest = Math.max(...runs.map((r) => r.size));
  if (largest <= body * 1.15) return null;
  const start = runs.findIndex((r) => r.size === largest);
  let line = '';
  for (const run of runs.slice(start)) {
    if (run.size !== largest) break;
    line += run.text + (run.eol ? ' ' : '');
  }
  const title = line.replace(/\s+/g, ' ').trim();
  return title.length > 0 && title.length <= 200 ? title : null;
}

try {
  if (file.kind === 'html') {
    const page = readablePage(file.html);
    reply({ ok: true, text: page.text, pages: null, title: page.title });
  }
  else reply({ ok: true, ...(await pdfText(file.bytes)) });
} catch (err) {
  // Classified here, where the error is: the host sees only a public message or an internal detail code. A limit
  // passed has been told already (reply() sends one answer only).
  reply({ ok: false, failure: err instanceof TooMuchText ? tooMuchText : err instanceof ByteBudgetError ? expandsTooMuch : classifyReadError(err) });
}
