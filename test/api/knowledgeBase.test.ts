import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acmeAndGlobex, signUp, type Company } from '../support/api.js';
import { ISO_MS, UUID } from '../support/formats.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

const MiB = 1024 * 1024;

let server: TestServer;
let acme: Company;
let globex: Company;
beforeAll(async () => {
  server = await startTestServer();
  ({ acme, globex } = await acmeAndGlobex(server));
});
afterAll(async () => server?.close());

const SHIPPING = {
  title: 'Shipping policy',
  content: '# Shipping\n\nWe ship to Norway, Sweden and Denmark within 5 business days.\n\n## Returns\n\nUnused items can be returned within 30 days for a full refund.',
};
const search = (who: typeof acme, q: string, limit?: number) =>
  who.call('GET', `/api/knowledge-base/search?q=${encodeURIComponent(q)}${limit !== undefined ? `&limit=${limit}` : ''}`);

describe('POST /api/knowledge-base/documents', () => {
  it('201 {document:{id,title,chunkCount,createdAt,updatedAt,revision}}', async () => {
    const res = await acme.call('POST', '/api/knowledge-base/documents', SHIPPING);
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['document']);
    expect(Object.keys(body.document).sort()).toEqual(['chunkCount', 'createdAt', 'id', 'revision', 'title', 'updatedAt']);
    expect(body.document).toEqual({
      id: expect.stringMatching(UUID),
      title: 'Shipping policy',
      chunkCount: expect.any(Number),
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: body.document.createdAt,
      revision: 1,
    });
    expect(Number.isInteger(body.document.chunkCount)).toBe(true);
    expect(body.document.chunkCount).toBeGreaterThanOrEqual(1);
  });

  const bad: [string, unknown][] = [
    ['no title', { content: 'text' }],
    ['an empty title', { title: '  ', content: 'text' }],
    ['a title too long', { title: 'x'.repeat(301), content: 'text' }],
    ['no content', { title: 'T' }],
    ['blank content', { title: 'T', content: ' \n ' }],
    ['content not a string', { title: 'T', content: ['a'] }],
    ['an unknown field', { title: 'T', content: 'text', companyId: 'cccccccc-cccc-4ccc-8ccc-cccccccccccc' }],
  ];
  it.each(bad)('400 VALIDATION_ERROR for %s', async (_label, body) => {
    const res = await acme.call('POST', '/api/knowledge-base/documents', body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.any(String) } });
  });

  it('401 without a token', async () => {
    expect((await server.app.inject({ method: 'POST', url: '/api/knowledge-base/documents', payload: SHIPPING })).statusCode).toBe(401);
  });
});

describe('document size limit (1 MiB of content)', () => {
  const sentence = 'Our warehouse in Bergen packs every order within one business day. ';
  const textOf = (bytes: number) => sentence.repeat(Math.ceil(bytes / sentence.length)).slice(0, bytes);

  it('accepts exactly 1 MiB of content, though the JSON body is over the app-wide 1 MiB limit', async () => {
    const content = textOf(MiB);
    const res = await acme.call('POST', '/api/knowledge-base/documents', { title: 'Exactly one MiB', content });
    expect(res.statusCode).toBe(201);
    expect(res.json().document.chunkCount).toBeGreaterThan(100);
    const found = (await search(acme, 'warehouse Bergen')).json().results;
    expect(found.map((r: any) => r.documentId)).toContain(res.json().document.id);
  });

  it('413 PAYLOAD_TOO_LARGE for 1 MiB + 1 byte of content', async () => {
    const res = await acme.call('POST', '/api/knowledge-base/documents', { title: 'Too big', content: textOf(MiB + 1) });
    expect(res.statusCode).toBe(413);
    // The route's own content check (the body itself fits the route's body limit).
    expect(res.json()).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/^content: /) } });
  });

  it('counts UTF-8 bytes, not characters', async () => {
    const content = 'é'.repeat(MiB / 2 + 1); // 524,289 characters, 1,048,578 bytes
    const res = await acme.call('POST', '/api/knowledge-base/documents', { title: 'Accents', content });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('413 PAYLOAD_TOO_LARGE for a body far over the limit (refused before parsing)', async () => {
    const res = await acme.call('POST', '/api/knowledge-base/documents', { title: 'Huge', content: textOf(3 * MiB) });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('nothing was stored by the refused requests', async () => {
    const titles = (await acme.call('GET', '/api/knowledge-base/documents?limit=200')).json().documents.map((d: any) => d.title);
    expect(titles).not.toContain('Too big');
    expect(titles).not.toContain('Accents');
    expect(titles).not.toContain('Huge');
  });
});

describe('GET /api/knowledge-base/documents', () => {
  it('lists the company’s documents newest first with nextCursor', async () => {
    const company = await signUp(server, 'Lister');
    expect((await company.call('GET', '/api/knowledge-base/documents')).json()).toEqual({ documents: [], nextCursor: null });
    const ids: string[] = [];
    for (const title of ['One', 'Two', 'Three']) {
      ids.push((await company.call('POST', '/api/knowledge-base/documents', { title, content: `${title} is a document.` })).json().document.id);
    }
    const res = await company.call('GET', '/api/knowledge-base/documents');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.documents.map((d: any) => d.title)).toEqual(['Three', 'Two', 'One']);
    for (const d of body.documents) expect(Object.keys(d).sort()).toEqual(['chunkCount', 'createdAt', 'id', 'revision', 'title', 'updatedAt']);
    expect(body.nextCursor).toBeNull();
    const page1 = (await company.call('GET', '/api/knowledge-base/documents?limit=2')).json();
    expect(page1.documents).toHaveLength(2);
    const page2 = (await company.call('GET', `/api/knowledge-base/documents?limit=2&cursor=${encodeURIComponent(page1.nextCursor)}`)).json();
    expect(page2.documents.map((d: any) => d.id)).toEqual([ids[0]]);
    expect(page2.nextCursor).toBeNull();
    expect((await company.call('GET', '/api/knowledge-base/documents?cursor=nope')).statusCode).toBe(400);
  });
});

describe('GET /api/knowledge-base/search', () => {
  it('finds a document right after it is added, and not after it is deleted', async () => {
    const company = await signUp(server, 'Searcher');
    const { document } = (
      await company.call('POST', '/api/knowledge-base/documents', {
        title: 'Warranty',
        content: 'Every kettle carries a two-year warranty covering heating element failures.',
      })
    ).json();
    const res = await search(company, 'kettle warranty');
    expect(res.statusCode).toBe(200);
    const { results } = res.json();
    expect(results.length).toBeGreaterThanOrEqual(1);
    for (const r of results) expect(Object.keys(r).sort()).toEqual(['documentId', 'score', 'snippet', 'title']);
    expect(results[0]).toEqual({ documentId: document.id, title: 'Warranty', snippet: expect.stringContaining('warranty'), score: expect.any(Number) });
    expect(results[0].score).toBeGreaterThan(0);

    expect((await company.call('DELETE', `/api/knowledge-base/documents/${document.id}`)).statusCode).toBe(204);
    expect((await search(company, 'kettle warranty')).json()).toEqual({ results: [] });
    expect((await company.call('GET', '/api/knowledge-base/documents')).json().documents).toEqual([]);
    expect((await company.call('DELETE', `/api/knowledge-base/documents/${document.id}`)).statusCode).toBe(404);
  });

  it('ranks the better match first and honours limit', async () => {
    const company = await signUp(server, 'Ranker');
    await company.call('POST', '/api/knowledge-base/documents', SHIPPING);
    await company.call('POST', '/api/knowledge-base/documents', { title: 'Opening hours', content: 'The shop opens at 9 and closes at 17 on weekdays.' });
    const results = (await search(company, 'ship to Norway')).json().results;
    expect(results[0].title).toBe('Shipping policy');
    expect((await search(company, 'shop ship', 1)).json().results).toHaveLength(1);
    expect((await search(company, 'zzzqqqxxx')).json()).toEqual({ results: [] });
  });

  it('a query of one 65,536-character word (a whole customer message) searches fine', async () => {
    const company = await signUp(server, 'LongQuery');
    await company.call('POST', '/api/knowledge-base/documents', SHIPPING);
    const word = 'a'.repeat(65_536);
    const res = await search(company, word);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ results: [] });
    const mixed = await search(company, `${word.slice(0, 65_000)} Norway`);
    expect(mixed.statusCode).toBe(200);
    expect(mixed.json().results[0].title).toBe('Shipping policy');
  });

  it('400 for a missing or empty query, a bad limit or unknown parameters', async () => {
    for (const url of [
      '/api/knowledge-base/search',
      '/api/knowledge-base/search?q=',
      '/api/knowledge-base/search?q=a&limit=0',
      '/api/knowledge-base/search?q=a&limit=51',
      '/api/knowledge-base/search?q=a&companyId=x',
    ]) {
      const res = await acme.call('GET', url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('tenant isolation', () => {
  it("another company's search never returns the document; its list is empty; its delete is 404", async () => {
    const secret = { title: 'Internal pricing', content: 'The flamingo discount code gives resellers forty percent off.' };
    const { document } = (await acme.call('POST', '/api/knowledge-base/documents', secret)).json();
    expect((await search(acme, 'flamingo discount')).json().results[0].documentId).toBe(document.id);

    const res = await search(globex, 'flamingo discount');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ results: [] });
    // Even when the other company has documents of its own.
    await globex.call('POST', '/api/knowledge-base/documents', { title: 'Flamingo', content: 'Our mascot is a flamingo.' });
    expect((await search(globex, 'flamingo discount')).json().results.map((r: any) => r.documentId)).not.toContain(document.id);

    const list = (await globex.call('GET', '/api/knowledge-base/documents')).json().documents;
    expect(list.map((d: any) => d.id)).not.toContain(document.id);
    const fresh = await signUp(server, 'Fresh');
    expect((await fresh.call('GET', '/api/knowledge-base/documents')).json()).toEqual({ documents: [], nextCursor: null });

    const del = await globex.call('DELETE', `/api/knowledge-base/documents/${document.id}`);
    expect(del.statusCode).toBe(404);
    expect(del.json().error.code).toBe('NOT_FOUND');
    expect((await search(acme, 'flamingo discount')).json().results[0].documentId).toBe(document.id);
  });

  it('404 for malformed document ids', async () => {
    expect((await acme.call('DELETE', '/api/knowledge-base/documents/not-a-uuid')).statusCode).toBe(404);
  });
});
