/**
 * The spec's own flows on PostgreSQL: the API suites of sign-up and sign-in, integrations, webhooks through to
 * the reply and its charge, the read models (conversations, the inbox), search and credits, run again here with
 * every test server on a fresh PostgreSQL database of its own (MAS_TEST_STORE=postgres, test/support/testServer.ts)
 * instead of SQLite files. Their own files run them on SQLite.
 */
import { describe } from 'vitest';
import { postgresTarget } from '../support/postgres.js';

const target = await postgresTarget();

const suites = ['auth', 'integrations', 'webhooks', 'credits', 'search', 'inbox', 'customers', 'handoff'] as const;

// Without a reachable server outside CI, postgresTarget() has printed the one skip line; under CI it throws.
const runs = target.mode === 'run';
if (runs) process.env.MAS_TEST_STORE = 'postgres';

describe.skipIf(!runs)('the API suites on PostgreSQL', () => {
  for (const suite of suites) {
    describe(`on PostgreSQL: ${suite}`, async () => {
      await import(`./${suite}.test.ts`);
    });
  }
});
