import pg from 'pg';
import type { Lease, Leases } from '../../ports/leases.js';
import type { Logger } from '../../ports/logger.js';

/**
 * Leases as PostgreSQL session-level advisory locks, taken with `pg_try_advisory_lock` on one dedicated connection
 * (never a pooled one: a session lock belongs to the connection, and a pool would hand it to other work).
 *
 * Why this passes on when a holder dies: the server releases every session lock the moment the session ends.
 * A holder killed with SIGKILL has its socket closed by the operating system, the server sees the connection end
 * and drops its locks at once; the next instance that asks (standbys ask every few seconds) takes the lease. A
 * holder cut off without a close (a network partition, a frozen host) is ended by the server once the session has
 * been idle for `idle_session_timeout`, which this connection sets: the holder pings every `checkMs`, so only a
 * holder that can no longer reach the server goes idle that long.
 *
 * The holder's side: the ping (and the connection's own error and end events) tell it its connection is gone,
 * and every lease taken on it is `lost` at once, so its duties stop; it asks again on a new connection.
 */
export interface PgLeasesOptions {
  connectionString: string;
  /** Shown in pg_stat_activity beside the lock (operations.md shows how to see who holds what). */
  applicationName?: string;
  logger?: Logger;
  /** How often a holder confirms its connection (default 2000 ms). */
  checkMs?: number;
}

/** The first key of the two-key advisory lock form: leases never meet other advisory locks (migrations use the one-key form). */
export const LEASE_LOCK_NAMESPACE = 0x6d61_736c; // 'masl'

interface Held {
  client: pg.Client;
  lose(): void;
}

export function openPgLeases(options: PgLeasesOptions): Leases {
  const checkMs = options.checkMs ?? 2000;
  const logger = options.logger;
  // The server ends a session idle this long: a holder that cannot ping any more loses its leases by then.
  const idleSessionMs = Math.max(10_000, checkMs * 5);
  let client: pg.Client | null = null;
  let connecting: Promise<pg.Client> | null = null;
  let closed = false;
  let pinging = false;
  const held = new Map<string, Held>();

  const drop = (c: pg.Client, why: string, err?: unknown) => {
    if (client !== c) return;
    client = null;
    if (held.size > 0) {
      logger?.warn({ leases: [...held.keys()], reason: why, ...(err ? { err: { message: (err as Error).message, code: (err as { code?: string }).code } } : {}) }, 'the lease connection to PostgreSQL was lost: its duties stop until a lease is taken again');
    }
    for (const h of held.values()) h.lose();
    held.clear();
    c.end().catch(() => undefined);
  };

  const connect = async (): Promise<pg.Client> => {
    const c = new pg.Client({
      connectionString: options.connectionString,
      application_name: options.applicationName ?? 'messaging-agent-service lease',
      connectionTimeoutMillis: 10_000,
      // A query that gets no answer (the server unreachable) fails instead of hanging the holder's check.
      query_timeout: Math.max(5000, checkMs * 2),
      keepAlive: true,
      keepAliveInitialDelayMillis: 5000,
    });
    c.on('error', (err) => drop(c, 'connection error', err));
    c.on('end', () => drop(c, 'connection ended'));
    await c.connect();
    try {
      await c.query(`SET idle_session_timeout = ${idleSessionMs}`);
    } catch (err) {
      // Before PostgreSQL 14: a partitioned holder's session then lasts until TCP keepalive ends it.
      logger?.warn({ err: { message: (err as Error).message } }, 'idle_session_timeout is not supported by this PostgreSQL: a cut-off lease holder is noticed by TCP keepalive only');
    }
    return c;
  };

  const connection = async (): Promise<pg.Client> => {
    if (client) return client;
    connecting ??= connect().then(
      (c) => {
        connecting = null;
        if (closed) {
          void c.end().catch(() => undefined);
          throw new Error('leases closed');
        }
        client = c;
        return c;
      },
      (err: unknown) => {
        connecting = null;
        throw err;
      },
    );
    return connecting;
  };

  const timer = setInterval(() => {
    const c = client;
    if (!c || held.size === 0 || pinging) return;
    pinging = true;
    c.query('SELECT 1')
      .catch((err: unknown) => drop(c, 'ping failed', err))
      .finally(() => {
        pinging = false;
      });
  }, checkMs);
  timer.unref();

  return {
    async tryAcquire(name) {
      if (closed) throw new Error('leases closed');
      // Advisory locks are re-entrant within a session: a second taker in this process must not count as a holder.
      if (held.has(name)) return null;
      const c = await connection();
      const { rows } = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [LEASE_LOCK_NAMESPACE, name]);
      if (!rows[0]?.ok) return null;
      if (client !== c || held.has(name)) {
        // The connection died while it answered, or another caller here won the same name meanwhile.
        if (client === c) await c.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LEASE_LOCK_NAMESPACE, name]).catch(() => undefined);
        return null;
      }
      let lose!: () => void;
      const lost = new Promise<void>((resolve) => (lose = resolve));
      const entry: Held = { client: c, lose };
      held.set(name, entry);
      const lease: Lease = {
        name,
        lost,
        async release() {
          if (held.get(name) !== entry) return;
          held.delete(name);
          lose();
          if (client === c) await c.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LEASE_LOCK_NAMESPACE, name]).catch(() => undefined);
        },
      };
      return lease;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      for (const h of held.values()) h.lose();
      held.clear();
      const c = client;
      client = null;
      // Ending the session releases every lock it holds.
      await c?.end().catch(() => undefined);
    },
  };
}
