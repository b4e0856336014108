import { afterAll, beforeAll, describe } from 'vitest';
import { openPgPersonalDataKeys } from '../../src/infrastructure/personalKeys/pgPersonalDataKeys.js';
import type { PersonalDataKeys } from '../../src/ports/personalDataKeys.js';
import { createTestDatabase, postgresTarget, type TestDatabase } from '../support/postgres.js';
import { personalDataKeysContract } from './personalDataKeysContract.js';

const target = await postgresTarget();

describe.skipIf(target.mode === 'skip')('personal data keys on PostgreSQL', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('keys');
  });
  afterAll(async () => {
    await db?.drop();
  });
  personalDataKeysContract('postgres', async () => {
    const opened: PersonalDataKeys[] = [];
    const open = async () => {
      const k = await openPgPersonalDataKeys({ connectionString: db.url });
      opened.push(k);
      return k;
    };
    return {
      keys: await open(),
      another: open,
      cleanup: async () => {
        for (const k of opened) await k.close();
      },
    };
  });
});
