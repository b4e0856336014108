import { describe, expect, it } from 'vitest';
import { decodeTextFile, fileKindOf, looksLikePdf, markdownTitle, titleFromFilename } from '../../../../src/domain/knowledge/fileKinds.js';

describe('file kinds', () => {
  it('takes .txt, .md, .html and .pdf by name, or by Content-Type when the name has no extension', () => {
    expect(fileKindOf('faq.md', 'application/octet-stream')).toEqual({ ok: true, kind: 'markdown' });
    expect(fileKindOf('faq.md', 'text/plain; charset=utf-8')).toEqual({ ok: true, kind: 'markdown' });
    expect(fileKindOf('Page.HTML', 'text/html')).toEqual({ ok: true, kind: 'html' });
    expect(fileKindOf('manual', 'application/pdf')).toEqual({ ok: true, kind: 'pdf' });
    expect(fileKindOf('notes.txt', undefined)).toEqual({ ok: true, kind: 'text' });
  });

  it('refuses .docx, images, and a name that contradicts its Content-Type', () => {
    expect(fileKindOf('offer.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document')).toMatchObject({ ok: false, message: expect.stringContaining('.docx') });
    expect(fileKindOf('logo.png', 'image/png')).toMatchObject({ ok: false });
    expect(fileKindOf('logo', 'image/png')).toMatchObject({ ok: false, message: expect.stringContaining('image/png') });
    expect(fileKindOf('a.pdf', 'text/html')).toMatchObject({ ok: false });
    expect(fileKindOf('noext', 'application/octet-stream')).toMatchObject({ ok: false });
  });

  it('text must be UTF-8 without NUL bytes; a BOM is dropped', () => {
    expect(decodeTextFile(Buffer.from('\uFEFFhéllo'))).toBe('héllo');
    expect(decodeTextFile(Buffer.from([0x68, 0xe9, 0x6c]))).toBeNull(); // Latin-1 "hél"
    expect(decodeTextFile(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00]))).toBeNull();
  });

  it('a PDF is recognised by its %PDF- header; the title is the name without extension', () => {
    expect(looksLikePdf(Buffer.from('%PDF-1.7\n…'))).toBe(true);
    expect(looksLikePdf(Buffer.from('PK\u0003\u0004 a zip'))).toBe(false);
    expect(titleFromFilename('C:\\docs\\Shipping policy.v2.pdf')).toBe('Shipping policy.v2');
  });
});

describe('markdownTitle: a Markdown file titled by its own heading', () => {
  it('given a file opening with a level-1 heading, then that heading (closing hashes dropped); otherwise none', () => {
    expect(markdownTitle('# Returns and refunds #\n\nFree within 30 days.')).toBe('Returns and refunds');
    expect(markdownTitle('\n  # Shipping\ntext')).toBe('Shipping');
    expect(markdownTitle('## Shipping\ntext')).toBeNull();
    expect(markdownTitle('Returns are free.\n# Later heading')).toBeNull();
    expect(markdownTitle(`# ${'x'.repeat(201)}`)).toBeNull();
  });
});
