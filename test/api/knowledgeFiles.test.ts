import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../support/api.js';
import { startHealthProbe } from '../support/healthProbe.js';
import { buildDeflateBombPdf } from '../support/pdfBomb.js';
import { buildPdf } from '../support/pdfFixture.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

const SHIPPING_PDF = readFileSync(new URL('../fixtures/shipping.pdf', import.meta.url));

/** A real-looking shop page: cookie banner, menu, sidebar, the article, footer, scripts. */
const SHOP_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Returns | Example Shop</title>
<link rel="stylesheet" href="/site.css"><script>window.dataLayer=[];function track(){}</script></head><body>
<div id="cookie-notice" class="cookie-notice"><p>We use cookies to improve your experience on our site.</p><button>Accept all</button><a href="/cookies">Settings</a></div>
<header class="site-header"><a class="logo" href="/">Example Shop</a>
<nav><ul><li><a href="/">Home</a></li><li><a href="/shop">Shop</a></li><li><a href="/contact">Contact</a></li></ul></nav></header>
<div class="layout"><aside class="sidebar"><h3>Popular</h3><ul><li><a href="/tents">Tents</a></li><li><a href="/boots">Boots</a></li></ul></aside>
<main><article><h1>Returns and refunds</h1>
<p>You can return any item within 30 days of delivery for a full refund. Items must be unused and in their original packaging, with the receipt.</p>
<h2>How to return an item</h2>
<p>Print the prepaid label from your account page and drop the parcel at any post office. Refunds reach your card within 5 working days.</p>
<h2>Exchanges</h2><p>Want another size? Order the new size and return the first one: we refund it as soon as it arrives.</p>
</article></main></div>
<footer><p>© Example Shop 2026. All rights reserved.</p><ul><li><a href="/privacy">Privacy</a></li><li><a href="/terms">Terms</a></li></ul></footer>
<script>track('pageview')</script></body></html>`;

let server: TestServer;
let base: string;
let acme: Awaited<ReturnType<typeof signUp>>;

beforeAll(async () => {
  server = await startTestServer({ KNOWLEDGE_MAX_DOCUMENTS: '8' });
  base = await server.listen(0, '127.0.0.1');
  acme = await signUp(server, 'Acme');
});
afterAll(async () => server?.close());

function upload(body: Buffer | string, contentType: string | null, query: string, token = acme.bearer, headers: Record<string, string> = {}) {
  return server.app.inject({
    method: 'POST',
    url: `/api/knowledge-base/files${query}`,
    payload: typeof body === 'string' ? Buffer.from(body) : body,
    headers: { authorization: `Bearer ${token}`, ...(contentType ? { 'content-type': contentType } : {}), ...headers },
  });
}
const contentOf = async (id: string) => (await acme.call('GET', `/api/knowledge-base/documents/${id}`)).json().document.content as string;

describe('POST /api/knowledge-base/files: accepted files', () => {
  it('a .md file becomes a document titled by its "# heading", found by search', async () => {
    const md = '# Returns\n\nReturns are free within **30 days** of delivery.\n';
    const res = await upload(md, 'text/markdown', '?filename=returns-policy.md');
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ document: { title: 'Returns', revision: 1 }, source: { filename: 'returns-policy.md', kind: 'markdown', bytes: Buffer.byteLength(md), pages: null } });
    expect(await contentOf(res.json().document.id)).toBe(md.trim());
    const hits = (await acme.call('GET', '/api/knowledge-base/search?q=returns%20free')).json().results;
    expect(hits[0]).toMatchObject({ documentId: res.json().document.id });
  });

  it('a .txt file named by the X-Filename header (URL-encoded) with a generic Content-Type, and a title given', async () => {
    const res = await upload('Opening hours: 9–17 on weekdays.', 'application/octet-stream', '?title=Opening%20hours', acme.bearer, { 'x-filename': encodeURIComponent('åpningstider.txt') });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ document: { title: 'Opening hours' }, source: { filename: 'åpningstider.txt', kind: 'text' } });
  });

  it('an .html page keeps its readable text only: no tags, scripts or styles; entities decoded; titled by its <title>', async () => {
    const html = '<html><head><title>Payment</title><style>body{}</style><script>track("secret")</script></head><body><p>We accept <b>Visa</b> &amp; MasterCard.</p></body></html>';
    const res = await upload(html, 'text/html; charset=utf-8', '?filename=payment.html');
    expect(res.statusCode).toBe(201);
    expect(res.json().document.title).toBe('Payment');
    expect(await contentOf(res.json().document.id)).toBe('We accept Visa & MasterCard.');
  });

  it('a shop page keeps its main content: no menu, cookie banner, sidebar or footer; titled by its <h1>, unless a title is given', async () => {
    const res = await upload(SHOP_PAGE, 'text/html', '?filename=returns.html');
    expect(res.statusCode).toBe(201);
    expect(res.json().document.title).toBe('Returns and refunds');
    const content = await contentOf(res.json().document.id);
    expect(content).toContain('You can return any item within 30 days of delivery for a full refund.');
    expect(content).toContain('Refunds reach your card within 5 working days.');
    for (const chrome of ['Home', 'Contact', 'cookies', 'Accept all', '© Example Shop', 'Popular', 'Privacy', 'track(']) expect(content).not.toContain(chrome);
    const titled = await upload(SHOP_PAGE, 'text/html', '?filename=returns.html&title=Our%20returns');
    expect(titled.json().document.title).toBe('Our returns');
  });

  it('a .pdf file: its text, page by page; titled after the file when the PDF has no title of its own', async () => {
    const res = await upload(SHIPPING_PDF, 'application/pdf', '?filename=shipping.pdf');
    expect(res.statusCode).toBe(201);
    expect(res.json().document.title).toBe('shipping');
    expect(res.json().source).toMatchObject({ kind: 'pdf', pages: 2 });
    const content = await contentOf(res.json().document.id);
    expect(content).toContain('We ship to Norway within 3 business days.');
    expect(content).toContain('Returns are free for 30 days.');
  });

  it("a .pdf file is titled by its metadata's Title, else by the heading its first page opens with", async () => {
    const withTitle = await upload(buildPdf([['Warranty: two years on every tent.']], { title: 'Warranty terms', heading: 'Ignored heading' }), 'application/pdf', '?filename=w.pdf');
    expect(withTitle.json().document.title).toBe('Warranty terms');
    const withHeading = await upload(buildPdf([['Boots can be resoled for 40 euros.']], { heading: 'Boot care' }), 'application/pdf', '?filename=boots.pdf');
    expect(withHeading.json().document.title).toBe('Boot care');
  });

  it("another company does not see the uploaded documents", async () => {
    const globex = await signUp(server, 'Globex');
    expect((await globex.call('GET', '/api/knowledge-base/documents')).json().documents).toEqual([]);
  });
});

describe('POST /api/knowledge-base/files: refused files, nothing stored', () => {
  let before: number;
  beforeAll(async () => {
    before = (await acme.call('GET', '/api/knowledge-base/documents?limit=200')).json().documents.length;
  });
  afterAll(async () => {
    expect((await acme.call('GET', '/api/knowledge-base/documents?limit=200')).json().documents.length).toBe(before);
  });

  const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
  it.each([
    ['a .docx', Buffer.from('PK\u0003\u0004word/document.xml'), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', '?filename=offer.docx', /\.docx files are not supported/],
    ['an image', PNG, 'image/png', '?filename=logo.png', /\.png files are not supported/],
    ['an image without a name extension', PNG, 'image/png', '?filename=logo', /image\/png is not supported/],
  ])('%s is 415 UNSUPPORTED_MEDIA_TYPE', async (_what, body, type, query, message) => {
    const res = await upload(body, type, query);
    expect(res.statusCode).toBe(415);
    expect(res.json().error).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringMatching(message) });
  });

  it.each([
    ['a PDF without text (a scan)', buildPdf([[]]), 'application/pdf', '?filename=scan.pdf', /has no text to read/],
    ['a malformed PDF', Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog garbage'), 'application/pdf', '?filename=broken.pdf', /not a readable PDF/],
    ['a truncated PDF', SHIPPING_PDF.subarray(0, 200), 'application/pdf', '?filename=cut.pdf', /not a readable PDF|no text/],
    ['a file named .pdf that is not one', Buffer.from('hello'), 'application/octet-stream', '?filename=fake.pdf', /not a PDF/],
    ['a Latin-1 text file', Buffer.from([0x68, 0xe9, 0x6c, 0x6c, 0x6f]), 'text/plain', '?filename=old.txt', /not UTF-8/],
    ['an empty file', Buffer.alloc(0), 'text/plain', '?filename=empty.txt', /empty/],
    ['a file of blanks', Buffer.from('  \n\t '), 'text/plain', '?filename=blank.txt', /no text/],
    ['a file without a name', Buffer.from('text'), 'text/plain', '', /filename/],
  ])('%s is 400 VALIDATION_ERROR', async (_what, body, type, query, message) => {
    const res = await upload(body, type, query);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringMatching(message) });
  });

  it('a file over 10 MiB is 413 PAYLOAD_TOO_LARGE saying the limit, before the body is read', async () => {
    const res = await upload(Buffer.alloc(10 * 1024 * 1024 + 1, 0x20), 'application/pdf', '?filename=huge.pdf');
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('10 MiB') });
  });

  it('a text file over 2 MiB, or text over 1 MiB, is 413 PAYLOAD_TOO_LARGE', async () => {
    const big = await upload(Buffer.alloc(2 * 1024 * 1024 + 1, 0x61), 'text/plain', '?filename=big.txt');
    expect(big.statusCode).toBe(413);
    expect(big.json().error.message).toContain('2 MiB');
    const long = await upload(Buffer.alloc(1024 * 1024 + 10, 0x61), 'text/plain', '?filename=long.txt');
    expect(long.statusCode).toBe(413);
    expect(long.json().error.message).toContain('1 MiB');
  });

  it('without a token: 401', async () => {
    const res = await upload('x', 'text/plain', '?filename=a.txt', 'nope');
    expect(res.statusCode).toBe(401);
  });
});

describe('POST /api/knowledge-base/files: quotas apply', () => {
  it('past KNOWLEDGE_MAX_DOCUMENTS the upload is 409 QUOTA_EXCEEDED', async () => {
    const initech = await signUp(server, 'Initech');
    for (let i = 0; i < 8; i++) {
      const res = await upload(`Fact number ${i}.`, 'text/plain', `?filename=f${i}.txt`, initech.bearer);
      expect(res.statusCode).toBe(201);
    }
    const over = await upload('One too many.', 'text/plain', '?filename=over.txt', initech.bearer);
    expect(over.statusCode).toBe(409);
    expect(over.json().error.code).toBe('QUOTA_EXCEEDED');
  });
});

describe('POST /api/knowledge-base/files: a large PDF does not stall the service', () => {
  it('/healthz keeps answering (p99 < 500 ms) while a 150-page PDF is read', async () => {
    const company = await signUp(server, 'Responsive');
    const pdf = buildPdf(Array.from({ length: 150 }, (_, p) => Array.from({ length: 40 }, (_, l) => `Page ${p} line ${l}: the warranty covers parts and labour for two years.`)));
    await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
    const probe = await startHealthProbe(base);

    const started = performance.now();
    const res = await fetch(`${base}/api/knowledge-base/files?filename=warranty.pdf`, {
      method: 'POST',
      headers: { authorization: `Bearer ${company.bearer}`, 'content-type': 'application/pdf' },
      body: new Uint8Array(pdf),
    });
    const took = performance.now() - started;
    expect(res.status).toBe(201);
    expect((await res.json()).source.pages).toBe(150);

    const { latencies, p99, max } = await probe.stop();
    // Parsed on the HTTP thread, the PDF blocked it for the whole upload (seconds): few probes, max ≈ took.
    expect(latencies.length, `probes ${latencies.length} during ${took.toFixed(0)} ms; p99 ${p99.toFixed(0)} ms, max ${max.toFixed(0)} ms`).toBeGreaterThan(20);
    expect(p99, `p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms, upload ${took.toFixed(0)} ms`).toBeLessThan(500);
  });
});

describe('POST /api/knowledge-base/files: reading is bounded', () => {
  it('given a 1 MiB PDF whose stream inflates to 1 GiB, when it is uploaded, then it is 413 within seconds, nothing stored, and memory stays bounded', async () => {
    const company = await signUp(server, 'Bombed');
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
    const started = performance.now();
    const res = await upload(buildDeflateBombPdf(1024), 'application/pdf', '?filename=bomb.pdf', company.bearer);
    const took = performance.now() - started;
    clearInterval(sampler);
    // Before: RSS grew by gigabytes while pdf.js inflated it, and at 30 s the connection was dropped unanswered.
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'file: too large to read: its content expands to more than 256 MiB when read' });
    expect(took, `took ${took.toFixed(0)} ms`).toBeLessThan(10_000);
    expect(peak - before, `RSS grew by ${((peak - before) / 2 ** 20).toFixed(0)} MiB`).toBeLessThan(700 * 2 ** 20);
    expect((await company.call('GET', '/api/knowledge-base/documents')).json().documents).toEqual([]);
  }, 30_000);
});

describe("POST /api/knowledge-base/files: one company's files do not hold everyone's readers", () => {
  it("given company A uploading 18 slow PDFs at once, when company B uploads a one-page PDF, then B's is read at once: 201, not 503", async () => {
    const a = await signUp(server, 'Slow uploads');
    const b = await signUp(server, 'One page');
    const slow = buildPdf(Array.from({ length: 150 }, (_, p) => Array.from({ length: 40 }, (_, l) => `Page ${p} line ${l}: the warranty covers parts and labour for two years.`)));
    const uploadsOfA = Array.from({ length: 18 }, (_, i) => upload(slow, 'application/pdf', `?filename=slow-${i}.pdf`, a.bearer));
    await new Promise((resolve) => setTimeout(resolve, 200));

    const started = performance.now();
    const res = await upload(SHIPPING_PDF, 'application/pdf', '?filename=shipping.pdf', b.bearer);
    const took = performance.now() - started;
    // Before: A's files held both readers and all 16 waiting places, and B's file was 503 after a few ms.
    expect(res.statusCode, res.body).toBe(201);
    expect(took, `B's upload took ${took.toFixed(0)} ms`).toBeLessThan(8_000);

    const statusesOfA = (await Promise.all(uploadsOfA)).map((r) => r.statusCode);
    // A keeps one reader and its share of the waiting places; its files past them are 503 (or past its quota, 409).
    expect(statusesOfA.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statusesOfA.every((s) => [201, 409, 503].includes(s)), statusesOfA.join(' ')).toBe(true);
  }, 90_000);

  it("given two long PDFs being uploaded, when their uploader disconnects, then their reading stops at once and the company's next file is read without waiting", async () => {
    const company = await signUp(server, 'Gives up');
    const long = buildPdf(Array.from({ length: 300 }, (_, p) => Array.from({ length: 40 }, (_, l) => `Page ${p} line ${l}: the warranty covers parts and labour for two years.`)));
    const post = (body: Uint8Array<ArrayBuffer>, filename: string, signal?: AbortSignal) =>
      fetch(`${base}/api/knowledge-base/files?filename=${filename}`, { method: 'POST', headers: { authorization: `Bearer ${company.bearer}`, 'content-type': 'application/pdf' }, body, ...(signal ? { signal } : {}) });
    const controller = new AbortController();
    const given = [post(new Uint8Array(long), 'long-1.pdf', controller.signal), post(new Uint8Array(long), 'long-2.pdf', controller.signal)].map((p) => p.catch((e: unknown) => e));
    await new Promise((resolve) => setTimeout(resolve, 500));
    controller.abort();
    await Promise.all(given);

    const started = performance.now();
    const next = await post(new Uint8Array(SHIPPING_PDF), 'shipping.pdf');
    const took = performance.now() - started;
    // Before: the abandoned readings ran on (~5 s each, both readers) and the next file waited for one to end.
    expect(next.status).toBe(201);
    expect(took, `the next upload took ${took.toFixed(0)} ms`).toBeLessThan(2_500);
  }, 60_000);
});
