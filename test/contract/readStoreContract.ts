import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  InvalidCursorError,
  ProjectionConflictError,
  StaleGenerationError,
  type CollectionSpec,
  type Doc,
  type FindQuery,
  type Page,
  type ReadStore,
  type Scalar,
  type SearchHit,
} from '../../src/ports/readStore.js';
import { queryTerms, wordsOf } from '../../src/infrastructure/readStore/fullText.js';

/** A fresh, empty database per test, and more instances on that same database (as another process would open). */
export interface ReadStoreFixture {
  store: ReadStore;
  openAnother(): Promise<ReadStore>;
  cleanup(): Promise<void>;
}

export type ReadStoreFactory = () => Promise<ReadStoreFixture>;

const items: CollectionSpec = { name: 'items', indexes: ['group', 'rank', ['group', 'rank'], 'active', 'name'] };
const other: CollectionSpec = { name: 'other', indexes: [] };
const notes: CollectionSpec = {
  name: 'notes',
  indexes: ['tenant'],
  fullText: { fields: ['text', 'title'], scope: 'tenant', order: 'seq' },
};
type Note = Doc & { tenant: string; seq: number; text: string; title?: string };
const note = (seq: number, tenant: string, text: string, title?: string): Note => ({ id: `note-${seq}`, tenant, seq, text, ...(title ? { title } : {}) });

type Item = Doc & { group: string; rank: number | null; name: string; active: boolean; tags?: string[] };

/** 120 items: two groups, ranks with many ties (and some null or missing), names with ties. */
function makeItems(n = 120): Item[] {
  return Array.from({ length: n }, (_, i) => {
    const doc: Item = {
      id: `item-${String((i * 37) % n).padStart(3, '0')}`,
      group: i % 3 === 0 ? 'a' : 'b',
      rank: i % 11 === 0 ? null : i % 7,
      name: `n${i % 5}`,
      active: i % 2 === 0,
      tags: [`t${i % 4}`],
    };
    if (i % 13 === 0) delete (doc as { rank?: unknown }).rank;
    return doc;
  });
}

/** The order the port promises: null/missing lowest, id tie-breaker in the direction of the last key. */
function expectedOrder(docs: Item[], orderBy: NonNullable<FindQuery['orderBy']>): Item[] {
  const keys = [...orderBy, { field: 'id', direction: orderBy.at(-1)?.direction ?? 'asc' } as const];
  const value = (d: Item, f: string): Scalar => ((d as Record<string, unknown>)[f] ?? null) as Scalar;
  const cmp = (a: Scalar, b: Scalar): number => {
    if (a === b) return 0;
    if (a === null) return -1;
    if (b === null) return 1;
    return a < b ? -1 : 1;
  };
  return [...docs].sort((x, y) => {
    for (const k of keys) {
      const c = cmp(value(x, k.field), value(y, k.field));
      if (c !== 0) return k.direction === 'asc' ? c : -c;
    }
    return 0;
  });
}

async function findAll<T extends Doc>(store: ReadStore, collection: string, query: FindQuery): Promise<{ items: T[]; pages: number }> {
  const out: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: Page<T> = await store.find<T>(collection, { ...query, cursor });
    out.push(...page.items);
    cursor = page.nextCursor;
    pages++;
    if (pages > 1000) throw new Error('pagination does not end');
  } while (cursor);
  return { items: out, pages };
}

const put = (collection: string, doc: Doc) => ({ kind: 'put' as const, collection, doc });
const del = (collection: string, id: string) => ({ kind: 'delete' as const, collection, id });

export interface ReadStoreContractOptions {
  /** Documents and checkpoint are written in one transaction (SQLite; MongoDB with transactions). */
  atomicCommit: boolean | ((store: ReadStore) => boolean);
  /** A delete is remembered with its position, so an older put cannot bring the document back (MongoDB). */
  deletesGuarded: boolean;
  /** Search also matches words that begin with a query word (SQLite FTS5 prefix queries). */
  prefixSearch: boolean;
}

/** The behaviour every ReadStore adapter must show. */
export function readStoreContract(name: string, factory: ReadStoreFactory, options: ReadStoreContractOptions): void {
  describe(`ReadStore contract: ${name}`, () => {
    let fx: ReadStoreFixture;
    let store: ReadStore;

    beforeEach(async () => {
      fx = await factory();
      store = fx.store;
      await store.ensureCollections([items, other, notes]);
    });
    afterEach(async () => {
      await fx.cleanup();
    });

    describe('documents', () => {
      it('puts, gets and deletes documents through commits', async () => {
        const doc = { id: 'd1', group: 'a', rank: 1, name: 'x', active: true, nested: { list: [1, 'two', null], ok: false } };
        await store.commit('p', [put('items', doc)], 1n);
        expect(await store.get('items', 'd1')).toEqual(doc);
        expect(await store.get('items', 'missing')).toBeNull();
        expect(await store.get('other', 'd1')).toBeNull();

        const fetched = (await store.get<typeof doc>('items', 'd1'))!;
        fetched.name = 'changed';
        expect((await store.get<typeof doc>('items', 'd1'))!.name).toBe('x');

        await store.commit('p', [put('items', { ...doc, name: 'y' })], 2n);
        expect((await store.get<typeof doc>('items', 'd1'))!.name).toBe('y');
        await store.commit('p', [del('items', 'd1'), del('items', 'never-existed')], 3n);
        expect(await store.get('items', 'd1')).toBeNull();
        expect(await store.count('items')).toBe(0);
        expect(await store.find('items')).toEqual({ items: [], nextCursor: null });
      });

      it('applies the last of several ops on one document in a commit', async () => {
        await store.commit('p', [put('items', { id: 'a', v: 1 }), put('items', { id: 'a', v: 2 }), put('items', { id: 'b', v: 1 })], 1n);
        expect(await store.get('items', 'a')).toEqual({ id: 'a', v: 2 });
        await store.commit('p', [put('items', { id: 'b', v: 2 }), del('items', 'b'), del('items', 'a'), put('items', { id: 'a', v: 3 })], 2n);
        expect(await store.get('items', 'a')).toEqual({ id: 'a', v: 3 });
        expect(await store.get('items', 'b')).toBeNull();
      });

      it('stores plain JSON: undefined fields are dropped', async () => {
        await store.commit('p', [put('items', { id: 'u', a: undefined, b: 1 })], 1n);
        expect(await store.get('items', 'u')).toEqual({ id: 'u', b: 1 });
        expect(Object.keys((await store.get('items', 'u'))!)).not.toContain('a');
      });

      it('refuses documents without an id, with reserved fields, or in undeclared collections', async () => {
        await expect(store.commit('p', [put('items', { id: '' })], 1n)).rejects.toThrow();
        await expect(store.commit('p', [put('items', { id: 'x', _pos: 1 })], 1n)).rejects.toThrow();
        await expect(store.commit('p', [put('nope', { id: 'x' })], 1n)).rejects.toThrow(/not declared/);
        expect(await store.checkpoint('p')).toBeNull();
      });

      it('refuses a batch computed on a checkpoint another instance has moved since, and writes none of it', async () => {
        const second = await fx.openAnother();
        await second.ensureCollections([items, other, notes]);
        await store.commit('counter', [put('items', { id: 'n', v: 1 })], 1n, null);
        // Both read v=1 at checkpoint 1; the second instance commits events 2..3 first.
        await second.commit('counter', [put('items', { id: 'n', v: 3 })], 3n, 1n);
        // This instance's batch of events 2..4, computed on v=1, would count events 2 and 3 twice.
        await expect(store.commit('counter', [put('items', { id: 'n', v: 4 })], 4n, 1n)).rejects.toBeInstanceOf(ProjectionConflictError);
        expect(await store.get('items', 'n')).toEqual({ id: 'n', v: 3 });
        expect(await store.checkpoint('counter')).toBe(3n);
        // Started again from checkpoint 3, its batch is accepted; a first commit expects no checkpoint.
        await store.commit('counter', [put('items', { id: 'n', v: 4 })], 4n, 3n);
        expect(await store.get('items', 'n')).toEqual({ id: 'n', v: 4 });
        await expect(store.commit('fresh', [], 2n, 1n)).rejects.toBeInstanceOf(ProjectionConflictError);
        // A batch at or below the checkpoint is still a replay: nothing happens, nothing is refused.
        await store.commit('counter', [put('items', { id: 'n', v: 99 })], 4n, 1n);
        expect(await store.get('items', 'n')).toEqual({ id: 'n', v: 4 });
      });

      it('given commits of several projections issued at once, when one is refused, then the others are written', async () => {
        await store.commit('first', [put('items', { id: 'f', v: 1 })], 1n, null);
        const results = await Promise.allSettled([
          store.commit('first', [put('items', { id: 'f', v: 2 })], 2n, null), // computed on a checkpoint it does not have
          store.commit('second', [put('items', { id: 's', v: 1 })], 2n, null),
          store.commit('third', [put('other', { id: 't', v: 1 })], 2n),
        ]);
        expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
        expect((results[0] as PromiseRejectedResult).reason).toBeInstanceOf(ProjectionConflictError);
        expect(await store.get('items', 'f')).toEqual({ id: 'f', v: 1 });
        expect(await store.get('items', 's')).toEqual({ id: 's', v: 1 });
        expect(await store.get('other', 't')).toEqual({ id: 't', v: 1 });
        expect([await store.checkpoint('first'), await store.checkpoint('second'), await store.checkpoint('third')]).toEqual([1n, 2n, 2n]);
      });

      it('shows one instance the commits of another', async () => {
        const second = await fx.openAnother();
        await store.commit('p', [put('items', { id: 'shared', group: 'a' })], 5n);
        expect(await second.get('items', 'shared')).toEqual({ id: 'shared', group: 'a' });
        expect(await second.checkpoint('p')).toBe(5n);
      });
    });

    describe('find and count', () => {
      let docs: Item[];
      beforeEach(async () => {
        docs = makeItems();
        await store.commit('p', docs.map((d) => put('items', d)), 10n);
      });

      it('filters by equality on strings, booleans and null, and counts', async () => {
        const a = docs.filter((d) => d.group === 'a');
        expect(await store.count('items')).toBe(120);
        expect(await store.count('items', { group: 'a' })).toBe(a.length);
        expect(await store.count('items', { active: true })).toBe(docs.filter((d) => d.active).length);
        expect(await store.count('items', { group: 'a', active: false })).toBe(a.filter((d) => !d.active).length);
        expect(await store.count('items', { rank: null })).toBe(docs.filter((d) => (d.rank ?? null) === null).length);
        expect(await store.count('items', { rank: 3 })).toBe(docs.filter((d) => d.rank === 3).length);
        expect(await store.count('items', { group: 'zzz' })).toBe(0);
        expect(await store.count('items', { id: 'item-005' })).toBe(1);

        const { items: found } = await findAll<Item>(store, 'items', { where: { group: 'a', active: true }, limit: 200 });
        expect(found.map((d) => d.id)).toEqual(
          expectedOrder(a.filter((d) => d.active), []).map((d) => d.id),
        );
      });

      it('defaults to 50 per page ordered by id, caps the limit at 1000', async () => {
        const page = await store.find<Item>('items');
        expect(page.items).toHaveLength(50);
        expect(page.items.map((d) => d.id)).toEqual(expectedOrder(docs, []).slice(0, 50).map((d) => d.id));
        expect(page.nextCursor).toEqual(expect.any(String));
        expect((await store.find('items', { limit: 500 })).items).toHaveLength(120);

        const many = Array.from({ length: 1001 }, (_, i) => put('other', { id: `o${String(i).padStart(4, '0')}` }));
        await store.commit('p', many, 11n);
        const capped = await store.find('other', { limit: 5000 });
        expect(capped.items).toHaveLength(1000);
        expect(capped.nextCursor).not.toBeNull();
        const rest = await store.find('other', { limit: 5000, cursor: capped.nextCursor });
        expect(rest.items.map((d) => d.id)).toEqual(['o1000']);
        expect(rest.nextCursor).toBeNull();
      });

      const orders: NonNullable<FindQuery['orderBy']>[] = [
        [{ field: 'rank', direction: 'asc' }],
        [{ field: 'rank', direction: 'desc' }],
        [
          { field: 'name', direction: 'asc' },
          { field: 'rank', direction: 'desc' },
        ],
        [
          { field: 'rank', direction: 'desc' },
          { field: 'name', direction: 'asc' },
        ],
        [{ field: 'id', direction: 'desc' }],
      ];
      for (const orderBy of orders) {
        const label = orderBy.map((k) => `${k.field} ${k.direction}`).join(', ');
        it(`pages through every document exactly once, in order: ${label}`, async () => {
          const { items: all, pages } = await findAll<Item>(store, 'items', { orderBy, limit: 50 });
          expect(pages).toBe(3);
          expect(all.map((d) => d.id)).toEqual(expectedOrder(docs, orderBy).map((d) => d.id));
          expect(new Set(all.map((d) => d.id)).size).toBe(120);
        });
      }

      it('pages with a where and a small limit, ending with a null cursor on the last page', async () => {
        const orderBy = [{ field: 'rank', direction: 'desc' }] as const;
        const expected = expectedOrder(docs.filter((d) => d.group === 'b'), [...orderBy]);
        const { items: all, pages } = await findAll<Item>(store, 'items', { where: { group: 'b' }, orderBy: [...orderBy], limit: 7 });
        expect(all.map((d) => d.id)).toEqual(expected.map((d) => d.id));
        expect(pages).toBe(Math.ceil(expected.length / 7));
        const exact = await store.find('items', { where: { group: 'b' }, limit: expected.length });
        expect(exact.nextCursor).toBeNull();
      });

      it('keeps a cursor stable when documents are added before it', async () => {
        const orderBy = [{ field: 'rank', direction: 'asc' }] as const;
        const first = await store.find<Item>('items', { orderBy: [...orderBy], limit: 50 });
        await store.commit('p', [put('items', { id: 'aaa-new', group: 'a', rank: null, name: 'n', active: true })], 11n);
        const second = await store.find<Item>('items', { orderBy: [...orderBy], limit: 50, cursor: first.nextCursor });
        const expected = expectedOrder(docs, [...orderBy]).slice(50, 100);
        expect(second.items.map((d) => d.id)).toEqual(expected.map((d) => d.id));
      });

      it('rejects malformed cursors and cursors of another query', async () => {
        const page = await store.find('items', { orderBy: [{ field: 'rank', direction: 'asc' }], limit: 10 });
        await expect(store.find('items', { cursor: 'garbage!' })).rejects.toBeInstanceOf(InvalidCursorError);
        await expect(store.find('items', { cursor: page.nextCursor })).rejects.toBeInstanceOf(InvalidCursorError);
        await expect(
          store.find('items', { orderBy: [{ field: 'rank', direction: 'desc' }], cursor: page.nextCursor }),
        ).rejects.toBeInstanceOf(InvalidCursorError);
        await expect(
          store.find('items', { where: { group: 'a' }, orderBy: [{ field: 'rank', direction: 'asc' }], cursor: page.nextCursor }),
        ).rejects.toBeInstanceOf(InvalidCursorError);
      });

      it('refuses fields that are not declared as indexes', async () => {
        await expect(store.find('items', { where: { color: 'red' } })).rejects.toThrow(/not declared/);
        await expect(store.find('items', { orderBy: [{ field: 'color', direction: 'asc' }] })).rejects.toThrow(/not declared/);
        await expect(store.count('items', { color: 'red' })).rejects.toThrow(/not declared/);
      });
    });

    describe('commits, replays and checkpoints', () => {
      it('keeps a checkpoint per projector, as bigint, without precision loss', async () => {
        expect(await store.checkpoint('p1')).toBeNull();
        const big = 18_446_744_073_709_551_610n; // beyond 2^63 and far beyond 2^53
        await store.commit('p1', [], 9_007_199_254_740_993n);
        await store.commit('p2', [put('other', { id: 'x' })], 7n);
        expect(await store.checkpoint('p1')).toBe(9_007_199_254_740_993n);
        expect(await store.checkpoint('p2')).toBe(7n);
        await store.commit('p1', [], big);
        expect(await store.checkpoint('p1')).toBe(big);
        expect(await store.checkpoint('p2')).toBe(7n);
      });

      it('treats a commit at or below the checkpoint as a replay: no document changes', async () => {
        await store.commit('p', [put('items', { id: 'a', v: 'new' })], 10n);
        await store.commit('p', [put('items', { id: 'a', v: 'old' }), put('items', { id: 'b', v: 'old' })], 5n);
        await store.commit('p', [put('items', { id: 'a', v: 'same' })], 10n);
        expect(await store.get('items', 'a')).toEqual({ id: 'a', v: 'new' });
        expect(await store.get('items', 'b')).toBeNull();
        expect(await store.checkpoint('p')).toBe(10n);
      });

      it('never lets an older position overwrite a newer document, whoever commits it', async () => {
        await store.commit('p1', [put('items', { id: 'a', v: 'new' })], 20n);
        // Another projector (its checkpoint is behind) replays an older write of the same document.
        await store.commit('p2', [put('items', { id: 'a', v: 'old' }), put('items', { id: 'c', v: 'p2' })], 15n);
        expect(await store.get('items', 'a')).toEqual({ id: 'a', v: 'new' });
        expect(await store.get('items', 'c')).toEqual({ id: 'c', v: 'p2' });
        expect(await store.checkpoint('p1')).toBe(20n);
        expect(await store.checkpoint('p2')).toBe(15n);
        // A newer write still applies.
        await store.commit('p2', [put('items', { id: 'a', v: 'newer' })], 30n);
        expect(await store.get('items', 'a')).toEqual({ id: 'a', v: 'newer' });
      });

      if (options.deletesGuarded) {
        // Where a crash between the documents and the checkpoint can replay a batch, the per-document guard
        // (with tombstones for deletes) must make that harmless.
        it('never lets an older position resurrect a deleted document', async () => {
          await store.commit('p1', [put('items', { id: 'b', v: 1 })], 19n);
          await store.commit('p1', [del('items', 'b'), del('items', 'never')], 21n);
          await store.commit('p2', [put('items', { id: 'b', v: 'old' }), put('items', { id: 'never', v: 'old' })], 15n);
          expect(await store.get('items', 'b')).toBeNull();
          expect(await store.get('items', 'never')).toBeNull();
          expect(await store.count('items')).toBe(0);
          expect((await store.find('items')).items).toEqual([]);
          await store.commit('p2', [put('items', { id: 'b', v: 'again' })], 22n);
          expect(await store.get('items', 'b')).toEqual({ id: 'b', v: 'again' });
        });
      }

      if (options.atomicCommit) {
        it('writes documents and checkpoint atomically: a failing commit leaves neither', async (ctx) => {
          if (typeof options.atomicCommit === 'function' && !options.atomicCommit(store)) ctx.skip();
          await store.commit('p', [put('items', { id: 'keep', v: 1 })], 1n);
          // The last op fails (an undeclared collection) after the others may have been written.
          await expect(
            store.commit('p', [put('items', { id: 'keep', v: 2 }), put('items', { id: 'new' }), put('undeclared', { id: 'x' })], 2n),
          ).rejects.toThrow(/not declared/);
          const poison = { id: 'bad', big: 1n } as unknown as Doc; // not JSON
          await expect(store.commit('p', [put('items', { id: 'keep', v: 3 }), put('other', poison)], 2n)).rejects.toThrow();
          expect(await store.get('items', 'keep')).toEqual({ id: 'keep', v: 1 });
          expect(await store.get('items', 'new')).toBeNull();
          expect(await store.checkpoint('p')).toBe(1n);
        });
      }
    });

    describe('reactor checkpoints', () => {
      it('only move forward and survive a rebuild of the read models', async () => {
        expect(await store.reactorCheckpoint('replies')).toBeNull();
        await store.saveReactorCheckpoint('replies', 41n);
        await store.saveReactorCheckpoint('replies', 7n);
        expect(await store.reactorCheckpoint('replies')).toBe(41n);
        expect(await store.reactorCheckpoint('other')).toBeNull();
        const rebuild = await store.startRebuild();
        await rebuild.store.ensureCollections([items, other]);
        await rebuild.switchOver();
        expect(await store.reactorCheckpoint('replies')).toBe(41n);
        expect(await (await fx.openAnother()).reactorCheckpoint('replies')).toBe(41n);
      });
    });

    describe('full-text search', () => {
      const searchIds = async (s: ReadStore, scope: string, text: string, limit?: number) =>
        (await s.search<Note>('notes', { scope, text, limit })).items.map((h) => h.doc.id);

      it('finds the documents of one scope holding every word, case and accents aside, highest order first', async () => {
        await store.commit(
          'p',
          [
            note(1, 'acme', 'Do you ship to Norway?'),
            note(2, 'acme', 'We SHIP to norway in 3 days', 'Shipping'),
            note(3, 'acme', 'Norway only by boat'),
            note(4, 'globex', 'Do you ship to Norway? Same words, other company'),
            note(5, 'acme', 'Café crème for the ship crew'),
          ].map((d) => put('notes', d)),
          1n,
        );
        expect(await searchIds(store, 'acme', 'ship norway')).toEqual(['note-2', 'note-1']);
        expect(await searchIds(store, 'acme', 'NORWAY')).toEqual(['note-3', 'note-2', 'note-1']);
        expect(await searchIds(store, 'globex', 'ship norway')).toEqual(['note-4']);
        expect(await searchIds(store, 'initech', 'ship norway')).toEqual([]);
        expect(await searchIds(store, 'acme', 'creme CAFE')).toEqual(['note-5']);
        expect(await searchIds(store, 'acme', 'ship nowhere')).toEqual([]);
        // Words are found in any indexed field; the hits say where, as offsets into the field's text.
        const [hit] = (await store.search<Note>('notes', { scope: 'acme', text: 'ship', limit: 1 })).items;
        expect(hit!.doc).toEqual(note(5, 'acme', 'Café crème for the ship crew'));
        expect(hit!.matches).toEqual({ text: [{ start: 19, end: 23 }], title: [] });
        const [two] = (await store.search<Note>('notes', { scope: 'acme', text: 'norway 3' })).items.filter((h) => h.doc.id === 'note-2');
        expect(two!.matches.text!.map((r) => two!.doc.text.slice(r.start, r.end))).toEqual(['norway', '3']);
      });

      it(`matches words that begin with a query word only where the engine does (${options.prefixSearch ? 'prefixes' : 'whole words'})`, async () => {
        await store.commit('p', [put('notes', note(1, 'acme', 'Shipping to Norway'))], 1n);
        expect(await searchIds(store, 'acme', 'shipping')).toEqual(['note-1']);
        expect(await searchIds(store, 'acme', 'ship')).toEqual(options.prefixSearch ? ['note-1'] : []);
      });

      it('finds the words the port extracts, whatever an engine would glue to them: emoji, underscore, currency sign (issue 21, defect 14)', async () => {
        await store.commit(
          'p',
          [
            note(1, 'acme', 'thanks👍 for the quick reply'),
            note(2, 'acme', 'the order_id field is empty'),
            note(3, 'acme', 'it costs 100€ per seat'),
            note(4, 'acme', 'e-mail me at ops@example.com, ref #A-7'),
          ].map((d) => put('notes', d)),
          1n,
        );
        expect(await searchIds(store, 'acme', 'thanks')).toEqual(['note-1']);
        expect(await searchIds(store, 'acme', 'order')).toEqual(['note-2']);
        expect(await searchIds(store, 'acme', 'id')).toEqual(['note-2']);
        expect(await searchIds(store, 'acme', '100')).toEqual(['note-3']);
        expect(await searchIds(store, 'acme', 'mail example')).toEqual(['note-4']);
        expect(await searchIds(store, 'acme', 'A 7')).toEqual(['note-4']);
        // The query is split the same way: "order_id" is the two words order and id.
        expect(await searchIds(store, 'acme', 'order_id')).toEqual(['note-2']);
        expect(await searchIds(store, 'acme', '👍')).toEqual([]);
        const [hit] = (await store.search<Note>('notes', { scope: 'acme', text: 'thanks' })).items;
        expect(hit!.matches.text).toEqual([{ start: 0, end: 6 }]);
      });

      it('takes any user text without failing: query syntax characters are not words', async () => {
        await store.commit('p', [put('notes', note(1, 'acme', 'NEAR the "door": (a) b* c:d AND OR NOT'))], 1n);
        for (const text of ['"', '""', '*', 'a*', '(', '(((', ')', 'NEAR(', 'NEAR(a b, 2)', 'title:door', ':', '^door', 'AND', 'OR NOT', '-', '{text}: door', "'", '\\', '\u0000', '']) {
          const page = await store.search('notes', { scope: 'acme', text });
          expect(Array.isArray(page.items), text).toBe(true);
        }
        expect(await searchIds(store, 'acme', '"door"')).toEqual(['note-1']);
        expect(await searchIds(store, 'acme', 'c:d')).toEqual(['note-1']);
        expect(await searchIds(store, 'acme', 'NEAR(door)')).toEqual(['note-1']);
        expect(await searchIds(store, 'acme', '*')).toEqual([]);
      });

      it('pages by cursor through every hit exactly once, and refuses a cursor of another scope or query', async () => {
        await store.commit('p', Array.from({ length: 7 }, (_, i) => put('notes', note(i + 1, i === 3 ? 'globex' : 'acme', `order ${i + 1} refund`))), 1n);
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const page: Page<SearchHit<Note>> = await store.search<Note>('notes', { scope: 'acme', text: 'refund', limit: 2, cursor });
          seen.push(...page.items.map((h) => h.doc.id));
          cursor = page.nextCursor;
          if (++pages > 10) throw new Error('pagination does not end');
        } while (cursor);
        expect(seen).toEqual(['note-7', 'note-6', 'note-5', 'note-3', 'note-2', 'note-1']);
        const first = await store.search('notes', { scope: 'acme', text: 'refund', limit: 2 });
        await expect(store.search('notes', { scope: 'globex', text: 'refund', cursor: first.nextCursor })).rejects.toBeInstanceOf(InvalidCursorError);
        await expect(store.search('notes', { scope: 'acme', text: 'order', cursor: first.nextCursor })).rejects.toBeInstanceOf(InvalidCursorError);
        await expect(store.search('notes', { scope: 'acme', text: 'refund', cursor: 'garbage' })).rejects.toBeInstanceOf(InvalidCursorError);
      });

      it('follows updates, deletes and replays of the documents', async () => {
        await store.commit('p', [put('notes', note(1, 'acme', 'first words')), put('notes', note(2, 'acme', 'keep me'))], 10n);
        await store.commit('p', [put('notes', { ...note(1, 'acme', 'second text'), seq: 3 })], 11n);
        expect(await searchIds(store, 'acme', 'first')).toEqual([]);
        expect(await searchIds(store, 'acme', 'second')).toEqual(['note-1']);
        // An older write (another projector replaying) changes neither the document nor what is found.
        await store.commit('q', [put('notes', note(1, 'acme', 'stale words'))], 5n);
        expect(await searchIds(store, 'acme', 'stale')).toEqual([]);
        expect(await searchIds(store, 'acme', 'second')).toEqual(['note-1']);
        await store.commit('p', [del('notes', 'note-1')], 12n);
        expect(await searchIds(store, 'acme', 'second')).toEqual([]);
        expect(await searchIds(store, 'acme', 'keep')).toEqual(['note-2']);
      });

      it('refuses a document of a full-text collection without a usable order value', async () => {
        await expect(store.commit('p', [put('notes', { id: 'x', tenant: 'acme', text: 'hi' })], 1n)).rejects.toThrow(/seq/);
        await expect(store.commit('p', [put('notes', { id: 'x', tenant: 'acme', text: 'hi', seq: 1.5 })], 1n)).rejects.toThrow(/seq/);
      });

      // The same texts and queries find the same documents on every adapter: what the port's tokenizer
      // (readStore/fullText.ts) says each text's words are, matched whole or, where the engine does, as prefixes.
      it('finds, for the same texts and queries, exactly the documents the port\'s own words say (search parity)', async () => {
        const texts = [
          'Do you ship to Norway? Shipping costs 100€',
          'Crème brûlée at the CAFÉ, naïve façade',
          'order_id=A-7 e-mail ops@example.com #refund',
          'İstanbul straße ÆSIR Øre ﬁne',
          '東京 から 大阪 へ 新幹線',
          'Привет мир, ПРИВЕТСТВИЕ',
          'thanks👍👍 for the reply!!! 3.14 v2.0.1',
          'Ship ship SHIP shipment shipped',
          'مرحبا بالعالم',
          'x'.repeat(80) + ' tail',
          '',
        ];
        const queries = [
          'ship', 'SHIPPING', 'norway ship', 'creme', 'brulee cafe', 'naive', 'facade', 'order id', 'order_id', 'a 7',
          'example com', 'refund', 'istanbul', 'strasse', 'straße', 'æsir', 'ore', 'fine', '東京', '大阪 新幹線', 'привет',
          'ПРИВЕТСТВИЕ мир', 'thanks', '👍', '3 14', 'v2', '0 1', 'shipment ship', 'مرحبا', 'x'.repeat(64), 'x'.repeat(70),
          'tail', 'sh', 'c', 'e', 'nowhere', 'ship nowhere', '"', '',
        ];
        const docs = texts.map((text, i) => note(i + 1, 'acme', text, i % 2 ? `Title ${i}` : undefined));
        await store.commit('p', [...docs, note(100, 'globex', texts.join(' '))].map((d) => put('notes', d)), 1n);
        const expected = (query: string) => {
          const terms = queryTerms(query);
          if (terms.length === 0) return [];
          return docs
            .filter((d) => {
              const words = [...wordsOf(d.text), ...wordsOf(d.title ?? '')].map((w) => w.word);
              return terms.every((t) => words.some((w) => (options.prefixSearch ? w.startsWith(t) : w === t)));
            })
            .sort((a, b) => b.seq - a.seq)
            .map((d) => d.id);
        };
        for (const query of queries) {
          expect(await searchIds(store, 'acme', query, 50), query).toEqual(expected(query));
        }
        // The reference is not vacuous: a few of its answers spelled out.
        expect(expected('creme')).toEqual(['note-2']);
        expect(expected('strasse')).toEqual([]); // ß is its own letter: folding removes accents only
        expect(expected('大阪 新幹線')).toEqual(['note-5']);
        expect(expected('ПРИВЕТСТВИЕ мир')).toEqual(['note-6']);
        expect(expected('ship')).toEqual(options.prefixSearch ? ['note-8', 'note-1'] : ['note-8', 'note-1']);
        expect(expected('sh')).toEqual(options.prefixSearch ? ['note-8', 'note-1'] : []);
      });

      it('rebuilds the index with its generation: the new one starts empty, the old one is dropped', async () => {
        await store.commit('live', [put('notes', note(1, 'acme', 'old words')), put('notes', note(2, 'acme', 'shared words'))], 10n);
        const rebuild = await store.startRebuild();
        await rebuild.store.ensureCollections([items, other, notes]);
        expect(await searchIds(rebuild.store, 'acme', 'words')).toEqual([]);
        await rebuild.store.commit('live', [put('notes', note(2, 'acme', 'shared words')), put('notes', note(3, 'acme', 'new words'))], 12n);
        expect(await searchIds(store, 'acme', 'words')).toEqual(['note-2', 'note-1']);
        await rebuild.switchOver();
        for (const s of [store, await fx.openAnother()]) {
          expect(await searchIds(s, 'acme', 'words')).toEqual(['note-3', 'note-2']);
          expect(await searchIds(s, 'acme', 'old')).toEqual([]);
        }
      });
    });

    describe('generations', () => {
      it('rebuilds into a fresh generation and switches every instance over', async () => {
        const before = await fx.openAnother(); // opened before the switch: must follow it
        await store.commit('live', [put('items', { id: 'old-only', group: 'a' }), put('items', { id: 'both', v: 'old' })], 10n);
        const g1 = await store.activeGeneration();

        const rebuild = await store.startRebuild();
        expect(rebuild.generation).toBeGreaterThan(g1);
        const next = rebuild.store;
        await next.ensureCollections([items, other]);
        expect(await next.get('items', 'both')).toBeNull();
        expect(await next.count('items')).toBe(0);
        expect((await next.find('items')).items).toEqual([]);
        expect(await next.checkpoint('live')).toBeNull();
        expect(await next.activeGeneration()).toBe(rebuild.generation);

        await next.commit('live', [put('items', { id: 'both', v: 'new' }), put('items', { id: 'new-only', group: 'b' })], 12n);
        // Until the switch, everyone reads the old generation.
        expect(await store.activeGeneration()).toBe(g1);
        expect(await store.get('items', 'both')).toEqual({ id: 'both', v: 'old' });
        expect(await store.get('items', 'new-only')).toBeNull();
        expect(await before.get('items', 'old-only')).toEqual({ id: 'old-only', group: 'a' });
        expect(await store.checkpoint('live')).toBe(10n);

        const oldView = store.atGeneration(g1);
        await rebuild.switchOver();

        for (const s of [store, before, await fx.openAnother()]) {
          expect(await s.activeGeneration()).toBe(rebuild.generation);
          expect(await s.get('items', 'both')).toEqual({ id: 'both', v: 'new' });
          expect(await s.get('items', 'old-only')).toBeNull();
          expect(await s.count('items', { group: 'b' })).toBe(1);
          expect(await s.checkpoint('live')).toBe(12n);
        }
        // A writer still bound to the old generation is told, rather than writing into a dropped generation.
        await expect(oldView.commit('live', [put('items', { id: 'late' })], 13n)).rejects.toBeInstanceOf(StaleGenerationError);
        await expect(oldView.ensureCollections([items])).rejects.toBeInstanceOf(StaleGenerationError);
        await expect(rebuild.switchOver()).rejects.toThrow();
        // The rebuilt generation is the live one now: plain commits go there.
        await store.commit('live', [put('items', { id: 'after', v: 1 })], 13n);
        expect(await before.get('items', 'after')).toEqual({ id: 'after', v: 1 });
      });

      it('aborts a rebuild without touching the active generation', async () => {
        await store.commit('live', [put('items', { id: 'a', v: 1 })], 1n);
        const g1 = await store.activeGeneration();
        const rebuild = await store.startRebuild();
        await rebuild.store.ensureCollections([items]);
        await rebuild.store.commit('live', [put('items', { id: 'a', v: 2 })], 1n);
        await rebuild.abort();
        expect(await store.activeGeneration()).toBe(g1);
        expect(await store.get('items', 'a')).toEqual({ id: 'a', v: 1 });
        await expect(rebuild.switchOver()).rejects.toThrow();

        const again = await store.startRebuild();
        expect(again.generation).toBeGreaterThan(rebuild.generation);
        await again.store.ensureCollections([items]);
        expect(await again.store.get('items', 'a')).toBeNull();
        await again.switchOver();
        expect(await store.get('items', 'a')).toBeNull();
        expect(await store.checkpoint('live')).toBeNull();
      });

      it('binds a view to a generation', async () => {
        const g1 = await store.activeGeneration();
        const view = store.atGeneration(g1);
        await view.commit('p', [put('items', { id: 'v' })], 1n);
        expect(await store.get('items', 'v')).toEqual({ id: 'v' });
        expect(await view.activeGeneration()).toBe(g1);
      });
    });
  });
}
