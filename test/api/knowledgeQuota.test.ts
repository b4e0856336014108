import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reserveKnowledgeQuota } from '../../src/commands/knowledge/knowledgeQuota.js';
import { addKnowledgeDocument } from '../../src/commands/knowledge/knowledgeDocuments.js';
import { handleCommand } from '../../src/commands/handleCommand.js';
import { knowledgeDocumentDecider, knowledgeDocumentStream } from '../../src/domain/knowledge/documents/decider.js';
import { signUp } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * Per-company knowledge-base quotas: KNOWLEDGE_MAX_DOCUMENTS documents and KNOWLEDGE_MAX_BYTES bytes of content.
 * Small limits here (3 documents, 1,000 bytes) so that the limit is reached in a few requests.
 */
const MAX_DOCUMENTS = 3;
const MAX_BYTES = 1000;

let server: TestServer;
let base: string;
let clockOffsetMs = 0;
beforeAll(async () => {
  server = await startTestServer(
    { KNOWLEDGE_MAX_DOCUMENTS: String(MAX_DOCUMENTS), KNOWLEDGE_MAX_BYTES: String(MAX_BYTES) },
    undefined,
    { clock: { now: () => new Date(Date.now() + clockOffsetMs) } },
  );
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => server?.close());

type Company = Awaited<ReturnType<typeof signUp>>;
const upload = (who: Company, title: string, content: string) => who.call('POST', '/api/knowledge-base/documents', { title, content });
const listIds = async (who: Company) => ((await who.call('GET', '/api/knowledge-base/documents')).json().documents as { id: string }[]).map((d) => d.id);

describe('knowledge-base quota: documents per company', () => {
  it(`the document after the last one allowed (${MAX_DOCUMENTS}) is refused with 409 QUOTA_EXCEEDED naming the limit and the usage; nothing is stored`, async () => {
    const acme = await signUp(server, 'Acme');
    for (let i = 0; i < MAX_DOCUMENTS; i++) expect((await upload(acme, `Doc ${i}`, `content number ${i}`)).statusCode).toBe(201);
    const refused = await upload(acme, 'One too many', 'more content');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({ error: { code: 'QUOTA_EXCEEDED', message: expect.stringContaining(`at most ${MAX_DOCUMENTS} documents`) } });
    expect(refused.json().error.message).toContain(`this one has ${MAX_DOCUMENTS}`);
    expect(await listIds(acme)).toHaveLength(MAX_DOCUMENTS);
    expect((await acme.call('GET', '/api/knowledge-base/search?q=more')).json().results).toEqual([]);
  });

  it('deleting a document frees its slot; deleting it again frees nothing more', async () => {
    const acme = await signUp(server, 'Acme');
    for (let i = 0; i < MAX_DOCUMENTS; i++) expect((await upload(acme, `Doc ${i}`, `content ${i}`)).statusCode).toBe(201);
    const [first] = await listIds(acme);
    expect((await acme.call('DELETE', `/api/knowledge-base/documents/${first}`)).statusCode).toBe(204);
    expect((await acme.call('DELETE', `/api/knowledge-base/documents/${first}`)).statusCode).toBe(404);
    expect((await upload(acme, 'Replacement', 'new content')).statusCode).toBe(201);
    // The repeated DELETE released nothing: the company is full again.
    expect((await upload(acme, 'Another', 'more')).statusCode).toBe(409);
  });

  it("another company's uploads are unaffected by a full company", async () => {
    const full = await signUp(server, 'Full');
    for (let i = 0; i < MAX_DOCUMENTS; i++) expect((await upload(full, `Doc ${i}`, `content ${i}`)).statusCode).toBe(201);
    expect((await upload(full, 'Refused', 'x')).statusCode).toBe(409);
    const other = await signUp(server, 'Other');
    for (let i = 0; i < MAX_DOCUMENTS; i++) expect((await upload(other, `Doc ${i}`, `content ${i}`)).statusCode).toBe(201);
  });
});

describe('knowledge-base quota: bytes of content per company', () => {
  it('a document that would take the company past the byte limit is refused with 409 QUOTA_EXCEEDED; one that fits exactly is accepted', async () => {
    const acme = await signUp(server, 'Bytes');
    expect((await upload(acme, 'Big', 'a'.repeat(600))).statusCode).toBe(201);
    const refused = await upload(acme, 'Too much', 'é'.repeat(201)); // 402 bytes of UTF-8: 1,002 in all
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('QUOTA_EXCEEDED');
    expect(refused.json().error.message).toContain(`at most ${MAX_BYTES} bytes`);
    expect(refused.json().error.message).toContain('600 bytes are in use and this document has 402');
    expect((await upload(acme, 'Fits', 'é'.repeat(200))).statusCode).toBe(201); // exactly 1,000
    expect((await upload(acme, 'One byte', 'x')).statusCode).toBe(409);
  });

  it('deleting a document frees its bytes', async () => {
    const acme = await signUp(server, 'Bytes');
    const big = await upload(acme, 'Big', 'b'.repeat(900));
    expect(big.statusCode).toBe(201);
    expect((await upload(acme, 'Second', 'c'.repeat(200))).statusCode).toBe(409);
    expect((await acme.call('DELETE', `/api/knowledge-base/documents/${big.json().document.id}`)).statusCode).toBe(204);
    expect((await upload(acme, 'Second', 'c'.repeat(200))).statusCode).toBe(201);
  });
});

describe('knowledge-base quota: concurrent uploads', () => {
  const post = (who: Company, title: string, content: string) =>
    fetch(`${base}/api/knowledge-base/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${who.bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title, content }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: { code: string } } }));

  it(`12 uploads racing for ${MAX_DOCUMENTS} free slots over real connections: exactly ${MAX_DOCUMENTS} are stored`, async () => {
    const acme = await signUp(server, 'Race');
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => post(acme, `Racer ${i}`, `racing content ${i}`)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(MAX_DOCUMENTS);
    expect(statuses.filter((s) => s === 409)).toHaveLength(12 - MAX_DOCUMENTS);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.error?.code === 'QUOTA_EXCEEDED')).toBe(true);
    expect(await listIds(acme)).toHaveLength(MAX_DOCUMENTS);
  });

  it('uploads racing for the last bytes: only what fits is stored, and other companies racing at the same time are unaffected', async () => {
    const acme = await signUp(server, 'RaceBytes');
    const globex = await signUp(server, 'Globex');
    expect((await upload(acme, 'Base', 'z'.repeat(400))).statusCode).toBe(201);
    // 600 bytes left: of six 250-byte uploads two fit. Globex's two uploads race alongside.
    const [ours, theirs] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, (_, i) => post(acme, `Racer ${i}`, String(i).repeat(250)))),
      Promise.all(Array.from({ length: 2 }, (_, i) => post(globex, `Theirs ${i}`, String(i).repeat(250)))),
    ]);
    expect(ours.filter((r) => r.status === 201)).toHaveLength(2);
    expect(ours.filter((r) => r.status === 409)).toHaveLength(4);
    expect(theirs.map((r) => r.status)).toEqual([201, 201]);
    expect(await listIds(acme)).toHaveLength(3);
  });
});

describe('knowledge-base quota: an upload that died between its reservation and its document', () => {
  it('holds its reservation only until it is stale; then the next upload reclaims it, and the late document is refused', async () => {
    const acme = await signUp(server, 'Crash');
    const actor = { companyId: acme.company.companyId, userId: acme.user.id as string };
    const deps = server.services.commands;
    const limits = { maxDocuments: MAX_DOCUMENTS, maxBytes: MAX_BYTES };
    // As if the process died right after reserving: a reservation whose document never came.
    const lost = randomUUID();
    await reserveKnowledgeQuota(deps, actor, { documentId: lost, bytes: 10, limits });
    for (let i = 0; i < MAX_DOCUMENTS - 1; i++) expect((await upload(acme, `Doc ${i}`, `content ${i}`)).statusCode).toBe(201);
    expect((await upload(acme, 'Full', 'x')).statusCode).toBe(409); // the lost reservation still counts

    clockOffsetMs = 6 * 60_000; // past the stale age (5 minutes)
    try {
      expect((await upload(acme, 'After reclaim', 'fits now')).statusCode).toBe(201);
      expect((await upload(acme, 'Full again', 'x')).statusCode).toBe(409);
      expect(await listIds(acme)).toHaveLength(MAX_DOCUMENTS);
      // The upload that reserved it, were it only slow, can no longer store content no quota counts.
      const late = handleCommand(deps.eventStore, knowledgeDocumentStream(lost), knowledgeDocumentDecider, {
        type: 'AddKnowledgeDocument',
        documentId: lost,
        companyId: actor.companyId,
        title: 'Late',
        content: 'late content',
        chunkCount: 1,
        now: new Date().toISOString(),
      });
      await expect(late).rejects.toMatchObject({ code: 'CONFLICT' });
    } finally {
      clockOffsetMs = 0;
    }
  });

  it('a stale reservation whose document was stored after all is kept, not released', async () => {
    const acme = await signUp(server, 'Slow');
    const actor = { companyId: acme.company.companyId, userId: acme.user.id as string };
    const deps = server.services.commands;
    const limits = { maxDocuments: MAX_DOCUMENTS, maxBytes: MAX_BYTES };
    // A whole upload, stored: then more documents until the company is full.
    await addKnowledgeDocument(deps, { ...actor, title: 'Stored', content: 'stored content', chunkCount: 1, limits });
    for (let i = 0; i < MAX_DOCUMENTS - 1; i++) expect((await upload(acme, `Doc ${i}`, `content ${i}`)).statusCode).toBe(201);
    clockOffsetMs = 6 * 60_000;
    try {
      expect((await upload(acme, 'Still full', 'x')).statusCode).toBe(409);
    } finally {
      clockOffsetMs = 0;
    }
  });
});
