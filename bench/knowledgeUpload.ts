/**
 * Knowledge-base upload under a /healthz probe: event-loop stalls and memory per document.
 * `node --expose-gc --import tsx bench/knowledgeUpload.ts [documents=3] [MiB=1] [paragraphs|flat|random]`
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { signUp } from '../test/support/api.js';
import { startTestServer } from '../test/support/testServer.js';

const documents = Number(process.argv[2] ?? 3);
const mib = Number(process.argv[3] ?? 1);
/** `paragraphs` (default) or `flat`: one 1 MiB paragraph of one repeated sentence, as the API test uploads. */
const shape = process.argv[4] ?? 'paragraphs';
const gc = (globalThis as { gc?: () => void }).gc;
const settle = async () => {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
};
const mem = () => {
  const m = process.memoryUsage();
  return { rss: m.rss / 2 ** 20, heap: m.heapUsed / 2 ** 20, external: (m.external + m.arrayBuffers) / 2 ** 20 };
};

const server = await startTestServer();
const base = await server.listen(0, '127.0.0.1');
const company = await signUp(server, 'Bench');
const sentence = 'Our warehouse in Bergen packs every order within one business day, and ships parcel number ';
const contentOf = (seed: number) => {
  if (shape === 'random') {
    // Distinct made-up words: the worst case for the term dictionary.
    const words: string[] = [];
    let size = 0;
    while (size < mib * 1024 * 1024 - 20) {
      const word = Math.random().toString(36).slice(2, 4 + Math.floor(Math.random() * 7));
      words.push(word);
      size += word.length + 1;
    }
    return words.join(' ');
  }
  if (shape === 'flat') return 'Our warehouse in Bergen packs every order within one business day. '.repeat(16_000).slice(0, mib * 1024 * 1024);
  let text = '';
  let i = 0;
  while (text.length < mib * 1024 * 1024 - 200) text += `${sentence}${seed}-${i++}.${i % 7 === 0 ? '\n\n' : ' '}`;
  return text;
};

await settle();
const before = mem();
const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
let probing = true;
const latencies: number[] = [];
const probe = (async () => {
  while (probing) {
    const t = performance.now();
    await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
    latencies.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 10));
  }
})();
for (let d = 0; d < documents; d++) {
  const t = performance.now();
  const res = await fetch(`${base}/api/knowledge-base/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${company.bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: `Doc ${d}`, content: contentOf(d) }),
  });
  const body = (await res.json()) as { document?: { chunkCount: number } };
  console.log(`upload ${d}: ${res.status} chunks=${body.document?.chunkCount} in ${(performance.now() - t).toFixed(0)} ms`);
}
await new Promise((r) => setTimeout(r, 300));
probing = false;
await probe;
histogram.disable();
latencies.sort((a, b) => a - b);
const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(1);
console.log(`healthz probes=${latencies.length} p50=${q(0.5)} p99=${q(0.99)} max=${q(1)} ms; event-loop delay max=${(histogram.max / 1e6).toFixed(1)} ms`);
const search = await fetch(`${base}/api/knowledge-base/search?q=warehouse%20Bergen`, { headers: { authorization: `Bearer ${company.bearer}` } });
console.log('search', search.status);
await settle();
const after = mem();
const per = (k: keyof typeof before) => ((after[k] - before[k]) / documents).toFixed(1);
console.log(`per document (${mib} MiB): rss +${per('rss')} MiB, heap +${per('heap')} MiB, external +${per('external')} MiB`);
await server.close();
