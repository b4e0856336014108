import { describe, expect, it } from 'vitest';
import { decodeEntities, htmlToText } from '../../../../src/domain/knowledge/htmlToText.js';
import { decodeTextFile, fileKindOf, looksLikePdf, titleFromFilename } from '../../../../src/domain/knowledge/fileKinds.js';

describe('htmlToText', () => {
  it('keeps the readable text of a page: title, headings, paragraphs, list items, table cells', () => {
    const html = `<!doctype html><html><head><title>Shipping &amp; returns</title><meta charset="utf-8"><style>p{color:red}</style></head>
      <body><h1>Shipping</h1><p>We ship to <b>Norway</b>,<br>Sweden and Denmark.</p>
      <ul><li>Free over 500&nbsp;kr</li><li>3&ndash;5 days</li></ul>
      <table><tr><td>Oslo</td><td>1 day</td></tr></table></body></html>`;
    expect(htmlToText(html)).toBe('Shipping & returns\n\nShipping\n\nWe ship to Norway,\nSweden and Denmark.\n\n- Free over 500 kr\n- 3–5 days\n\nOslo 1 day');
  });

  it('drops scripts, styles, comments and templates, whatever their case or content', () => {
    const html = '<p>a</p><SCRIPT type="x">if (a < b && "</p>") alert(1)</SCRIPT><!-- secret <p>hidden</p> --><style>b{}</style><template><p>t</p></template><p>b</p>';
    expect(htmlToText(html)).toBe('a\n\nb');
  });

  it('an unclosed script swallows the rest, an unclosed comment too (as browsers do)', () => {
    expect(htmlToText('<p>kept</p><script>var x = 1; <p>not text</p>')).toBe('kept');
    expect(htmlToText('<p>kept</p><!-- open <p>gone</p>')).toBe('kept');
  });

  it('keeps a bare "<" that opens no tag, and image alt text', () => {
    expect(htmlToText('<p>1 < 2 and 3 > 2</p><img src="x.png" alt="A red bike">')).toBe('1 < 2 and 3 > 2\n\nA red bike');
  });

  it('decodes named, decimal and hex references; leaves unknown names; invalid code points become U+FFFD', () => {
    expect(decodeEntities('&lt;a&gt; &quot;q&quot; &#39;s&#39; &#x1F600; &eacute; &unknown; &#0; &#xD800;')).toBe('<a> "q" \'s\' 😀 é &unknown; \uFFFD \uFFFD');
  });

  it('does not decode twice (&amp;lt; is the text "&lt;")', () => {
    expect(htmlToText('<p>&amp;lt;b&amp;gt;</p>')).toBe('&lt;b&gt;');
  });

  // It runs on a worker thread (the upload route), so the bound is about not being quadratic: ~0.3 s idle.
  it('stays linear on hostile input: megabytes of unclosed tags, scripts, comments and bare "<" in a few seconds at most', () => {
    const hostile = '<script>'.repeat(100_000) + '<a '.repeat(300_000) + '<!--'.repeat(50_000);
    const started = performance.now();
    htmlToText(hostile);
    htmlToText('<p>x</p>'.repeat(260_000));
    htmlToText('< '.repeat(1_000_000));
    // Quadratic, any one of these would take minutes.
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

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
