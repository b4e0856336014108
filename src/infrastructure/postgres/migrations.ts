import type pg from 'pg';
import { inTransaction } from './pool.js';

/**
 * Versioned schema migrations, run at start by every instance. Each component (event store, read store, leases)
 * owns an ordered list of steps; `schema_migrations` records which ran. Several instances starting at once take
 * a transaction-level advisory lock first, so exactly one applies a step and the others find it applied: the lock
 * is released with the transaction, also when the holder dies mid-migration (its connection closes).
 */
export interface Migration {
  /** 1, 2, 3 … in order; a step, once released, is never edited: a change is a new step. */
  version: number;
  description: string;
  sql: string;
}

/** One key for every component: migrations of different components also wait for each other (DDL is rare). */
const MIGRATION_LOCK_KEY = 0x6d61_735f; // 'mas_'

export async function migrate(pool: pg.Pool, component: string, steps: readonly Migration[]): Promise<number[]> {
  for (let i = 0; i < steps.length; i++) {
    if (steps[i]!.version !== i + 1) throw new Error(`${component} migrations must be numbered 1, 2, 3 …: step ${i} is ${steps[i]!.version}`);
  }
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      component text NOT NULL,
      version integer NOT NULL,
      description text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (component, version))`);
    const done = await client.query<{ version: number }>('SELECT version FROM schema_migrations WHERE component = $1', [component]);
    const applied = new Set(done.rows.map((r) => r.version));
    const newest = Math.max(0, ...applied);
    if (newest > steps.length) {
      throw new Error(`the database's ${component} schema is at version ${newest}, newer than this build knows (${steps.length}): run the newer build, or restore a backup`);
    }
    const ran: number[] = [];
    for (const step of steps) {
      if (applied.has(step.version)) continue;
      await client.query(step.sql);
      await client.query('INSERT INTO schema_migrations (component, version, description) VALUES ($1, $2, $3)', [component, step.version, step.description]);
      ran.push(step.version);
    }
    return ran;
  });
}
