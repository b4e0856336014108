/**
 * Schema migrations when several instances start at once on a fresh database: each step is applied exactly once
 * (a step that ran twice would fail here: its CREATE TABLE has no IF NOT EXISTS), and every instance finds the
 * schema complete when its migrate() resolves.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, type Migration } from '../../src/infrastructure/postgres/migrations.js';
import { openPgPool } from '../../src/infrastructure/postgres/pool.js';
import { createTestDatabase, postgresTarget, type TestDatabase } from '../support/postgres.js';

const target = await postgresTarget();

const steps: Migration[] = [
  { version: 1, description: 'a table', sql: 'CREATE TABLE things (id integer PRIMARY KEY)' },
  { version: 2, description: 'a row the step inserts once', sql: "INSERT INTO things (id) VALUES (1); CREATE TABLE step_runs (step integer NOT NULL); INSERT INTO step_runs VALUES (2)" },
  { version: 3, description: 'a column', sql: 'ALTER TABLE things ADD COLUMN name text; INSERT INTO step_runs VALUES (3)' },
];
const otherSteps: Migration[] = [{ version: 1, description: 'another component', sql: 'CREATE TABLE others (id integer PRIMARY KEY)' }];

describe.skipIf(target.mode === 'skip')('migrations on PostgreSQL, several instances at once', () => {
  let db: TestDatabase;
  const pools: pg.Pool[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('migrations');
  });
  afterAll(async () => {
    for (const p of pools) await p.end();
    await db?.drop();
  });

  it('eight instances migrating two components at once: each step runs once, and each instance sees them all', async () => {
    for (let i = 0; i < 8; i++) pools.push(openPgPool({ connectionString: db.url, max: 2, applicationName: `migrate-${i}` }));
    const ran = await Promise.all(pools.map((pool, i) => (i % 2 === 0 ? migrate(pool, 'things', steps) : Promise.all([migrate(pool, 'others', otherSteps), migrate(pool, 'things', steps)]).then(([, r]) => r))));
    // Exactly one instance applied each step; the others found it applied.
    expect(ran.flat().sort()).toEqual([1, 2, 3]);
    const check = pools[0]!;
    expect((await check.query('SELECT component, version FROM schema_migrations ORDER BY component, version')).rows).toEqual([
      { component: 'others', version: 1 },
      { component: 'things', version: 1 },
      { component: 'things', version: 2 },
      { component: 'things', version: 3 },
    ]);
    expect((await check.query('SELECT step FROM step_runs ORDER BY step')).rows).toEqual([{ step: 2 }, { step: 3 }]);
    expect((await check.query('SELECT count(*)::int AS n FROM things')).rows[0].n).toBe(1);
    // Once applied, a restart applies nothing.
    expect(await migrate(check, 'things', steps)).toEqual([]);
  });

  it('a database migrated by a newer build is refused with a message saying so', async () => {
    await expect(migrate(pools[0]!, 'things', steps.slice(0, 2))).rejects.toThrow(/newer than this build knows/);
  });
});
