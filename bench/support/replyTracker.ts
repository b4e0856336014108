import type { ChatCompletionBody, FakeLlm } from '../../test/support/fakeLlm.js';
import type { FakePlatform } from '../../test/support/fakePlatform.js';
import { sleep } from './stats.js';

/** `[ref=<message_id>]` that inbound.ts puts at the start of every message (and the fake LLM echoes). */
export const REF = /\[ref=([^\]]+)\]/;

export function lastUserText(body: ChatCompletionBody | undefined): string {
  const messages = body?.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return String(messages[i]!.content);
  return '';
}

/**
 * When replies reach the fake platform, in this process's performance.now() clock: the first POST /v1/messages
 * per key (`keyOf` its body: the client_id, or a ref in the text), taken when the fake has read the request.
 * `keep: false` drops the fake's own request log (long runs: it would hold every request).
 */
export function trackPlatform(platform: FakePlatform, keyOf: (body: Record<string, unknown>) => string | undefined, options: { keep?: boolean } = {}) {
  const arrived = new Map<string, number>();
  const counts = new Map<string, number>();
  let total = 0;
  const push = platform.received.push.bind(platform.received);
  platform.received.push = (...items) => {
    const t = performance.now();
    for (const r of items) {
      if (!r.path.endsWith('/v1/messages') || typeof r.body !== 'object' || r.body === null) continue;
      total++;
      const key = keyOf(r.body as Record<string, unknown>);
      if (key === undefined) continue;
      if (!arrived.has(key)) arrived.set(key, t);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return options.keep === false ? platform.received.length : push(...items);
  };
  return {
    arrived,
    counts,
    get total() {
      return total;
    },
    /** Waits until every key has arrived or `timeoutMs` passed; returns the keys still missing. */
    async waitFor(keys: string[], timeoutMs: number): Promise<string[]> {
      const deadline = performance.now() + timeoutMs;
      while (keys.some((k) => !arrived.has(k)) && performance.now() < deadline) await sleep(20);
      return keys.filter((k) => !arrived.has(k));
    },
  };
}

/**
 * When the fake LLM read each request (llmIn) and computed its answer (llmOut), keyed by the ref of the last
 * user message; its answer carries the ref (so the platform side can be matched by text too).
 */
export function trackLlm(llm: FakeLlm) {
  const llmIn = new Map<string, number>();
  const llmOut = new Map<string, number>();
  llm.reply = (body) => {
    const ref = REF.exec(lastUserText(body))?.[1] ?? '';
    llmOut.set(ref, performance.now());
    return `[ref=${ref}] Thanks for your message. Your parcel left our warehouse on Wednesday and should arrive within two days.`;
  };
  const push = llm.requests.push.bind(llm.requests);
  llm.requests.push = (...items) => {
    const t = performance.now();
    for (const r of items) {
      const ref = REF.exec(lastUserText(r.body as ChatCompletionBody))?.[1];
      if (ref !== undefined) llmIn.set(ref, t);
    }
    return push(...items);
  };
  return { llmIn, llmOut };
}
