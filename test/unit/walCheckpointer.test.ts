import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/infrastructure/sqlite/sqliteEventStore.js';
import { SAFETY_NET_PAGES } from '../../src/infrastructure/sqlite/walCheckpointer.js';

/** Checkpoints run on their own thread, so no commit on the HTTP thread copies the WAL back inline. */
describe('SQLite WAL checkpoints on a worker thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mas-wal-'));
  let store: SqliteEventStore | undefined;
  afterEach(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('given 3,000 appended events (~1,500 WAL pages), then the worker has copied every frame back and no commit did it inline', async () => {
    const path = join(dir, 'events.sqlite');
    store = new SqliteEventStore(path, { checkpointOnWorker: true });
    const db = (store as unknown as { db: Database.Database }).db;
    expect(Number(db.pragma('wal_autocheckpoint', { simple: true }))).toBe(SAFETY_NET_PAGES);

    for (let batch = 0; batch < 30; batch++) {
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          store!.append(`s-${i}`, [{ id: `e-${batch}-${i}`, type: 'Noted', data: { pad: 'x'.repeat(1500) }, metadata: {} }], 'any'),
        ),
      );
    }
    await expect
      .poll(() => store!.walCheckpoint(), { timeout: 5000, interval: 50 })
      .toSatisfy((last: { log: number; checkpointed: number } | null) => last !== null && last.log > 1000 && last.checkpointed === last.log);

    await store.close();
    store = new SqliteEventStore(path);
    expect((await store.readAll()).length).toBe(3000);
  });

  it('without the option, the connection keeps SQLite’s inline checkpoints', async () => {
    store = new SqliteEventStore(join(dir, 'plain.sqlite'));
    const db = (store as unknown as { db: Database.Database }).db;
    expect(Number(db.pragma('wal_autocheckpoint', { simple: true }))).toBe(1000);
    expect(store.walCheckpoint()).toBeNull();
  });
});
