import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openAdapters } from '../../src/infrastructure/adapters.js';
import { createLogger } from '../../src/infrastructure/logger.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import { createServer, type Server } from '../../src/server.js';
import { createPlatformIntegration, signUp } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { postPlatformWebhook, sendPlatformWebhook } from '../support/platformWebhook.js';
import type { TestServer } from '../support/testServer.js';

/**
 * Constant cost: what a customer message costs the whole service (webhook, projections, reactors, the reply
 * pipeline answering it with the builtin model, the send) does not depend on how long its conversation is.
 * Counted, not timed: events the service reads from the event store, documents it reads from the read store and
 * bytes of documents it writes, for 20 messages answered one at a time once the conversation holds ~100 messages and
 * again once it holds 1,500 more (bench:growth phase B, all webhooks into one conversation). Before ~100 messages a
 * prompt's history is shorter than its first page (64 events, answerGeneration.ts): that step is bounded, not growth.
 */

const SECRET = 'whsec_one_conversation_cost_0123';
const TOKEN = 'platform-token-one-conversation';
const WINDOW = 20;
/** Messages before the first measured window: a prompt's history then fills its pages as it does later. */
const START = 100;
const GROWTH = 1500;
const CLIENT = 'the-one-conversation';

interface Counts {
  /** Events handed out by readStream, of the conversation's own stream and of any other stream. */
  conversationEventsRead: number;
  otherStreamEventsRead: number;
  readStreamCalls: number;
  /** Documents handed out by get / find / search. */
  docsRead: number;
  /** JSON bytes of the documents written by projection commits, and of the conversations read model's alone. */
  bytesWritten: number;
  conversationDocBytes: number;
}
const zero = (): Counts => ({ conversationEventsRead: 0, otherStreamEventsRead: 0, readStreamCalls: 0, docsRead: 0, bytesWritten: 0, conversationDocBytes: 0 });
let counts = zero();

function countingEventStore(inner: EventStore): EventStore {
  const readStream: EventStore['readStream'] = async (stream, options) => {
    const events = await inner.readStream(stream, options);
    counts.readStreamCalls++;
    if (stream.startsWith('conversation-')) counts.conversationEventsRead += events.length;
    else counts.otherStreamEventsRead += events.length;
    return events;
  };
  return new Proxy(inner, {
    get(target, key) {
      if (key === 'readStream') return readStream;
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function countingReadStore(inner: ReadStore): ReadStore {
  const overrides: Partial<ReadStore> = {
    get: async (collection, id) => {
      const doc = await inner.get(collection, id);
      if (doc) counts.docsRead++;
      return doc as never;
    },
    find: async (collection, query) => {
      const page = await inner.find(collection, query);
      counts.docsRead += page.items.length;
      return page as never;
    },
    search: async (collection, query) => {
      const page = await inner.search(collection, query);
      counts.docsRead += page.items.length;
      return page as never;
    },
    commit: async (projector, ops, position, after) => {
      for (const op of ops) {
        if (op.kind !== 'put') continue;
        const bytes = JSON.stringify(op.doc).length;
        counts.bytesWritten += bytes;
        if (op.collection === 'conversations') counts.conversationDocBytes = Math.max(counts.conversationDocBytes, bytes);
      }
      return inner.commit(projector, ops, position, after);
    },
    // Projections write through the generation they were started on.
    atGeneration: (generation) => countingReadStore(inner.atGeneration(generation)),
  };
  return new Proxy(inner, {
    get(target, key) {
      if (key in overrides) return overrides[key as keyof ReadStore];
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const dataDir = mkdtempSync(join(tmpdir(), 'mas-one-conversation-'));
let server: Server;
let base: string;
let platform: FakePlatform;
let integrationId: number;
let co: Awaited<ReturnType<typeof signUp>>;
let sent = 0;

beforeAll(async () => {
  platform = await startFakePlatform({ token: TOKEN });
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    AUTH_RATE_LIMIT_PER_MINUTE: '10000',
    ALLOW_PRIVATE_PLATFORM_URLS: 'true',
    // Every message of the measured windows gets its own answer: the reply pipeline is part of what is counted.
    REPLY_BURST_WINDOW_MS: '0',
  });
  const logger = createLogger({ level: 'silent' });
  const opened = await openAdapters(config, logger);
  server = await createServer(config, logger, { adapters: { ...opened, eventStore: countingEventStore(opened.eventStore), readStore: countingReadStore(opened.readStore) } });
  await server.processingStarted;
  base = await server.listen(0, '127.0.0.1');
  co = await signUp(server as TestServer, 'One Conversation Inc');
  const agent = (await co.call('POST', '/api/agents', { name: 'Ava', handoffMessage: 'A colleague will reply soon.' })).json().agent;
  expect((await co.call('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: 'We ship to Norway, Sweden and Denmark within 5 working days.' })).statusCode).toBe(201);
  integrationId = await createPlatformIntegration(co, { agentId: agent.id, apiUrl: platform.url, apiToken: TOKEN, webhookSecret: SECRET });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await platform?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const message = () => {
  const n = sent++;
  return { hook_type: 'inbox', type: 'from_client', message_id: `m-${n}`, client_id: CLIENT, channel_id: 1, transport: 'telegram', text: `Do you ship to Norway? (${n})` };
};
const repliesAtPlatform = () => platform.messages().filter((m) => m.client_id === CLIENT).length;

/** `WINDOW` messages, each answered (its reply at the platform) before the next: the counts they cost, per message. */
async function measuredWindow(): Promise<Counts> {
  await settle();
  counts = zero();
  for (let i = 0; i < WINDOW; i++) {
    const before = repliesAtPlatform();
    await postPlatformWebhook(base, integrationId, SECRET, message());
    const t0 = Date.now();
    await eventually(() => expect(repliesAtPlatform()).toBeGreaterThan(before), 30_000).catch(async (err) => {
      const [started] = await server.adapters.eventStore.readAll({ filter: { eventTypes: ['ConversationStarted'] } });
      const tail = await server.adapters.eventStore.readStream(started!.stream, { direction: 'backwards', maxCount: 8 });
      throw new Error(`${err} after ${Date.now() - t0} ms; newest events: ${tail.map((e) => `${e.type} ${JSON.stringify(e.data).slice(0, 200)}`).join(' | ')}`);
    });
  }
  await settle();
  const c = counts;
  return {
    conversationEventsRead: c.conversationEventsRead / WINDOW,
    otherStreamEventsRead: c.otherStreamEventsRead / WINDOW,
    readStreamCalls: c.readStreamCalls / WINDOW,
    docsRead: c.docsRead / WINDOW,
    bytesWritten: c.bytesWritten / WINDOW,
    conversationDocBytes: c.conversationDocBytes,
  };
}

/** Until the processing side has nothing left to do: no projection write for half a second. */
async function settle() {
  let last = -1;
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    if (counts.bytesWritten === last) return;
    last = counts.bytesWritten;
  }
}

/** The conversation grown by `count` messages, 16 at a time, as a flood arrives (most never answered one by one). */
async function grow(count: number) {
  let next = 0;
  const poster = async () => {
    while (next++ < count) expect(await sendPlatformWebhook(base, integrationId, SECRET, message())).toBe(200);
  };
  await Promise.all(Array.from({ length: 16 }, poster));
  await settle();
  // The flood's bursts, joined into one question, get the agent's handoff (the AI session pauses): a teammate
  // resolves the conversation, so the customer's next message opens a new session the AI answers again.
  const id = (await co.call('GET', '/api/conversations')).json().conversations[0].id as string;
  expect((await co.call('POST', `/api/conversations/${id}/close`, {})).statusCode).toBe(200);
}

describe('one conversation, longer and longer', () => {
  it('a message answered after 1,500 more messages reads and writes what it did before (events, documents, bytes)', async () => {
    await grow(START);
    const early = await measuredWindow();
    await grow(GROWTH);
    const late = await measuredWindow();
    const table = Object.fromEntries(Object.keys(early).map((k) => [k, { early: early[k as keyof Counts], late: late[k as keyof Counts] }]));
    // A little slack for what the two windows catch of the periodic sweeps; a read growing with the length is far more.
    // The prompt's history pages back (64 events a page) until it holds enough turns: right after the flood, the
    // newest page can hold too few, so up to two more pages are read. Bounded by the turns wanted, not the length:
    // 1,500 more messages read by a growing step would be thousands of events.
    const slack = (key: keyof Counts) => (key === 'conversationEventsRead' ? 2 * 64 : 1);
    for (const key of Object.keys(early) as (keyof Counts)[]) expect(late[key], `${key}: ${JSON.stringify(table)}`).toBeLessThanOrEqual(early[key] * 1.1 + slack(key));
  }, 600_000);
});
