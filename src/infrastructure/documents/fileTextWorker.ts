import { parentPort, workerData } from 'node:worker_threads';
import { extractText, getDocumentProxy } from 'unpdf';
import { htmlToText } from './htmlToText.js';
import { classifyReadError } from './fileReadFailure.js';

/**
 * One file → its text, on a short-lived worker thread: PDF parsing (pdf.js) takes seconds of CPU for a large
 * file and HTML-to-text hundreds of milliseconds for a big page, neither of which may run on the HTTP loop.
 */
type Job = { kind: 'pdf'; bytes: ArrayBuffer } | { kind: 'html'; html: string };

async function run(job: Job): Promise<{ text: string; pages: number | null }> {
  if (job.kind === 'html') return { text: htmlToText(job.html), pages: null };
  const pdf = await getDocumentProxy(new Uint8Array(job.bytes), { isEvalSupported: false });
  const { text, totalPages } = await extractText(pdf, { mergePages: true });
  return { text, pages: totalPages };
}

try {
  parentPort!.postMessage({ ok: true, ...(await run(workerData as Job)) });
} catch (err) {
  // Classified here, where the error is: the host sees only a public message or an internal detail code.
  parentPort!.postMessage({ ok: false, failure: classifyReadError(err) });
}
