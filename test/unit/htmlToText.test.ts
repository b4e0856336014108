import { describe, expect, it } from 'vitest';
import { htmlToText } from '../../src/infrastructure/documents/htmlToText.js';

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
    expect(htmlToText('&lt;a&gt; &quot;q&quot; &#39;s&#39; &#x1F600; &eacute; &unknown; &#0; &#xD800;')).toBe('<a> "q" \'s\' 😀 é &unknown; \uFFFD \uFFFD');
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
    htmlToText('<div>'.repeat(200_000)); // nesting: no element stack to shift on every tag
    // Quadratic, any one of these would take minutes.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  describe('ordinary HTML a hand-written scanner got wrong (issue 21, defect 10)', () => {
    it('given an attribute value holding ">", when converted, then no attribute text leaks into the page text', () => {
      expect(htmlToText('<p>See <a title="x>y" href="/faq">the FAQ</a>.</p>')).toBe('See the FAQ.');
      expect(htmlToText("<p><img alt='a > b' src=x>ok</p>")).toBe('a > b ok');
    });

    it('given any named reference of HTML, with or without its semicolon where HTML allows it, then it is decoded', () => {
      expect(htmlToText('<p>&bdquo;Zdravo&ldquo; &scaron;ef &copy 2024 &hearts;</p>')).toBe('„Zdravo“ šef © 2024 ♥');
    });

    it('given a <pre> block, then its line breaks and indentation are kept, and the text around it is tidied as before', () => {
      const html = '<p>Run:</p><pre>npm   install\n  npm start\n\nDone</pre><p>Then   wait.</p>';
      expect(htmlToText(html)).toBe('Run:\n\nnpm   install\n  npm start\n\nDone\n\nThen wait.');
    });

    it('given a <textarea>, then its text is dropped like any form control value', () => {
      expect(htmlToText('<form><p>Question</p><textarea name="q">type <b>here</b></textarea></form><p>after</p>')).toBe('Question\n\nafter');
    });
  });
});
