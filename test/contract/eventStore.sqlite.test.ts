import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/ports/eventStore.js';
import { WrongExpectedRevisionError } from '../../src/ports/errors.js';
import { SqliteEventStore } from '../../src/infrastructure/sqlite/sqliteEventStore.js';
import { eventStoreContract } from './eventStoreContract.js';

const dir = mkdtempSync(join(tmpdir(), 'sqlite-event-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const tempFile = () => join(dir, `${randomUUID()}.sqlite`);

eventStoreContract('sqlite (file)', async () => {
  const store = new SqliteEventStore(tempFile(), { pollMs: 50 });
  return { store, cleanup: () => store.close() };
});

eventStoreContract('sqlite (:memory:)', async () => {
  const store = new SqliteEventStore(':memory:');
  return { store, cleanup: () => store.close() };
});

const ev = (type = 'SqliteTested') => ({ id: randomUUID(), type, data: { at: Date.now() } });

describe('SqliteEventStore on one file', () => {
  it('uses WAL and keeps the file consistent for a second connection', async () => {
    const file = tempFile();
    const store = new SqliteEventStore(file);
    await store.append('s-1', [ev(), ev()], 'no_stream');
    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.prepare('SELECT count(*) FROM events').pluck().get()).toBe(2);
    } finally {
      raw.close();
      await store.close();
    }
  });

  it('a second instance on the same file sees the first one\'s appends through its subscription', async () => {
    const file = tempFile();
    const writer = new SqliteEventStore(file);
    const reader = new SqliteEventStore(file, { pollMs: 50 });
    const got: RecordedEvent[] = [];
    const sub = reader.subscribe({}, async (events) => {
      got.push(...events);
    });
    try {
      const a = ev();
      const b = ev();
      await writer.append('shared-1', [a], 'no_stream');
      await writer.append('shared-2', [b], 'no_stream');
      await waitFor(() => got.length >= 2);
      expect(got.map((e) => e.id)).toEqual([a.id, b.id]);
      // Both instances enforce the same expected revisions against the same file.
      await expect(reader.append('shared-1', [ev()], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      const c = ev();
      await reader.append('shared-1', [c], 0n);
      expect((await writer.readStream('shared-1')).map((e) => e.id)).toEqual([a.id, c.id]);
    } finally {
      await sub.stop();
      await reader.close();
      await writer.close();
    }
  });

  it('never reuses a position, even after the newest rows are deleted and the file reopened', async () => {
    const file = tempFile();
    let store = new SqliteEventStore(file);
    await store.append('p-1', [ev(), ev(), ev()], 'no_stream');
    const head = (await store.headPosition())!;
    expect(head).toBe(3n); // SQLite positions start at 1
    await store.close();

    const raw = new Database(file);
    raw.prepare('DELETE FROM events WHERE position >= 2').run();
    raw.close();

    store = new SqliteEventStore(file);
    try {
      expect(await store.headPosition()).toBe(1n);
      const r = await store.append('p-2', [ev()], 'no_stream');
      expect(r.position).toBeGreaterThan(head);
      expect((await store.readAll()).map((e) => e.position)).toEqual([1n, r.position]);
    } finally {
      await store.close();
    }
  });

  it('keeps committed events across a reopen, with bigint revisions and positions', async () => {
    const file = tempFile();
    let store = new SqliteEventStore(file);
    const r = await store.append('r-1', [ev(), ev()], 'no_stream');
    await store.close();
    store = new SqliteEventStore(file);
    try {
      const events = await store.readStream('r-1');
      expect(events.map((e) => e.revision)).toEqual([0n, 1n]);
      expect(events.at(-1)!.position).toBe(r.position);
      expect((await store.append('r-1', [ev()], 1n)).nextRevision).toBe(2n);
    } finally {
      await store.close();
    }
  });

  it('group commit: many concurrent appends settle individually and all land', async () => {
    const store = new SqliteEventStore(tempFile());
    try {
      const ops = Array.from({ length: 300 }, (_, i) => store.append(`g-${i % 30}`, [ev()], 'any'));
      // Same stream, same expected revision inside one commit: one wins, the rest conflict.
      const racers = Array.from({ length: 5 }, () => store.append('g-race', [ev()], 'no_stream'));
      const results = await Promise.all(ops);
      const raced = await Promise.allSettled(racers);
      expect(new Set(results.map((r) => r.position)).size).toBe(300);
      expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect((await store.readAll()).length).toBe(301);
      for (let i = 0; i < 30; i++) {
        expect((await store.readStream(`g-${i}`)).map((e) => e.revision)).toEqual(Array.from({ length: 10 }, (_, r) => BigInt(r)));
      }
    } finally {
      await store.close();
    }
  });

  it('a malformed append fails alone; the appends committed with it land', async () => {
    const store = new SqliteEventStore(tempFile());
    try {
      const ok1 = store.append('m-1', [ev()], 'no_stream');
      const bad = store.append('m-2', [ev(), { id: randomUUID(), type: null as unknown as string, data: {} }], 'no_stream');
      const conflict = store.append('m-1', [ev()], 'stream_exists'); // queued after ok1 in the same commit
      const ok2 = store.append('m-3', [ev()], 'no_stream');
      await expect(bad).rejects.toThrow(/type/);
      expect((await ok1).nextRevision).toBe(0n);
      expect((await conflict).nextRevision).toBe(1n);
      expect((await ok2).nextRevision).toBe(0n);
      expect(await store.readStream('m-2')).toEqual([]);
      expect(store.commitStats.commits).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('commits appends still queued when closed, and refuses appends after close', async () => {
    const file = tempFile();
    const store = new SqliteEventStore(file);
    const pending = store.append('c-1', [ev()], 'no_stream');
    await store.close();
    expect((await pending).nextRevision).toBe(0n);
    await expect(store.append('c-1', [ev()], 0n)).rejects.toThrow(/closed/);
    const reopened = new SqliteEventStore(file);
    expect(await reopened.readStream('c-1')).toHaveLength(1);
    await reopened.close();
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
