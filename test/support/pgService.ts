/**
 * The compiled service (dist/server, what `npm start` runs) on PostgreSQL: spawning instances of it on one
 * database, seeing which instance holds which lease, and reading back everything it stored.
 */
import pg from 'pg';
import { eventCatalog } from '../../src/domain/catalog.js';
import { LEASE_LOCK_NAMESPACE } from '../../src/infrastructure/postgres/pgLeases.js';
import { openPgEventStore } from '../../src/infrastructure/postgres/pgEventStore.js';
import { encryptingEventStore } from '../../src/infrastructure/personalKeys/encryptingEventStore.js';
import { openPgPersonalDataKeys } from '../../src/infrastructure/personalKeys/pgPersonalDataKeys.js';
import { validatingEventStore } from '../../src/infrastructure/validatingEventStore.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import { healthyAfter, startCompiled, type CompiledServer } from './compiledServer.js';
import { freePort } from './serviceProcess.js';

export const LEASE_NAMES = ['projections', 'reactors', 'sweeps'] as const;

/** Keys every instance must share (tokens signed by one API are checked by another; secrets sealed by one are opened by the processors). */
export const SHARED_KEYS = { JWT_SECRET: 'multi-instance-jwt-secret-0123456789abcdef', MASTER_KEY: '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff' };

export interface PgInstance {
  role: 'all' | 'api' | 'processor';
  base: string;
  proc: CompiledServer;
  pid: number;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** Starts one compiled instance and resolves once /healthz answers. */
export async function startPgInstance(role: PgInstance['role'], env: Record<string, string>): Promise<PgInstance> {
  const port = await freePort();
  const proc = startCompiled({ HOST: '127.0.0.1', PORT: String(port), ROLE: role, PROCESSOR_THREAD: 'true', LOG_LEVEL: 'warn', ...SHARED_KEYS, ...env });
  const base = `http://127.0.0.1:${port}`;
  try {
    await healthyAfter(proc, base, 90_000);
  } catch (err) {
    proc.child.kill('SIGKILL');
    throw err;
  }
  return {
    role,
    base,
    proc,
    pid: proc.child.pid!,
    async kill(signal) {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
      proc.child.kill(signal);
      await proc.exited;
    },
  };
}

/** Which process (its pid, from the lease connection's application_name) holds each lease now. */
export async function leaseHolders(admin: pg.Client, database: string): Promise<Partial<Record<(typeof LEASE_NAMES)[number], number>>> {
  const { rows } = await admin.query<{ name: (typeof LEASE_NAMES)[number]; app: string }>(
    `SELECT n.name, a.application_name AS app
       FROM unnest($1::text[]) AS n(name)
       JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
                      AND l.classid = $2::bigint::oid AND l.objid = (hashtext(n.name)::bigint & 4294967295)::oid
       JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE a.datname = $3`,
    [LEASE_NAMES, LEASE_LOCK_NAMESPACE, database],
  );
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.app.split(' ')[2])]));
}

/** The database's events, read as the service reads them (decrypted with the database's keys, validated against the catalog). */
export async function openStoredEvents(url: string): Promise<EventStore> {
  const keys = await openPgPersonalDataKeys({ connectionString: url, applicationName: 'test reader keys' });
  const store = validatingEventStore(encryptingEventStore(await openPgEventStore(url, { applicationName: 'test reader' }), keys), eventCatalog);
  return {
    ...store,
    close: async () => {
      await store.close();
      await keys.close();
    },
  };
}
