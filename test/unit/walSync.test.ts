import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSqliteEventStore } from '../../src/infrastructure/sqlite/sqliteEventStore.js';
import { WalSync } from '../../src/infrastructure/sqlite/walSync.js';

/** An fsync that completes only when the test says so. */
function manualSync() {
  const pending: Array<(err: Error | null) => void> = [];
  return {
    sync: (_fd: number, done: (err: Error | null) => void) => void pending.push(done),
    calls: () => pending.length,
    finish: (err: Error | null = null) => pending.shift()!(err),
  };
}

function walFile() {
  const path = join(mkdtempSync(join(tmpdir(), 'walsync-')), 'x.db-wal');
  writeFileSync(path, '');
  return path;
}

describe('WalSync: commits are durable before they are answered, with the fsync off the event loop', () => {
  it('given a commit, then it is settled only when the fsync that began after it completes', () => {
    const fs = manualSync();
    const wal = new WalSync(walFile(), fs.sync);
    const settled: Array<Error | null> = [];
    wal.afterCommit((err) => settled.push(err));
    expect(settled).toEqual([]);
    expect(fs.calls()).toBe(1);
    fs.finish();
    expect(settled).toEqual([null]);
  });

  it('given commits landing while an fsync runs, then they wait for one more fsync that covers them all', () => {
    const fs = manualSync();
    const wal = new WalSync(walFile(), fs.sync);
    const order: string[] = [];
    wal.afterCommit(() => order.push('first'));
    wal.afterCommit(() => order.push('second'));
    wal.afterCommit(() => order.push('third'));
    expect(fs.calls()).toBe(1);
    fs.finish();
    expect(order).toEqual(['first']);
    expect(fs.calls()).toBe(1); // one fsync for the two commits that waited
    fs.finish();
    expect(order).toEqual(['first', 'second', 'third']);
  });

  it('given a failing fsync, then every commit it was to cover gets the error', () => {
    const fs = manualSync();
    const wal = new WalSync(walFile(), fs.sync);
    const settled: Array<string | null> = [];
    wal.afterCommit((err) => settled.push(err?.message ?? null));
    fs.finish(new Error('EIO: i/o error, fsync'));
    expect(settled).toEqual(['EIO: i/o error, fsync']);
  });

  it('given a commit waiting at close, then close settles it before releasing the file', async () => {
    const fs = manualSync();
    const wal = new WalSync(walFile(), fs.sync);
    const settled: string[] = [];
    wal.afterCommit(() => settled.push('running'));
    wal.afterCommit(() => settled.push('waiting'));
    const closed = wal.close();
    fs.finish(); // the running fsync ends; the waiting commit starts another
    fs.finish();
    await closed;
    expect(settled).toEqual(['running', 'waiting']);
  });
});

describe('the SQLite event store syncs its WAL off the event loop', () => {
  it('given a file store, then commits do not fsync inline (synchronous=NORMAL) and an append is readable by another connection once it resolves', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'walsync-store-')), 'events.sqlite');
    const store = openSqliteEventStore(path);
    const db = new Database(path, { readonly: true });
    try {
      expect((store as unknown as { db: Database.Database }).db.pragma('synchronous', { simple: true })).toBe(1n); // NORMAL
      await store.append('s-1', [{ id: crypto.randomUUID(), type: 'Probe', data: { n: 1 } }], 'no_stream');
      expect(db.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 1 });
    } finally {
      db.close();
      await store.close();
    }
  });

  it("given walSync 'in-commit', then SQLite fsyncs inside every commit (synchronous=FULL)", async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'walsync-store-')), 'events.sqlite');
    const store = openSqliteEventStore(path, { walSync: 'in-commit' });
    try {
      expect((store as unknown as { db: Database.Database }).db.pragma('synchronous', { simple: true })).toBe(2n); // FULL
    } finally {
      await store.close();
    }
  });
});
