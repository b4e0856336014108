import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteReadStore } from '../../../src/infrastructure/sqlite/sqliteReadStore.js';
import { listIndexes } from '../../../src/projections/listIndexes.js';
import { actionCallsProjection } from '../../../src/projections/actionCalls/actionCallsProjection.js';
import { listActionCalls } from '../../../src/projections/actionCalls/queries.js';
import { conversationsProjection } from '../../../src/projections/conversations/conversationsProjection.js';
import { INBOX_VIEWS, listConversations } from '../../../src/projections/conversations/queries.js';
import { creditsProjection } from '../../../src/projections/credits/creditsProjection.js';
import { creditsWithLedger } from '../../../src/projections/credits/queries.js';

const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const USER = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const subsets = <T>(items: T[]): T[][] => items.reduce<T[][]>((sets, item) => [...sets, ...sets.map((s) => [...s, item])], [[]]);

let dir: string;
let store: SqliteReadStore;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'list-indexes-'));
  store = SqliteReadStore.open({ path: join(dir, 'readmodels.sqlite') });
  await store.ensureCollections([...conversationsProjection.collections, ...actionCallsProjection.collections, ...creditsProjection.collections]);
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('list indexes: every combination of a list’s filters is read off one compound index', () => {
  it('gives one index per subset of the optional filters, equality fields first and the sort fields last', () => {
    expect(listIndexes(['companyId'], ['a', 'b'], ['at'])).toEqual([
      ['companyId', 'at'],
      ['companyId', 'a', 'at'],
      ['companyId', 'b', 'at'],
      ['companyId', 'a', 'b', 'at'],
    ]);
  });

  // The read store refuses a query that no declared index serves (infrastructure/readStore/find.ts), so a
  // combination without its index fails here.
  it('the conversation list: each inbox view (or none) with any of state, integration and stage', async () => {
    const filters = subsets(['state', 'integrationId', 'stageId'] as const);
    for (const view of [undefined, ...INBOX_VIEWS]) {
      for (const set of filters) {
        const filter = {
          view,
          ...(set.includes('state') ? { state: 'active' as const } : {}),
          ...(set.includes('integrationId') ? { integrationId: 7 } : {}),
          ...(set.includes('stageId') ? { stageId: 'dddddddd-dddd-4ddd-8ddd-dddddddddddd' } : {}),
        };
        await expect(listConversations(store, { companyId: CO, userId: USER }, filter, { limit: 10 }), JSON.stringify(filter)).resolves.toBeDefined();
      }
    }
  });

  it('the action log: by action, status and conversation, alone or together', async () => {
    for (const set of subsets(['actionId', 'status', 'conversationId'] as const)) {
      const filter = Object.fromEntries(set.map((f) => [f, f === 'status' ? 'succeeded' : `${f}-1`]));
      await expect(listActionCalls(store, CO, filter, { limit: 10 }), set.join(',')).resolves.toBeDefined();
    }
  });

  it('the credit ledger: a company’s entries by time', async () => {
    await expect(creditsWithLedger(store, CO, { limit: 10 })).resolves.toBeDefined();
  });
});
