import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EventStore, NewEvent, RecordedEvent } from '../../src/ports/eventStore.js';
import { CorruptEventError, EventIdConflictError, WrongExpectedRevisionError } from '../../src/ports/errors.js';
import { validatingEventStore } from '../../src/infrastructure/validatingEventStore.js';

export interface EventStoreContractOptions {
  /**
   * The adapter refuses an event id already stored in another stream (memory, SQLite: ids are unique in the
   * whole store). EventStoreDB keeps no index of ids across streams, so it opts out. Default true.
   */
  eventIdsUniqueAcrossStreams?: boolean;
  /** How long to wait for a subscription to deliver. Default 5000 ms. */
  deliveryTimeoutMs?: number;
}

export type EventStoreFactory = () => Promise<{ store: EventStore; cleanup(): Promise<void> }>;

/**
 * The behaviour every EventStore adapter must show. Each test writes to streams of its own (random names
 * under one random prefix), and bounds its reads with `after: headPosition()` or a prefix filter, so the
 * suite also runs against a shared EventStoreDB that holds other data.
 */
export function eventStoreContract(name: string, factory: EventStoreFactory, options: EventStoreContractOptions = {}): void {
  const timeoutMs = options.deliveryTimeoutMs ?? 5000;

  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    let cleanup: () => Promise<void>;
    /** Unique per test: `contract-<uuid>-`. */
    let P: string;

    beforeEach(async () => {
      ({ store, cleanup } = await factory());
      P = `contract-${randomUUID()}-`;
    });
    afterEach(async () => {
      await cleanup();
    });

    describe('append and readStream', () => {
      it('round-trips events with bigint revisions and positions', async () => {
        const stream = `${P}order-1`;
        const first = ev('OrderPlaced', { items: [{ sku: 'a-1', qty: 2 }], note: 'héllo ✓ 日本', nested: { deep: { ok: true } } });
        first.metadata = { companyId: 'c1', correlationId: 'corr', causationId: 'cause', actor: 'user:1' };
        const second = ev('OrderPaid', { amount: 12.5 });
        const r1 = await store.append(stream, [first, second], 'no_stream');
        expect(r1.nextRevision).toBe(1n);
        expect(typeof r1.position).toBe('bigint');

        const events = await store.readStream(stream);
        expect(events).toHaveLength(2);
        expect(events.map((e) => e.revision)).toEqual([0n, 1n]);
        expect(events.map((e) => e.id)).toEqual([first.id, second.id]);
        expect(events.map((e) => e.type)).toEqual(['OrderPlaced', 'OrderPaid']);
        expect(events.every((e) => e.stream === stream)).toBe(true);
        expect(events[0]!.data).toEqual(first.data);
        expect(events[0]!.metadata).toEqual(first.metadata);
        expect(events[1]!.data).toEqual(second.data);
        expect(events[1]!.metadata).toEqual({});
        for (const e of events) {
          expect(typeof e.position).toBe('bigint');
          expect(typeof e.revision).toBe('bigint');
          expect(e.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
          expect(Math.abs(Date.parse(e.createdAt) - Date.now())).toBeLessThan(60_000);
        }
        expect(events[1]!.position).toBeGreaterThan(events[0]!.position);
        expect(events[1]!.position).toBe(r1.position);

        const third = ev('OrderShipped', { carrier: 'x' });
        const r2 = await store.append(stream, [third], 1n);
        expect(r2.nextRevision).toBe(2n);
        expect(r2.position).toBeGreaterThan(r1.position);

        const tail = await store.readStream(stream, { fromRevision: 1n });
        expect(tail.map((e) => e.id)).toEqual([second.id, third.id]);
        expect(tail.at(-1)!.position).toBe(r2.position);
      });

      it('reads a bounded window forwards and backwards, so per-message work never reads a whole stream', async () => {
        const stream = `${P}long`;
        const events = Array.from({ length: 10 }, (_, i) => ev('Step', { i }));
        await store.append(stream, events, 'no_stream');
        const ids = events.map((e) => e.id);
        expect((await store.readStream(stream, { maxCount: 3 })).map((e) => e.id)).toEqual(ids.slice(0, 3));
        expect((await store.readStream(stream, { fromRevision: 8n, maxCount: 5 })).map((e) => e.id)).toEqual(ids.slice(8));
        const newest = await store.readStream(stream, { direction: 'backwards', maxCount: 3 });
        expect(newest.map((e) => e.id)).toEqual([ids[9], ids[8], ids[7]]);
        expect(newest.map((e) => e.revision)).toEqual([9n, 8n, 7n]);
        expect((await store.readStream(stream, { direction: 'backwards', fromRevision: 4n, maxCount: 2 })).map((e) => e.id)).toEqual([ids[4], ids[3]]);
        expect((await store.readStream(stream, { direction: 'backwards', fromRevision: 1n })).map((e) => e.id)).toEqual([ids[1], ids[0]]);
        expect(await store.readStream(stream, { maxCount: 0 })).toEqual([]);
        expect(await store.readStream(`${P}missing`, { direction: 'backwards', maxCount: 5 })).toEqual([]);
      });

      it('reads an unknown stream as []', async () => {
        expect(await store.readStream(`${P}missing`)).toEqual([]);
      });
    });

    describe('expected revision', () => {
      it('no_stream: succeeds on a new stream, conflicts on an existing one without writing', async () => {
        const stream = `${P}s`;
        await store.append(stream, [ev()], 'no_stream');
        const err = await store.append(stream, [ev()], 'no_stream').catch((e: unknown) => e);
        expect(err).toBeInstanceOf(WrongExpectedRevisionError);
        expect((err as WrongExpectedRevisionError).stream).toBe(stream);
        expect(await store.readStream(stream)).toHaveLength(1);
      });

      it('stream_exists: conflicts on a new stream without writing, succeeds on an existing one', async () => {
        const stream = `${P}s`;
        await expect(store.append(stream, [ev()], 'stream_exists')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        expect(await store.readStream(stream)).toEqual([]);
        await store.append(stream, [ev()], 'no_stream');
        const r = await store.append(stream, [ev()], 'stream_exists');
        expect(r.nextRevision).toBe(1n);
        expect(await store.readStream(stream)).toHaveLength(2);
      });

      it('any: appends to a new and to an existing stream', async () => {
        const stream = `${P}s`;
        expect((await store.append(stream, [ev()], 'any')).nextRevision).toBe(0n);
        expect((await store.append(stream, [ev(), ev()], 'any')).nextRevision).toBe(2n);
        expect(await store.readStream(stream)).toHaveLength(3);
      });

      it('exact revision: succeeds when it matches, conflicts when behind or ahead without writing', async () => {
        const stream = `${P}s`;
        await expect(store.append(stream, [ev()], 0n)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        expect(await store.readStream(stream)).toEqual([]);
        await store.append(stream, [ev(), ev()], 'no_stream');
        await expect(store.append(stream, [ev()], 0n)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        await expect(store.append(stream, [ev()], 5n)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        expect(await store.readStream(stream)).toHaveLength(2);
        const r = await store.append(stream, [ev()], 1n);
        expect(r.nextRevision).toBe(2n);
        expect(await store.readStream(stream)).toHaveLength(3);
      });

      it('an empty append checks the expected revision and writes nothing', async () => {
        const stream = `${P}s`;
        expect((await store.append(stream, [], 'no_stream')).nextRevision).toBe(-1n);
        await expect(store.append(stream, [], 'stream_exists')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        expect(await store.readStream(stream)).toEqual([]);
        await store.append(stream, [ev()], 'no_stream');
        expect((await store.append(stream, [], 0n)).nextRevision).toBe(0n);
        await expect(store.append(stream, [], 3n)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        expect(await store.readStream(stream)).toHaveLength(1);
      });
    });

    describe('concurrency', () => {
      it('of 10 concurrent appends with the same expected revision exactly one wins', async () => {
        const stream = `${P}hot`;
        await store.append(stream, [ev()], 'no_stream');
        const attempts = Array.from({ length: 10 }, () => [ev('Attempt', { n: 1 }), ev('Attempt', { n: 2 })]);
        const settled = await Promise.allSettled(attempts.map((events) => store.append(stream, events, 0n)));
        const won = settled.flatMap((s, i) => (s.status === 'fulfilled' ? [i] : []));
        expect(won).toHaveLength(1);
        for (const s of settled) {
          if (s.status === 'rejected') expect(s.reason).toBeInstanceOf(WrongExpectedRevisionError);
        }
        const winner = attempts[won[0]!]!;
        const events = await store.readStream(stream);
        expect(events.map((e) => e.revision)).toEqual([0n, 1n, 2n]);
        expect(events.slice(1).map((e) => e.id)).toEqual(winner.map((e) => e.id));
        const result = (settled[won[0]!] as PromiseFulfilledResult<{ nextRevision: bigint; position: bigint }>).value;
        expect(result).toEqual({ nextRevision: 2n, position: events[2]!.position });
      });

      it('concurrent appends to distinct streams all land, each event once, at distinct positions', async () => {
        const head = await store.headPosition();
        const batches = Array.from({ length: 20 }, (_, i) => ({ stream: `${P}s${i}`, events: [ev(), ev()] }));
        const results = await Promise.all(batches.map((b) => store.append(b.stream, b.events, 'no_stream')));
        expect(results.every((r) => r.nextRevision === 1n)).toBe(true);
        expect(new Set(results.map((r) => r.position)).size).toBe(20);

        const all = await store.readAll({ after: head, filter: { streamPrefixes: [P] } });
        expect(all).toHaveLength(40);
        expect(new Set(all.map((e) => e.id)).size).toBe(40);
        expectStrictlyIncreasing(all.map((e) => e.position));
        for (const [i, b] of batches.entries()) {
          const mine = all.filter((e) => e.stream === b.stream);
          expect(mine.map((e) => e.id)).toEqual(b.events.map((e) => e.id));
          expect(mine.map((e) => e.revision)).toEqual([0n, 1n]);
          expect(mine.at(-1)!.position).toBe(results[i]!.position);
        }
      });
    });

    describe('idempotent retries', () => {
      it('appending the same event ids again stores nothing and answers like the original append', async () => {
        const stream = `${P}s`;
        const events = [ev(), ev()];
        const original = await store.append(stream, events, 'no_stream');
        expect(original.duplicate).toBeFalsy();
        const retried = { ...original, duplicate: true };
        expect(await store.append(stream, events, 'no_stream')).toEqual(retried);

        const later = await store.append(stream, [ev()], 1n);
        // Retried after the stream moved on: still the original answer, still nothing stored.
        expect(await store.append(stream, events, 'no_stream')).toEqual(retried);
        expect(await store.append(stream, events, 'any')).toEqual(retried);

        const single = ev();
        const r = await store.append(stream, [single], 'any');
        expect(await store.append(stream, [single], 'any')).toEqual({ ...r, duplicate: true });
        expect(await store.append(stream, [single], 2n)).toEqual({ ...r, duplicate: true });

        const stored = await store.readStream(stream);
        expect(stored.map((e) => e.id)).toEqual([...events.map((e) => e.id), stored[2]!.id, single.id]);
        expect(stored[2]!.position).toBe(later.position);
      });

      it('a retry at its original expected revision is recognised however far the stream and the store moved on', async () => {
        // EventStoreDB answers such a retry with success and the ORIGINAL revision and position: the adapter must
        // still say that nothing was written, or a redelivered command reads as new.
        const stream = `${P}retry`;
        await store.append(stream, [ev()], 'no_stream');
        const events = [ev('Charged', { n: 1 }), ev('Charged', { n: 2 })];
        const original = await store.append(stream, events, 0n);
        expect(original).toEqual({ nextRevision: 2n, position: original.position });
        expect(await store.append(stream, events, 0n)).toEqual({ ...original, duplicate: true });

        await store.append(`${P}elsewhere`, [ev(), ev()], 'no_stream');
        await store.append(stream, [ev()], 2n);
        const single = ev();
        const r = await store.append(stream, [single], 3n);
        await store.append(stream, [ev()], 4n);
        expect(await store.append(stream, events, 0n)).toEqual({ ...original, duplicate: true });
        expect(await store.append(stream, [single], 3n)).toEqual({ ...r, duplicate: true });
        expect((await store.readStream(stream)).map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n, 5n]);
      });

      if (options.eventIdsUniqueAcrossStreams ?? true) {
        it('refuses an event id already stored in another stream', async () => {
          const e = ev();
          await store.append(`${P}a`, [e], 'no_stream');
          await expect(store.append(`${P}b`, [e], 'any')).rejects.toBeInstanceOf(EventIdConflictError);
          await expect(store.append(`${P}b`, [ev(), e], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
          expect(await store.readStream(`${P}b`)).toEqual([]);
        });
      }
    });

    describe('readAll', () => {
      it('returns events in commit order with strictly increasing positions; after is exclusive; maxCount caps', async () => {
        const head = await store.headPosition();
        const plan: [string, NewEvent[]][] = [
          [`${P}a`, [ev(), ev()]],
          [`${P}b`, [ev()]],
          [`${P}a`, [ev()]],
          [`${P}c`, [ev(), ev(), ev()]],
        ];
        const positions: bigint[] = [];
        for (const [stream, events] of plan) positions.push((await store.append(stream, events, 'any')).position);
        const ids = plan.flatMap(([, events]) => events.map((e) => e.id));

        const all = (await store.readAll({ after: head })).filter((e) => e.stream.startsWith(P));
        expect(all.map((e) => e.id)).toEqual(ids);
        expectStrictlyIncreasing(all.map((e) => e.position));
        expect(all[1]!.position).toBe(positions[0]);
        expect(all.at(-1)!.position).toBe(positions.at(-1));

        const filter = { streamPrefixes: [P] };
        expect((await store.readAll({ filter })).map((e) => e.id)).toEqual(ids);
        const afterSecond = await store.readAll({ after: all[1]!.position, filter });
        expect(afterSecond.map((e) => e.id)).toEqual(ids.slice(2));
        const capped = await store.readAll({ after: all[1]!.position, maxCount: 2, filter });
        expect(capped.map((e) => e.id)).toEqual(ids.slice(2, 4));
        expect(await store.readAll({ after: all.at(-1)!.position, filter })).toEqual([]);

        // Paging with after = last position of the previous page visits every event once.
        const paged: RecordedEvent[] = [];
        let after = head;
        for (;;) {
          const page = await store.readAll({ after, maxCount: 3, filter });
          if (page.length === 0) break;
          paged.push(...page);
          after = page.at(-1)!.position;
        }
        expect(paged.map((e) => e.id)).toEqual(ids);
      });

      it('filters by stream prefix (exact, case-sensitive, no wildcards) and by event type', async () => {
        const head = await store.headPosition();
        const plan: [string, NewEvent][] = [
          [`${P}order-1`, ev('TypeA')],
          [`${P}customer-1`, ev('TypeB')],
          [`${P}order-2`, ev('TypeC')],
          [`${P}Order-3`, ev('TypeA')],
          [`${P}a_b%c`, ev('TypeB')],
          [`${P}axbyc`, ev('TypeA')],
          [`${P}order-1`, ev('TypeB')],
        ];
        for (const [stream, e] of plan) await store.append(stream, [e], 'any');
        const idsWhere = (pred: (stream: string, e: NewEvent) => boolean) =>
          plan.filter(([s, e]) => pred(s, e)).map(([, e]) => e.id);
        const read = async (filter: { streamPrefixes?: string[]; eventTypes?: string[] }) =>
          (await store.readAll({ after: head, filter })).map((e) => e.id);

        expect(await read({ streamPrefixes: [`${P}order-`] })).toEqual(idsWhere((s) => s.startsWith(`${P}order-`)));
        expect(await read({ streamPrefixes: [`${P}a_b%`] })).toEqual(idsWhere((s) => s === `${P}a_b%c`));
        expect(await read({ streamPrefixes: [`${P}order-`, `${P}customer-`] })).toEqual(
          idsWhere((s) => s.startsWith(`${P}order-`) || s.startsWith(`${P}customer-`)),
        );
        expect(await read({ streamPrefixes: [P], eventTypes: ['TypeA', 'TypeC'] })).toEqual(
          idsWhere((_, e) => e.type === 'TypeA' || e.type === 'TypeC'),
        );
        expect(await read({ streamPrefixes: [`${P}order-`], eventTypes: ['TypeB'] })).toEqual(
          idsWhere((s, e) => s.startsWith(`${P}order-`) && e.type === 'TypeB'),
        );
        const typeOnly = (await store.readAll({ after: head, filter: { eventTypes: ['TypeC'] } })).filter((e) =>
          e.stream.startsWith(P),
        );
        expect(typeOnly.map((e) => e.id)).toEqual(idsWhere((_, e) => e.type === 'TypeC'));
        expect(await read({ streamPrefixes: [`${P}nothing-`] })).toEqual([]);
      });

      it('headPosition reaches the position of the last append', async () => {
        const before = await store.headPosition();
        expect(before === null || typeof before === 'bigint').toBe(true);
        const r = await store.append(`${P}s`, [ev(), ev()], 'no_stream');
        const head = await store.headPosition();
        expect(typeof head).toBe('bigint');
        expect(head!).toBeGreaterThanOrEqual(r.position);
        if (before !== null) expect(head!).toBeGreaterThan(before);
        expect(await store.readAll({ after: head, filter: { streamPrefixes: [P] } })).toEqual([]);
      });
    });

    describe('subscribe', () => {
      it('from a checkpoint delivers each later event once, in order, including events appended after it started', async () => {
        const head = await store.headPosition();
        const early = [ev(), ev(), ev(), ev(), ev()];
        for (const [i, e] of early.entries()) await store.append(`${P}${i % 2 ? 'odd' : 'even'}`, [e], 'any');
        const checkpoint = (await store.readAll({ after: head, filter: { streamPrefixes: [P] } }))[2]!.position;

        const batches: RecordedEvent[][] = [];
        const sub = store.subscribe({ after: checkpoint, filter: { streamPrefixes: [P] }, batchSize: 2 }, async (events) => {
          batches.push(events);
        });
        try {
          const late = [ev(), ev(), ev()];
          await store.append(`${P}late`, [late[0]!, late[1]!], 'no_stream');
          await store.append(`${P}odd`, [late[2]!], 'any');
          const expected = [...early.slice(3), ...late].map((e) => e.id);
          await waitFor(() => batches.flat().length >= expected.length, timeoutMs);
          await sleep(300); // nothing more may arrive
          const got = batches.flat();
          expect(got.map((e) => e.id)).toEqual(expected);
          expectStrictlyIncreasing(got.map((e) => e.position));
          expect(got[0]!.position).toBeGreaterThan(checkpoint);
          expect(batches.every((b) => b.length >= 1 && b.length <= 2)).toBe(true);
        } finally {
          await sub.stop();
        }
        const delivered = batches.flat().length;
        await store.append(`${P}after-stop`, [ev()], 'no_stream');
        await sleep(600);
        expect(batches.flat().length).toBe(delivered);
      });

      it('without a checkpoint starts at the beginning; filters by event type', async () => {
        const a = ev('TypeA');
        const b = ev('TypeB');
        await store.append(`${P}x`, [a, b], 'no_stream');
        const got: RecordedEvent[] = [];
        const sub = store.subscribe({ filter: { streamPrefixes: [P], eventTypes: ['TypeB'] } }, async (events) => {
          got.push(...events);
        });
        try {
          const c = ev('TypeB');
          await store.append(`${P}y`, [ev('TypeA'), c], 'no_stream');
          await waitFor(() => got.length >= 2, timeoutMs);
          await sleep(200);
          expect(got.map((e) => e.id)).toEqual([b.id, c.id]);
        } finally {
          await sub.stop();
        }
      });

      it('a handler failure reaches onError and stops delivery', async () => {
        const errors: unknown[] = [];
        let calls = 0;
        const boom = new Error('handler failed');
        const sub = store.subscribe(
          { filter: { streamPrefixes: [P] }, onError: (err) => errors.push(err) },
          async () => {
            calls++;
            throw boom;
          },
        );
        try {
          await store.append(`${P}s`, [ev()], 'no_stream');
          await waitFor(() => errors.length > 0, timeoutMs);
          await store.append(`${P}s`, [ev()], 0n);
          await sleep(400);
          expect(errors).toEqual([boom]);
          expect(calls).toBe(1);
        } finally {
          await sub.stop();
        }
      });
    });

    describe('through validatingEventStore', () => {
      const catalog = { ContractThingHappened: z.object({ n: z.number() }) };

      it('refuses data that violates its schema with CorruptEventError and writes nothing', async () => {
        const validated = validatingEventStore(store, catalog);
        const stream = `${P}v`;
        // Called through an async function, as callers do (`await store.append(...)`).
        const attempt = async (events: NewEvent[]) => validated.append(stream, events, 'no_stream');
        const err = await attempt([ev('ContractThingHappened', { n: 'not a number' })]).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(CorruptEventError);
        expect((err as Error).message).toContain(stream);
        expect(await store.readStream(stream)).toEqual([]);
        await expect(attempt([ev('ContractThingHappened', { n: 1 }), ev('Unknown', {})])).rejects.toBeInstanceOf(
          CorruptEventError,
        );
        expect(await store.readStream(stream)).toEqual([]);

        await validated.append(stream, [ev('ContractThingHappened', { n: 1 })], 'no_stream');
        expect((await validated.readStream(stream)).map((e) => e.data)).toEqual([{ n: 1 }]);
      });

      it('fails loudly, naming stream and position, on reading an event of unknown type', async () => {
        const validated = validatingEventStore(store, catalog);
        const stream = `${P}v`;
        const head = await store.headPosition();
        await store.append(stream, [ev('ContractThingHappened', { n: 1 })], 'no_stream');
        const { position } = await store.append(stream, [ev('SomethingNobodyKnows', { x: 1 })], 0n);

        for (const read of [
          () => validated.readStream(stream),
          () => validated.readAll({ after: head, filter: { streamPrefixes: [P] } }),
        ]) {
          const err = await read().then(
            () => null,
            (e: unknown) => e,
          );
          expect(err).toBeInstanceOf(CorruptEventError);
          expect((err as Error).message).toContain(stream);
          expect((err as Error).message).toContain(String(position));
          expect((err as Error).message).toContain('SomethingNobodyKnows');
        }
      });
    });
  });
}

function ev(type = 'ContractTested', data: unknown = { at: Date.now() }): NewEvent {
  return { id: randomUUID(), type, data };
}

function expectStrictlyIncreasing(values: bigint[]): void {
  for (let i = 1; i < values.length; i++) expect(values[i]!).toBeGreaterThan(values[i - 1]!);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}
