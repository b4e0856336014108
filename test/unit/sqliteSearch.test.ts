import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteReadStore } from '../../src/infrastructure/sqlite/sqliteReadStore.js';
import type { CollectionSpec } from '../../src/ports/readStore.js';

/**
 * What the SQLite FTS5 index adds to the ReadStore contract: the query plan stays bounded (FTS5 walks rowids
 * downwards and stops at the limit, documents are fetched by index, never scanned), another scope's words are
 * never read, the index is dropped with its generation, and read stores created before search still open.
 */

const notes: CollectionSpec = { name: 'notes', indexes: ['tenant'], fullText: { fields: ['text'], scope: 'tenant', order: 'seq' } };
const put = (doc: { id: string; tenant: string; seq: number; text: string }) => ({ kind: 'put' as const, collection: 'notes', doc });

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sqlite-search-'));
  path = join(dir, 'readmodels.sqlite');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite full-text search', () => {
  it('plans a search as an FTS5 walk in rowid order with indexed document lookups: no scan, no sort', async () => {
    const store = SqliteReadStore.open({ path });
    await store.ensureCollections([notes]);
    await store.commit('p', [put({ id: 'a', tenant: 't', seq: 1, text: 'refund please' })], 1n);
    const first = await store.search('notes', { scope: 't', text: 'refund', limit: 1 });
    await store.search('notes', { scope: 't', text: 'refund', cursor: first.nextCursor ?? null });
    await store.commit('p', [put({ id: 'b', tenant: 't', seq: 2, text: 'refund again' })], 2n);
    const paged = await store.search('notes', { scope: 't', text: 'refund', limit: 1 });
    await store.search('notes', { scope: 't', text: 'refund', limit: 1, cursor: paged.nextCursor });
    // The statements the store prepared for its searches, explained on a second connection.
    const sqls = [...(store as unknown as { s: { statements: Map<string, unknown> } }).s.statements.keys()].filter((sql) => sql.includes('MATCH'));
    expect(sqls.length).toBe(2); // without and with a cursor
    const db = new Database(path, { readonly: true });
    try {
      for (const sql of sqls) {
        const params = sql.includes('rowid <') ? ['t', '"x"', 5, 2] : ['t', '"x"', 2];
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);
        expect(plan[0], sql).toMatch(/^SCAN rm_notes_g1__fts VIRTUAL TABLE INDEX/);
        expect(plan[1], sql).toMatch(/^SEARCH d USING INDEX rm_notes_g1__ft_order/);
        expect(plan.join('\n'), sql).not.toMatch(/TEMP B-TREE|SCAN d\b/);
      }
    } finally {
      db.close();
    }
    await store.close();
  });

  it('keys every indexed word by its scope: one tenant’s prefix query never reads another tenant’s terms', async () => {
    const store = SqliteReadStore.open({ path });
    await store.ensureCollections([notes]);
    await store.commit('p', [put({ id: 'a', tenant: 'acme', seq: 1, text: 'shipping' }), put({ id: 'b', tenant: 'globex', seq: 2, text: 'ship' })], 1n);
    await store.close();
    const db = new Database(path, { readonly: true });
    try {
      // fts5vocab over the index: every term starts with a scope key, two tenants → two keys.
      db.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'rm_notes_g1__fts', 'row')");
      const terms = (db.prepare('SELECT term FROM temp.vocab ORDER BY term').all() as { term: string }[]).map((r) => r.term);
      expect(terms).toHaveLength(2);
      const keys = new Set(terms.map((t) => t.slice(0, 17)));
      expect(keys.size).toBe(2);
      for (const t of terms) expect(t).toMatch(/^k[0-9a-f]{16}(ship|shipping)$/);
    } finally {
      db.close();
    }
  });

  it('refuses two documents with the same order value, leaving the commit undone', async () => {
    const store = SqliteReadStore.open({ path });
    await store.ensureCollections([notes]);
    await store.commit('p', [put({ id: 'a', tenant: 't', seq: 7, text: 'one' })], 1n);
    await expect(store.commit('p', [put({ id: 'b', tenant: 't', seq: 7, text: 'two' })], 2n)).rejects.toThrow(/share the full-text order value 7/);
    expect(await store.get('notes', 'b')).toBeNull();
    expect((await store.search('notes', { scope: 't', text: 'two' })).items).toEqual([]);
    expect((await store.search('notes', { scope: 't', text: 'one' })).items).toHaveLength(1);
    await store.close();
  });

  it('drops the FTS5 table (and its shadow tables) with its generation', async () => {
    const store = SqliteReadStore.open({ path });
    await store.ensureCollections([notes]);
    await store.commit('p', [put({ id: 'a', tenant: 't', seq: 1, text: 'one' })], 1n);
    const rebuild = await store.startRebuild();
    await rebuild.store.ensureCollections([notes]);
    await rebuild.switchOver();
    const db = new Database(path, { readonly: true });
    try {
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'rm_notes_%'").all() as { name: string }[]).map((r) => r.name);
      expect(tables.filter((t) => t.startsWith('rm_notes_g1'))).toEqual([]);
      expect(tables).toContain('rm_notes_g2__fts');
    } finally {
      db.close();
    }
    await store.close();
  });

  it('opens a read store written before full-text search existed and adds searchable collections to it', async () => {
    const old = new Database(path);
    old.exec(`CREATE TABLE readstore_collections (name TEXT NOT NULL, generation INTEGER NOT NULL, indexes TEXT NOT NULL, PRIMARY KEY (name, generation));
              INSERT INTO readstore_collections VALUES ('legacy', 1, '[]');`);
    old.close();
    const store = SqliteReadStore.open({ path });
    await store.ensureCollections([notes]);
    await store.commit('p', [put({ id: 'a', tenant: 't', seq: 1, text: 'hello' })], 1n);
    // Another connection (an API instance that never declared the collection) finds the spec in the registry.
    const other = SqliteReadStore.open({ path });
    expect((await other.search('notes', { scope: 't', text: 'hello' })).items.map((h) => h.doc.id)).toEqual(['a']);
    await other.close();
    await store.close();
  });
});
