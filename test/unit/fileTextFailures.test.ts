import { describe, expect, it } from 'vitest';
import { createFileTextExtractor, FileTextError } from '../../src/infrastructure/documents/fileText.js';
import { classifyReadError, publicMessage } from '../../src/infrastructure/documents/fileReadFailure.js';

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
