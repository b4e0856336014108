import pg from 'pg';
import type { Logger } from '../../ports/logger.js';

/**
 * One connection pool per process and purpose. `pg` returns int8 and numeric as strings, which is what the
 * ports want (positions and revisions become bigint, never a JS number that loses precision).
 */
export interface PgPoolOptions {
  connectionString: string;
  /** Connections kept; the HTTP side and the processing side each open their own pool. */
  max?: number;
  /** Shown in pg_stat_activity, so an operator can tell the instances and their roles apart. */
  applicationName?: string;
  logger?: Logger;
  /** Server settings of every connection of the pool (sent at connect, like `-c name=value` on the command line). */
  settings?: Record<string, string | number>;
}

export function openPgPool(options: PgPoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'messaging-agent-service',
    // A connection that cannot be made in 10 s fails the query instead of hanging the request behind it.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    ...(options.settings ? { options: Object.entries(options.settings).map(([name, value]) => `-c ${name}=${value}`).join(' ') } : {}),
  });
  // A client checked out of the pool has no listener of the pool's: when the server ends its connection (a
  // restart, a failover, pg_terminate_backend) it emits 'error', which unheard is an uncaught exception that ends
  // the thread. Its work fails with the same error in the caller, and the pool drops it when it comes back.
  pool.on('connect', (client) => client.on('error', () => undefined));
  // An idle client's error (the server restarted) is emitted on the pool; unhandled it would end the process.
  pool.on('error', (err) => options.logger?.warn({ err: { message: err.message, code: (err as { code?: string }).code } }, 'an idle PostgreSQL connection failed; the pool replaces it'));
  return pool;
}

/** Runs `work` in one transaction on one connection, rolling back on any error. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** A connection string with its password replaced, for log lines and error messages. */
export function redactConnectionString(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparseable connection string)';
  }
}
