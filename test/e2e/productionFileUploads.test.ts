import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPILED_MAIN, healthyAfter, startCompiled, type CompiledServer } from '../support/compiledServer.js';
import { buildPdf } from '../support/pdfFixture.js';
import { freePort } from '../support/serviceProcess.js';

/**
 * Knowledge files uploaded to the compiled server (`npm run build`; `npm start`): PDF and HTML are read on a
 * worker thread, which must start from its compiled entry. The rest of the suite runs the TypeScript sources,
 * where the thread starts from a tsx shim, so only this file sees what a user of `npm start` sees.
 */
const SHIPPING_PDF = readFileSync(new URL('../fixtures/shipping.pdf', import.meta.url));
const PAYMENT_HTML =
  '<!doctype html><html><head><title>Payment</title><style>p{color:red}</style><script>track("x")</script></head>' +
  '<body><h1>Paying</h1><p>We accept <b>Visa</b> &amp; MasterCard, and invoices for companies.</p></body></html>';

let dataDir: string;
let proc: CompiledServer;
let base: string;
let auth: Record<string, string>;

beforeAll(async () => {
  if (!existsSync(COMPILED_MAIN)) throw new Error(`${COMPILED_MAIN} is missing: run npm run build (npm test's pretest does)`);
  dataDir = mkdtempSync(join(tmpdir(), 'mas-prod-files-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  proc = startCompiled({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'development' });
  await healthyAfter(proc, base, 30_000);
  const json = { 'content-type': 'application/json' };
  const account = { email: 'prod-files@example.com', password: 'correct horse' };
  expect((await fetch(`${base}/api/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ ...account, companyName: 'Files' }) })).status).toBe(201);
  const { session } = await (await fetch(`${base}/api/auth/login`, { method: 'POST', headers: json, body: JSON.stringify(account) })).json();
  auth = { authorization: `Bearer ${session.access_token}` };
}, 60_000);

afterAll(async () => {
  if (proc) {
    proc.child.kill('SIGTERM');
    await proc.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const upload = (body: Uint8Array<ArrayBuffer>, contentType: string, filename: string) =>
  fetch(`${base}/api/knowledge-base/files?filename=${encodeURIComponent(filename)}`, { method: 'POST', headers: { ...auth, 'content-type': contentType }, body });
const search = async (q: string) => (await (await fetch(`${base}/api/knowledge-base/search?q=${encodeURIComponent(q)}`, { headers: auth })).json()).results as Array<{ title: string }>;
const contentOf = async (id: string) => (await (await fetch(`${base}/api/knowledge-base/documents/${id}`, { headers: auth })).json()).document.content as string;

/** Nothing of the server's insides: no file path, module name or stack. */
const installDir = process.cwd();
function expectNoInternals(text: string) {
  expect(text).not.toContain(installDir);
  expect(text).not.toMatch(/dist\/server|node_modules|\.m?js\b|Cannot find module|ERR_[A-Z_]+|\n\s+at /);
}

describe('the compiled server reads uploaded knowledge files', () => {
  it('a PDF is stored with its pages and found by search', async () => {
    const res = await upload(new Uint8Array(SHIPPING_PDF), 'application/pdf', 'shipping.pdf');
    const text = await res.text();
    expectNoInternals(text);
    expect(res.status, text).toBe(201);
    const { document, source } = JSON.parse(text);
    expect(source).toMatchObject({ kind: 'pdf', pages: 2 });
    expect(await contentOf(document.id)).toContain('We ship to Norway within 3 business days.');
    expect(await search('norway')).toEqual([expect.objectContaining({ title: 'shipping' })]);
  });

  it('an HTML page is stored as its main content, titled by its <h1>, and found by search', async () => {
    const res = await upload(new Uint8Array(Buffer.from(PAYMENT_HTML)), 'text/html; charset=utf-8', 'payment.html');
    const text = await res.text();
    expectNoInternals(text);
    expect(res.status, text).toBe(201);
    const { document } = JSON.parse(text);
    expect(document.title).toBe('Paying');
    expect(await contentOf(document.id)).toBe('Paying\n\nWe accept Visa & MasterCard, and invoices for companies.');
    expect(await search('mastercard')).toEqual([expect.objectContaining({ title: 'Paying' })]);
  });

  it('a malformed PDF is 400 VALIDATION_ERROR in the spec shape, naming no server internals', async () => {
    const res = await upload(new Uint8Array(Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog garbage')), 'application/pdf', 'broken.pdf');
    const text = await res.text();
    expectNoInternals(text);
    expect(res.status).toBe(400);
    expect(JSON.parse(text)).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/^file: not a readable PDF/) } });
  });

  it('a PDF built here (three pages) is read page by page', async () => {
    const pdf = buildPdf([['Warranty: two years on parts.'], ['Labour is covered for one year.'], ['Batteries are not covered.']]);
    const res = await upload(new Uint8Array(pdf), 'application/pdf', 'warranty.pdf');
    expect(res.status, await res.clone().text()).toBe(201);
    expect((await res.json()).source.pages).toBe(3);
    expect(await search('batteries')).toEqual([expect.objectContaining({ title: 'warranty' })]);
  });
});
