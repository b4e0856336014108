import { describe, expect, it } from 'vitest';
import { createFileTextExtractor, FileTextError } from '../../src/infrastructure/documents/fileText.js';
import { classifyReadError, publicMessage } from '../../src/infrastructure/documents/fileReadFailure.js';
import { buildDeflateBombPdf } from '../support/pdfBomb.js';
import { buildPdf } from '../support/pdfFixture.js';

/** A file that cannot be read is told apart from a reader that cannot read, and neither names the server's insides. */
describe('file reading failures', () => {
  it("a reader thread that cannot start is the reader's failure: a generic message, and a detail for the log without its path", async () => {
    const files = createFileTextExtractor({ entry: new URL('./noSuchFileTextWorker.js', import.meta.url) });
    const err = await files.htmlText('<p>hello</p>').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileTextError);
    expect(err).toMatchObject({ reason: 'failed', message: 'the file reader failed', detail: expect.stringMatching(/MODULE_NOT_FOUND/) });
    expect(`${(err as FileTextError).message} ${(err as FileTextError).detail}`).not.toMatch(/noSuchFileTextWorker|\//);
  });

  it("a malformed PDF is the file's fault, in pdf.js's own short words", async () => {
    const files = createFileTextExtractor();
    const err = await files.pdfText(Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog garbage')).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'malformed', message: 'Invalid PDF structure' });
  });

  it("what pdf.js throws about a file is the file's; anything else (a module that did not load) is the reader's", () => {
    const pdfError = Object.assign(new Error('Invalid PDF structure.'), { name: 'InvalidPDFException' });
    expect(classifyReadError(pdfError)).toEqual({ fault: 'file', message: 'Invalid PDF structure' });
    expect(classifyReadError(Object.assign(new Error('x'), { name: 'PasswordException' }))).toEqual({ fault: 'file', message: 'the PDF is password-protected' });
    const notFound = Object.assign(new Error("Cannot find module '/srv/app/dist/pdf.mjs'"), { code: 'ERR_MODULE_NOT_FOUND' });
    expect(classifyReadError(notFound)).toEqual({ fault: 'reader', detail: 'Error ERR_MODULE_NOT_FOUND' });
  });

  it('a message that names a path, module or stack frame is replaced by the fallback', () => {
    expect(publicMessage('Bad XRef entry at /srv/app/x.js', 'fallback')).toBe('fallback');
    expect(publicMessage('Unexpected token\n    at parse (file:///srv/app/a.js:1:1)', 'fallback')).toBe('Unexpected token');
    expect(publicMessage('Invalid PDF structure.', 'fallback')).toBe('Invalid PDF structure');
  });
});

/** While it reads, not after: what a file may expand into and the text it may yield are capped, and a reading nobody waits for stops. */
describe('file reading limits', () => {
  it('given a 1 MiB PDF whose stream inflates to 1 GiB, when it is read, then it is refused as too large within seconds, and memory stays bounded', async () => {
    const files = createFileTextExtractor();
    const bomb = buildDeflateBombPdf(1024);
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
    const started = performance.now();
    const err = await files.pdfText(bomb, { companyId: 'c' }).catch((e: unknown) => e);
    const took = performance.now() - started;
    clearInterval(sampler);
    // Before: pdf.js inflated the whole gigabyte outside the thread's heap cap (RSS +1–2 GB), then ran into the 30 s deadline.
    expect(err).toMatchObject({ reason: 'too-large', message: expect.stringMatching(/expands to more than 256 MiB/) });
    expect(took, `took ${took.toFixed(0)} ms`).toBeLessThan(10_000);
    expect(peak - before, `RSS grew by ${((peak - before) / 2 ** 20).toFixed(0)} MiB`).toBeLessThan(700 * 2 ** 20);
  }, 30_000);

  it('given a cap on the text a file may yield, when a longer PDF is read, then the reading stops and the file is refused as too large', async () => {
    const files = createFileTextExtractor({ maxTextChars: 2_000 });
    const pdf = buildPdf(Array.from({ length: 20 }, (_, p) => Array.from({ length: 10 }, (_, l) => `Page ${p} line ${l}: the warranty covers parts and labour.`)));
    await expect(files.pdfText(pdf)).rejects.toMatchObject({ reason: 'too-large', message: 'it holds more than 2000 characters of text' });
    const short = buildPdf([['Returns are free for 30 days.']]);
    expect((await files.pdfText(short)).text).toBe('Returns are free for 30 days.');
  });

  it('given a reading past its deadline, then it is refused as a timeout at the deadline (by default 15 s, inside the 30 s connection timeout)', async () => {
    const files = createFileTextExtractor({ timeoutMs: 300 });
    const big = buildPdf(Array.from({ length: 300 }, (_, p) => Array.from({ length: 40 }, (_, l) => `Page ${p} line ${l}: the warranty covers parts and labour.`)));
    const started = performance.now();
    await expect(files.pdfText(big)).rejects.toMatchObject({ reason: 'timeout', message: 'reading the file took longer than 0.3 s' });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("given a company's file being read, when its reading is aborted, then it stops at once and the company's next file is read without waiting for it", async () => {
    const files = createFileTextExtractor({ concurrency: 2 });
    const controller = new AbortController();
    const big = buildPdf(Array.from({ length: 300 }, (_, p) => Array.from({ length: 40 }, (_, l) => `Page ${p} line ${l}: the warranty covers parts and labour.`)));
    const slow = files.pdfText(big, { companyId: 'c', signal: controller.signal }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const aborted = performance.now();
    controller.abort();
    expect(await slow).toMatchObject({ reason: 'aborted' });
    expect(performance.now() - aborted).toBeLessThan(100);
    // The company's one reader (of two) is free again: its next file does not wait behind the aborted one.
    expect((await files.htmlText('<p>next</p>', { companyId: 'c' })).text).toBe('next');
  });
});
