import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../support/api.js';
import { startHealthProbe } from '../support/healthProbe.js';
import { prefixesOf, sharedPrefixDocuments } from '../support/sharedPrefixWords.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * A 1 MiB knowledge-base upload must not stall the service. The probe runs in its own process (a probe in
 * this process would be stalled together with the server and could not see the stall) and polls /healthz
 * of a real listening server every 10 ms while the upload is in flight.
 */

let server: TestServer;
let base: string;
beforeAll(async () => {
  server = await startTestServer();
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => server?.close());

/** ~1 MiB of distinct made-up words in one paragraph: the slowest kind of document to chunk and index. */
function distinctWords(bytes: number): string {
  const words: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes - 16; i++) {
    const word = `w${((i * 2654435761) % 4294967296).toString(36)}`;
    words.push(word);
    size += word.length + 1;
  }
  return words.join(' ');
}

describe('knowledge base: the service stays responsive', () => {
  it('/healthz answers within 500 ms (p99) while a 1 MiB document is uploaded and indexed', async () => {
    const company = await signUp(server, 'Responsive');
    // Built before the probe starts: this test shares its thread with the server.
    const body = JSON.stringify({ title: 'Parts catalogue', content: distinctWords(1024 * 1024) });
    // The first fetch() loads undici into this process, the server's: 50–150 ms that are the client's, not the service's.
    await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
    const probe = await startHealthProbe(base);
    const probing = performance.now();

    const upload = await fetch(`${base}/api/knowledge-base/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${company.bearer}`, 'content-type': 'application/json' },
      body,
    });
    expect(upload.status).toBe(201);
    const search = await company.call('GET', '/api/knowledge-base/search?q=w0');
    expect(search.json().results[0]?.title).toBe('Parts catalogue');

    const { latencies, p99, max } = await probe.stop();
    // Before: one upload blocked the event loop for 5–15 s, so max was seconds and few probes got through. The
    // probe polls every 10 ms (one at a time): most of the polls due while it ran must have been answered, however
    // quick the upload is.
    const due = (performance.now() - probing) / 10;
    expect(latencies.length, `probes: ${latencies.length} of ~${Math.round(due)} due, p99 ${p99} ms, max ${max} ms`).toBeGreaterThan(Math.min(50, due / 3));
    // Target 100 ms. Measured p99 80–340 ms on a 2-core machine running ~7 runnable processes: the process gets
    // a fraction of a core, so ~30 ms of CPU on this thread becomes 100+ ms of wall time. What is left there:
    // parsing the 1 MiB body (~5 ms), encoding and committing the append (17 events, ~8 ms with the fsync),
    // and every event-store reader — ten projections and the indexer — fetching and JSON-parsing the content
    // parts in the task that committed them (~1 ms per reader per MiB). Before the worker thread: seconds.
    expect(p99, `p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms`).toBeLessThan(500);
    expect(max, `max ${max.toFixed(1)} ms`).toBeLessThan(1000);
  }, 60_000);

  it("8 expensive searches of one company do not delay another company's search", async () => {
    const heavy = await signUp(server, 'Heavy searcher');
    const prefixes = prefixesOf(32);
    for (const doc of sharedPrefixDocuments(prefixes, 3_000)) expect((await heavy.call('POST', '/api/knowledge-base/documents', doc)).statusCode).toBe(201);
    const light = await signUp(server, 'Light searcher');
    expect((await light.call('POST', '/api/knowledge-base/documents', { title: 'Returns', content: 'Returns are free within 30 days.' })).statusCode).toBe(201);
    const query = encodeURIComponent(prefixes.join(' '));
    await heavy.call('GET', `/api/knowledge-base/search?q=${query}`); // warm

    const searchesOfHeavy = Array.from({ length: 8 }, () => heavy.call('GET', `/api/knowledge-base/search?q=${query}`));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    const res = await light.call('GET', '/api/knowledge-base/search?q=returns');
    const took = performance.now() - started;
    expect(res.json().results[0]?.title).toBe('Returns');
    // Before: each heavy search took ~0.3–1 s of the one index thread, and the light one waited behind all eight.
    expect(took, `the light search took ${took.toFixed(0)} ms`).toBeLessThan(750);
    for (const r of await Promise.all(searchesOfHeavy)) expect(r.statusCode).toBe(200);
  }, 90_000);
});
