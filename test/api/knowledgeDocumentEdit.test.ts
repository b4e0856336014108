import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * Viewing and editing a knowledge-base document: GET /api/knowledge-base/documents/:id returns the whole content
 * and its revision; PUT replaces title and content if the document is still at `expectedRevision`, re-indexes it
 * and counts the new size against KNOWLEDGE_MAX_BYTES (here 4,000 bytes).
 */
const MAX_BYTES = 4000;
const MiB = 1024 * 1024;

let server: TestServer;
let base: string;
beforeAll(async () => {
  server = await startTestServer({ KNOWLEDGE_MAX_DOCUMENTS: '5', KNOWLEDGE_MAX_BYTES: String(MAX_BYTES) });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => server?.close());

type Company = Awaited<ReturnType<typeof signUp>>;
const RETURNS = { title: 'Returns', content: '# Returns\n\nUnused items can be sent back within 30 days for a full refund.' };
const upload = async (who: Company, doc: { title: string; content: string }) => {
  const res = await who.call('POST', '/api/knowledge-base/documents', doc);
  expect(res.statusCode).toBe(201);
  return res.json().document as { id: string; revision: number };
};
const get = (who: Company, id: string) => who.call('GET', `/api/knowledge-base/documents/${id}`);
const put = (who: Company, id: string, body: unknown) => who.call('PUT', `/api/knowledge-base/documents/${id}`, body);
const searchTitles = async (who: Company, q: string) =>
  ((await who.call('GET', `/api/knowledge-base/search?q=${encodeURIComponent(q)}`)).json().results as { title: string; snippet: string }[]);

describe('OpenAPI', () => {
  it('/docs/json documents GET and PUT /api/knowledge-base/documents/{id}', async () => {
    const doc = (await server.app.inject('/docs/json')).json();
    const path = doc.paths['/api/knowledge-base/documents/{id}'];
    expect(path.get.responses['200']).toBeDefined();
    expect(path.put.requestBody).toBeDefined();
    expect(path.put.responses['409']).toBeDefined();
    expect(path.delete).toBeDefined();
  });
});

describe('GET /api/knowledge-base/documents/:id', () => {
  it('200 {document} with the whole content, its size and revision 1', async () => {
    const acme = await signUp(server, 'Acme');
    const { id } = await upload(acme, RETURNS);
    const res = await get(acme, id);
    expect(res.statusCode).toBe(200);
    expect(res.json().document).toEqual({
      id,
      title: 'Returns',
      content: RETURNS.content,
      bytes: Buffer.byteLength(RETURNS.content),
      revision: 1,
      chunkCount: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it('returns a document of 1 MiB (16 stored parts of 64 KiB) byte for byte', async () => {
    const big = await startTestServer();
    try {
      const acme = await signUp(big, 'Big');
      const content = 'Returns are free within 30 days. ü€😀\n\n'.repeat(30_000).slice(0, MiB / 2) + 'x'.repeat(MiB / 2);
      const bytes = Buffer.byteLength(content);
      const trimmed = bytes > MiB ? content.slice(0, content.length - (bytes - MiB)) : content;
      const res = await acme.call('POST', '/api/knowledge-base/documents', { title: 'Big', content: trimmed });
      expect(res.statusCode).toBe(201);
      const got = await acme.call('GET', `/api/knowledge-base/documents/${res.json().document.id}`);
      expect(got.statusCode).toBe(200);
      expect(got.json().document.content).toBe(trimmed);
    } finally {
      await big.close();
    }
  });

  it("404 NOT_FOUND for another company's document, a deleted one, an unknown or malformed id", async () => {
    const acme = await signUp(server, 'Acme');
    const globex = await signUp(server, 'Globex');
    const { id } = await upload(acme, RETURNS);
    for (const res of [await get(globex, id), await get(acme, '00000000-0000-4000-8000-000000000000'), await get(acme, 'not-a-uuid')]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    }
    expect((await acme.call('DELETE', `/api/knowledge-base/documents/${id}`)).statusCode).toBe(204);
    expect((await get(acme, id)).statusCode).toBe(404);
  });
});

describe('PUT /api/knowledge-base/documents/:id', () => {
  it('replaces title and content, answers the new revision, and GET shows the new text', async () => {
    const acme = await signUp(server, 'Acme');
    const { id } = await upload(acme, RETURNS);
    const res = await put(acme, id, { title: 'Returns and refunds', content: 'Items can be sent back within 60 days.', expectedRevision: 1 });
    expect(res.statusCode).toBe(200);
    expect(res.json().document).toMatchObject({ id, title: 'Returns and refunds', revision: 2, chunkCount: 1 });
    const got = (await get(acme, id)).json().document;
    expect(got).toMatchObject({ title: 'Returns and refunds', content: 'Items can be sent back within 60 days.', revision: 2 });
    expect((await acme.call('GET', '/api/knowledge-base/documents')).json().documents).toEqual([expect.objectContaining({ id, title: 'Returns and refunds', revision: 2 })]);
  });

  it('re-indexes the document: the old passage leaves the search, the new one enters (a hit moves)', async () => {
    const acme = await signUp(server, 'Acme');
    const { id } = await upload(acme, { title: 'Delivery', content: 'Parcels to Norway arrive within 5 days.' });
    await upload(acme, { title: 'Payment', content: 'We accept PayPal and credit cards.' });
    expect((await searchTitles(acme, 'Norway')).map((r) => r.title)).toEqual(['Delivery']);
    expect(await searchTitles(acme, 'Iceland')).toEqual([]);

    const res = await put(acme, id, { title: 'Delivery', content: 'Parcels to Iceland arrive within 9 days.', expectedRevision: 1 });
    expect(res.statusCode).toBe(200);
    expect(await searchTitles(acme, 'Norway')).toEqual([]);
    expect(await searchTitles(acme, 'Iceland')).toEqual([expect.objectContaining({ title: 'Delivery', snippet: 'Parcels to Iceland arrive within 9 days.' })]);
  });

  it('two concurrent edits of revision 1 over real connections: one wins (200), the other gets 409 CONFLICT; the winner’s text is stored', async () => {
    const acme = await signUp(server, 'Racers');
    const { id } = await upload(acme, RETURNS);
    const send = (text: string) =>
      fetch(`${base}/api/knowledge-base/documents/${id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${acme.bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Returns', content: text, expectedRevision: 1 }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: { code: string; message: string } }, text }));
    const results = await Promise.all([send('Edit A: 14 days.'), send('Edit B: 60 days.')]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const loser = results.find((r) => r.status === 409)!;
    expect(loser.body).toEqual({ error: { code: 'CONFLICT', message: expect.stringMatching(/revision 2/) } });
    const winner = results.find((r) => r.status === 200)!;
    expect((await get(acme, id)).json().document).toMatchObject({ content: winner.text, revision: 2 });
  });

  it('409 CONFLICT for an edit made on an old revision; nothing changes', async () => {
    const acme = await signUp(server, 'Acme');
    const { id } = await upload(acme, RETURNS);
    expect((await put(acme, id, { title: 'Returns', content: 'First edit.', expectedRevision: 1 })).statusCode).toBe(200);
    const stale = await put(acme, id, { title: 'Returns', content: 'Stale edit.', expectedRevision: 1 });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error.code).toBe('CONFLICT');
    expect((await get(acme, id)).json().document).toMatchObject({ content: 'First edit.', revision: 2 });
  });

  it('respects the byte quota: growing past KNOWLEDGE_MAX_BYTES is 409 QUOTA_EXCEEDED (nothing changes); shrinking frees bytes for an upload', async () => {
    const acme = await signUp(server, 'Quota');
    const { id } = await upload(acme, { title: 'A', content: 'a'.repeat(2000) });
    await upload(acme, { title: 'B', content: 'b'.repeat(1500) });
    // 3,500 of 4,000 bytes used: A may grow by 500, not by 501.
    const over = await put(acme, id, { title: 'A', content: 'a'.repeat(2501), expectedRevision: 1 });
    expect(over.statusCode).toBe(409);
    expect(over.json()).toEqual({ error: { code: 'QUOTA_EXCEEDED', message: expect.stringContaining('4000') } });
    expect((await get(acme, id)).json().document).toMatchObject({ bytes: 2000, revision: 1 });
    expect((await put(acme, id, { title: 'A', content: 'a'.repeat(2500), expectedRevision: 1 })).statusCode).toBe(200);
    expect((await acme.call('POST', '/api/knowledge-base/documents', { title: 'C', content: 'c' })).statusCode).toBe(409);
    // Shrink A to 500 bytes: 2,000 free again.
    expect((await put(acme, id, { title: 'A', content: 'a'.repeat(500), expectedRevision: 2 })).statusCode).toBe(200);
    expect((await acme.call('POST', '/api/knowledge-base/documents', { title: 'C', content: 'c'.repeat(2000) })).statusCode).toBe(201);
  });

  it('the bytes a losing concurrent edit reserved are given back', async () => {
    const acme = await signUp(server, 'QuotaRace');
    const { id } = await upload(acme, { title: 'A', content: 'a'.repeat(1000) });
    const send = (n: number) =>
      fetch(`${base}/api/knowledge-base/documents/${id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${acme.bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'A', content: 'a'.repeat(n), expectedRevision: 1 }),
      }).then((r) => r.status);
    expect((await Promise.all([send(1500), send(1500)])).sort()).toEqual([200, 409]);
    // 1,500 used: 2,500 must be free (the loser's 500 not still counted).
    expect((await acme.call('POST', '/api/knowledge-base/documents', { title: 'B', content: 'b'.repeat(2500) })).statusCode).toBe(201);
  });

  it("404 NOT_FOUND when editing another company's document; it is unchanged", async () => {
    const acme = await signUp(server, 'Acme');
    const globex = await signUp(server, 'Globex');
    const { id } = await upload(acme, RETURNS);
    const res = await put(globex, id, { title: 'Hacked', content: 'Hacked.', expectedRevision: 1 });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    expect((await get(acme, id)).json().document).toMatchObject({ title: 'Returns', revision: 1 });
  });

  it('413 PAYLOAD_TOO_LARGE for content over 1 MiB', async () => {
    const acme = await signUp(server, 'Acme');
    const { id } = await upload(acme, RETURNS);
    const res = await put(acme, id, { title: 'Returns', content: 'x'.repeat(MiB + 1), expectedRevision: 1 });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
  });

  const bad: [string, unknown][] = [
    ['no expectedRevision', { title: 'T', content: 'text' }],
    ['expectedRevision not an integer', { title: 'T', content: 'text', expectedRevision: '1' }],
    ['expectedRevision 0', { title: 'T', content: 'text', expectedRevision: 0 }],
    ['an empty title', { title: ' ', content: 'text', expectedRevision: 1 }],
    ['blank content', { title: 'T', content: '  ', expectedRevision: 1 }],
    ['an unknown field', { title: 'T', content: 'text', expectedRevision: 1, companyId: 'x' }],
    ['a body that is not an object', ['T']],
  ];
  it.each(bad)('400 VALIDATION_ERROR for %s', async (_label, body) => {
    const acme = await signUp(server, 'Acme');
    const { id } = await upload(acme, RETURNS);
    const res = await put(acme, id, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.any(String) } });
  });

  it('400 for a body that is not JSON', async () => {
    const acme = await signUp(server, 'Acme');
    const { id } = await upload(acme, RETURNS);
    const res = await server.app.inject({
      method: 'PUT',
      url: `/api/knowledge-base/documents/${id}`,
      headers: { authorization: `Bearer ${acme.bearer}`, 'content-type': 'application/json' },
      payload: '{"title": "T", "content": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
  });
});
