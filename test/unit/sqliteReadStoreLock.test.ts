import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteReadStore } from '../../src/infrastructure/sqlite/sqliteReadStore.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the SQLite read store while another connection holds the write lock', () => {
  it('given a commit waiting for the lock, then the event loop keeps running and the commit lands once the lock is free', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-lock-'));
    dirs.push(dir);
    const path = join(dir, 'readmodels.sqlite');
    const store = SqliteReadStore.open({ path, busyTimeoutMs: 5000 });
    await store.ensureCollections([{ name: 'items', indexes: [] }]);
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    const committed = store.commit('p', [{ kind: 'put', collection: 'items', doc: { id: 'a', v: 1 } }], 1n);
    let settled = false;
    void committed.then(() => (settled = true));
    // A timer fires while the lock is held: the commit waits on a timer, not in SQLite's busy handler.
    const ticks = await new Promise<number>((resolve) => {
      let n = 0;
      const t = setInterval(() => {
        n += 1;
        if (n === 5) {
          clearInterval(t);
          resolve(n);
        }
      }, 5);
    });
    expect(ticks).toBe(5);
    expect(settled).toBe(false);
    other.exec('COMMIT');
    await committed;
    expect(await store.get('items', 'a')).toEqual({ id: 'a', v: 1 });
    other.close();
    await store.close();
  });

  it('given the lock held past the busy timeout, then the commit fails as busy and writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-lock-'));
    dirs.push(dir);
    const path = join(dir, 'readmodels.sqlite');
    const store = SqliteReadStore.open({ path, busyTimeoutMs: 100 });
    await store.ensureCollections([{ name: 'items', indexes: [] }]);
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    await expect(store.commit('p', [{ kind: 'put', collection: 'items', doc: { id: 'a', v: 1 } }], 1n)).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    other.exec('COMMIT');
    expect(await store.get('items', 'a')).toBeNull();
    other.close();
    await store.close();
  });
});
