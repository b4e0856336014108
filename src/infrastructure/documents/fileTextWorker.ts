import { parentPort, workerData } from 'node:worker_threads';
import { getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { htmlToText } from './htmlToText.js';
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
export type FileTextReply = { ok: true; text: string; pages: number | null } | { ok: false; failure: FileReadFailure };

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
async function pdfText(bytes: ArrayBuffer): Promise<{ text: string; pages: number }> {
  await getResolvedPDFJS(); // loaded (and its polyfills installed on the real Uint8Array) before the budget
  const budget = limitByteArrays(limits.maxExpandedBytes, () => reply({ ok: false, failure: expandsTooMuch }));
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false });
  const texts: string[] = [];
  let chars = 0;
  for (let n = 1; n <= pdf.numPages; n++) {
    const content = await (await pdf.getPage(n)).getTextContent();
    let text = '';
    for (const item of content.items) if ('str' in item) text += item.str + (item.hasEOL ? '\n' : '');
    chars += text.length;
    if (chars > limits.maxTextChars) throw new TooMuchText();
    texts.push(text);
  }
  // pdf.js tolerates some failures inside a page (a font it could not load): a budget passed there still fails the file.
  if (budget.exceeded()) throw new ByteBudgetError('passed earlier');
  const merged = texts.join('\n').replace(/[^\S\n]+/g, ' ').replace(/ ?\n ?/g, '\n').replace(/\n{3,}/g, '\n\n');
  return { text: merged, pages: pdf.numPages };
}

try {
  if (file.kind === 'html') reply({ ok: true, text: htmlToText(file.html), pages: null });
  else reply({ ok: true, ...(await pdfText(file.bytes)) });
} catch (err) {
  // Classified here, where the error is: the host sees only a public message or an internal detail code. A limit
  // passed has been told already (reply() sends one answer only).
  reply({ ok: false, failure: err instanceof TooMuchText ? tooMuchText : err instanceof ByteBudgetError ? expandsTooMuch : classifyReadError(err) });
}
