import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreBusyError } from '../../src/ports/errors.js';
import { SqliteEventStore } from '../../src/infrastructure/sqlite/sqliteEventStore.js';

/**
 * Another thread or process holds the SQLite write lock (the processor thread committing, with a slow fsync).
 * An append waits for it without blocking this event loop: the HTTP thread keeps serving meanwhile.
 */
describe('SQLite event store: waiting for a write lock held elsewhere', () => {
  let dir: string;
  let file: string;
  let store: SqliteEventStore;
  let other: Database.Database;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mas-lock-'));
    file = join(dir, 'events.sqlite');
  });
  afterEach(async () => {
    if (other?.inTransaction) other.exec('ROLLBACK');
    other?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Largest gap between ticks of a 5 ms interval while `work` runs: how long the event loop was blocked. */
  async function longestStall<T>(work: () => Promise<T>): Promise<{ value: T | undefined; error: unknown; stallMs: number }> {
    let last = performance.now();
    let stallMs = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      stallMs = Math.max(stallMs, now - last);
      last = now;
    }, 5);
    try {
      return { value: await work(), error: undefined, stallMs };
    } catch (error) {
      return { value: undefined, error, stallMs };
    } finally {
      clearInterval(ticker);
    }
  }

  const event = (n: number) => ({ id: `e-${n}`, type: 'Noted', data: { n }, metadata: {} });

  it('given the lock held for 300 ms elsewhere, when appending, then the append lands after it is released and the loop never stalls over 50 ms', async () => {
    store = new SqliteEventStore(file);
    await store.append('s-1', [event(0)], 'no_stream');
    other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    setTimeout(() => other.exec('COMMIT'), 300);

    const started = performance.now();
    const { value, error, stallMs } = await longestStall(() => store.append('s-1', [event(1)], 0n));

    expect(error).toBeUndefined();
    expect(value?.nextRevision).toBe(1n);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(stallMs).toBeLessThan(50);
    expect((await store.readStream('s-1')).map((e) => e.id)).toEqual(['e-0', 'e-1']);
  });

  it('given the lock held past busyTimeoutMs, when appending, then every append of the batch fails with StoreBusyError, nothing is stored, and the next append succeeds', async () => {
    store = new SqliteEventStore(file, { busyTimeoutMs: 200 });
    other = new Database(file);
    other.exec('BEGIN IMMEDIATE');

    const { error, stallMs } = await longestStall(() =>
      Promise.all([store.append('s-1', [event(1)], 'no_stream'), store.append('s-2', [event(2)], 'no_stream')]),
    );
    expect(error).toBeInstanceOf(StoreBusyError);
    expect(stallMs).toBeLessThan(50);

    other.exec('COMMIT');
    expect(await store.readAll()).toEqual([]);
    const again = await store.append('s-1', [event(1)], 'no_stream');
    expect(again.nextRevision).toBe(0n);
  });

  it('given appends queued behind a held lock, when it is released, then they commit in the order they were issued', async () => {
    store = new SqliteEventStore(file);
    other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const appends = [0, 1, 2, 3].map((n) => store.append('s-order', [event(n)], 'any'));
    await new Promise((r) => setTimeout(r, 50));
    const late = store.append('s-order', [event(4)], 'any');
    other.exec('COMMIT');
    await Promise.all([...appends, late]);
    expect((await store.readStream('s-order')).map((e) => e.id)).toEqual(['e-0', 'e-1', 'e-2', 'e-3', 'e-4']);
  });
});
