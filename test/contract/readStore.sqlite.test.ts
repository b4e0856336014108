import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadStore } from '../../src/infrastructure/sqlite/sqliteReadStore.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import { readStoreContract } from './readStoreContract.js';

readStoreContract(
  'sqlite',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'readstore-'));
    const path = join(dir, 'readmodels.sqlite');
    const opened: ReadStore[] = [];
    const open = () => {
      const store = SqliteReadStore.open({ path });
      opened.push(store);
      return store;
    };
    return {
      store: open(),
      openAnother: async () => open(),
      cleanup: async () => {
        for (const s of opened) await s.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  { atomicCommit: true, deletesGuarded: false, prefixSearch: true },
);
