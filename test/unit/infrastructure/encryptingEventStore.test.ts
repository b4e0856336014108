import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventCatalog } from '../../../src/domain/catalog.js';
import { customerIdFor } from '../../../src/domain/customers/decider.js';
import { ERASED_TEXT } from '../../../src/domain/personalData.js';
import { MemoryEventStore } from '../../../src/infrastructure/memory/memoryEventStore.js';
import { cachePersonalDataKeys } from '../../../src/infrastructure/personalKeys/cachedPersonalDataKeys.js';
import { ENVELOPE_FIELD, encryptingEventStore } from '../../../src/infrastructure/personalKeys/encryptingEventStore.js';
import { createMemoryPersonalDataKeys } from '../../../src/infrastructure/personalKeys/memoryPersonalDataKeys.js';
import { validatingEventStore } from '../../../src/infrastructure/validatingEventStore.js';
import type { NewEvent } from '../../../src/ports/eventStore.js';

const company = randomUUID();
const conversation = randomUUID();
const stream = `conversation-${conversation}`;
const customerId = customerIdFor(12, 'client-secret-77');
const at = '2025-01-01T10:00:00.000Z';
const ev = (type: string, data: Record<string, unknown>): NewEvent => ({ id: randomUUID(), type, data });
const started = ev('ConversationStarted', {
  conversationId: conversation,
  companyId: company,
  integrationId: 12,
  connectorType: 'msgplatform',
  customer: { clientId: 'client-secret-77', channelId: 3, transport: 'telegram', name: 'Zebulon Quartz' },
  stageId: null,
  at,
});
const message = (text: string) => ev('MessageReceived', { messageId: randomUUID(), dedupeKey: `k${text.length}`, dedupeUntil: null, text, platform: {}, at });

function open() {
  const raw = new MemoryEventStore();
  const keys = cachePersonalDataKeys(createMemoryPersonalDataKeys(), { maxEntries: 4 });
  const store = validatingEventStore(encryptingEventStore(raw, keys), eventCatalog);
  return { raw, keys, store };
}

describe('encrypting event store', () => {
  it('stores personal fields only as ciphertext under the customer’s key, and reads them back whole', async () => {
    const { raw, keys, store } = await open();
    await store.append(stream, [started, message('my IBAN is XQ-991-TOPSECRET')], 'no_stream');
    const stored = JSON.stringify((await raw.readStream(stream)).map((e) => e.data));
    expect(stored).not.toContain('TOPSECRET');
    expect(stored).not.toContain('Zebulon');
    expect(stored).not.toContain('client-secret-77');
    expect(stored).toContain(ENVELOPE_FIELD);
    expect(stored).toContain(conversation); // the log's structure (ids, types, times) stays plain
    expect(await keys.subjectOf(stream)).toEqual({ subjectId: customerId, companyId: company });
    const read = await store.readStream(stream);
    expect(read.map((e) => e.type)).toEqual(['ConversationStarted', 'MessageReceived']);
    expect(read[0]!.data).toEqual(started.data);
    expect((read[1]!.data as { text: string }).text).toBe('my IBAN is XQ-991-TOPSECRET');
  });

  it('once the customer is erased, the same events read with the erased marker, still valid, same count and order', async () => {
    const { store, keys } = await open();
    await store.append(stream, [started, message('first secret'), message('second secret')], 'no_stream');
    const before = await store.readAll();
    expect(await keys.eraseSubject(customerId)).toBe(1);
    const after = await store.readAll();
    expect(after.map((e) => [e.type, e.position, e.id])).toEqual(before.map((e) => [e.type, e.position, e.id]));
    expect(after.slice(1).map((e) => (e.data as { text: string }).text)).toEqual([ERASED_TEXT, ERASED_TEXT]);
    const customer = (after[0]!.data as { customer: Record<string, unknown> }).customer;
    expect(customer).toEqual({ clientId: ERASED_TEXT, channelId: 3, transport: 'telegram' });
  });

  it('an erased customer writing again into the same conversation is encrypted under a new key, erased by the next erasure', async () => {
    const { raw, store, keys } = await open();
    await store.append(stream, [started, message('before erasure')], 'no_stream');
    expect(await keys.eraseSubject(customerId)).toBe(1);
    await store.append(stream, [message('back again RETURNING-SECRET')], 1n);
    const stored = JSON.stringify((await raw.readStream(stream)).map((e) => e.data));
    expect(stored).not.toContain('RETURNING-SECRET');
    const read = await store.readStream(stream);
    expect(read.map((e) => (e.data as { text?: string }).text)).toEqual([undefined, ERASED_TEXT, 'back again RETURNING-SECRET']);
    expect(await keys.subjectOf(stream)).toEqual({ subjectId: customerId, companyId: company });
    expect(await keys.eraseSubject(customerId)).toBe(1);
    expect(((await store.readStream(stream))[2]!.data as { text: string }).text).toBe(ERASED_TEXT);
  });

  it('the cache never keeps a missing key, and a scope without a subject only for its TTL (another process may key it)', async () => {
    const shared = createMemoryPersonalDataKeys();
    let now = 0;
    const here = cachePersonalDataKeys(shared, { ttlMs: 1_000, now: () => now });
    const subject = { subjectId: customerId, companyId: company };
    expect(await here.currentKey(stream)).toBeNull();
    expect(await here.subjectOf(stream)).toBeNull();
    const made = await shared.createKey(stream, subject); // another process keys the scope
    expect(await here.currentKey(stream)).toEqual(made);
    expect(await here.subjectOf(stream)).toBeNull(); // the cached "none", within its TTL
    now += 1_001;
    expect(await here.subjectOf(stream)).toEqual(subject);
    await shared.eraseSubject(customerId); // erased elsewhere: the tombstone keeps the subject
    here.forget(); // as on reading the CustomerErased event
    expect(await here.currentKey(stream)).toBeNull();
    expect(await here.subjectOf(stream)).toEqual(subject);
    const fresh = await shared.createKey(stream, subject); // keyed again elsewhere
    expect(await here.currentKey(stream)).toEqual(fresh);
  });

  it('a conversation started before encryption (no key) keeps being stored plain', async () => {
    const { raw, store } = await open();
    await raw.append(stream, [started], 'no_stream'); // written by the code before this change
    await store.append(stream, [message('legacy plain')], 0n);
    expect(JSON.stringify((await raw.readStream(stream)).map((e) => e.data))).toContain('legacy plain');
    expect(((await store.readStream(stream))[1]!.data as { text: string }).text).toBe('legacy plain');
  });

  it('a copy made from a conversation (a replay answer) uses that conversation’s key and is erased with it', async () => {
    const { raw, store, keys } = await open();
    await store.append(stream, [started], 'no_stream');
    const replayStream = `replay-${randomUUID()}`;
    const answer = ev('ReplayAnswerRecorded', {
      conversationId: conversation,
      turn: 0,
      messageIds: [randomUUID()],
      customerText: 'replayed secret words',
      customerAt: at,
      recorded: { kind: 'operator', text: 'operator said secret' },
      draft: { status: 'failed', error: 'x' },
      at,
    });
    await store.append(replayStream, [answer], 'any');
    expect(JSON.stringify((await raw.readStream(replayStream))[0]!.data)).not.toContain('secret');
    await keys.eraseSubject(customerId);
    const data = (await store.readStream(replayStream))[0]!.data as { customerText: string; recorded: { text: string } };
    expect([data.customerText, data.recorded.text]).toEqual([ERASED_TEXT, ERASED_TEXT]);
  });

  it('keeps a bounded cache: many customers never hold more than its bound, and keys still resolve from the store', async () => {
    const { store, keys } = await open();
    for (let i = 0; i < 20; i++) {
      const id = randomUUID();
      await store.append(`conversation-${id}`, [{ ...started, id: randomUUID(), data: { ...(started.data as object), conversationId: id, customer: { clientId: `c${i}`, channelId: 3, transport: 't' } } }, message(`m${i}`)], 'no_stream');
    }
    expect(keys.cacheSize()).toBeLessThanOrEqual(8);
    const all = await store.readAll();
    expect(all.filter((e) => e.type === 'MessageReceived').map((e) => (e.data as { text: string }).text)).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
  });

  it('reading a CustomerErased event drops the cached keys, so another process’s erasure takes effect here', async () => {
    const raw = new MemoryEventStore();
    const shared = createMemoryPersonalDataKeys();
    const here = cachePersonalDataKeys(shared, { ttlMs: 3_600_000 });
    const store = validatingEventStore(encryptingEventStore(raw, here), eventCatalog);
    await store.append(stream, [started, message('cached secret')], 'no_stream');
    await store.readAll(); // key cached
    await shared.eraseSubject(customerId); // erased by another process, behind this cache's back
    const erasedEvent = ev('CustomerErased', { customerId, companyId: company, conversationIds: [conversation], by: 'user:u', reason: 'ticket 1', at });
    await store.append(`customer-${customerId}`, [erasedEvent], 'any');
    // Events before the erasure event may still decode with the stale key; once it is read, none does.
    await store.readAll();
    const texts = (await store.readAll()).filter((e) => e.type === 'MessageReceived').map((e) => (e.data as { text: string }).text);
    expect(texts).toEqual([ERASED_TEXT]);
  });
});
