import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import { MongoClient } from 'mongodb';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { MongoReadStore } from '../../src/infrastructure/mongodb/mongoReadStore.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import { engineTarget } from '../support/engines.js';
import { readStoreContract } from './readStoreContract.js';

// MONGODB_URI → that server (each test uses a database of its own, dropped afterwards); otherwise a throwaway
// mongo:7 container started as a single-node replica set, so both commit paths run: with transactions and
// without (per-document position guards); otherwise one printed skip line.
const target = engineTarget('MongoDB', 'MONGODB_URI');

describe.skipIf(target.mode === 'skip')('MongoDB read store', () => {
  let container: StartedTestContainer | undefined;
  let uri = target.mode === 'url' ? target.url : '';

  beforeAll(async () => {
    if (target.mode !== 'docker') return;
    container = await new GenericContainer('mongo:7')
      .withCommand(['mongod', '--replSet', 'rs0', '--bind_ip_all'])
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
      .withStartupTimeout(120_000)
      .start();
    uri = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`;
    const client = await new MongoClient(uri).connect();
    try {
      await client.db('admin').command({ replSetInitiate: { _id: 'rs0', members: [{ _id: 0, host: 'localhost:27017' }] } });
      for (let i = 0; ; i++) {
        const hello = await client.db('admin').command({ hello: 1 });
        if (hello.isWritablePrimary) break;
        if (i > 100) throw new Error('the MongoDB replica set did not elect a primary');
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await client.close();
    }
  }, 180_000);

  afterAll(async () => {
    await container?.stop();
  });

  for (const transactions of ['never', 'auto'] as const) {
    readStoreContract(
      `mongodb (transactions: ${transactions})`,
      async () => {
        const dbName = `readstore_test_${randomUUID().replaceAll('-', '')}`.slice(0, 60);
        const opened: ReadStore[] = [];
        const open = async () => {
          const store = await MongoReadStore.connect({ uri, dbName, transactions });
          opened.push(store);
          return store;
        };
        const store = await open();
        return {
          store,
          openAnother: open,
          cleanup: async () => {
            const client = await new MongoClient(uri).connect();
            try {
              await client.db(dbName).dropDatabase();
            } finally {
              await client.close();
            }
            for (const s of opened) await s.close();
          },
        };
      },
      // Atomic only when the server runs transactions; a standalone server falls back to the guarded path.
      { atomicCommit: (store) => (store as MongoReadStore).usesTransactions, deletesGuarded: true, prefixSearch: false },
    );
  }
});
