/**
 * One ROLE=all instance of the compiled server on PostgreSQL (DATABASE_URL alone: the in-process bus), a webhook
 * flood, and a fault in the middle of it: SIGTERM then a restart, SIGKILL then a restart, and PostgreSQL ending
 * every connection of the service (what a server restart or a failover does to its clients; the shared server
 * itself keeps running). Each on a fresh database. Every acknowledged message must be stored once and answered,
 * none answered twice outside the at-least-once window (a send the platform accepted whose delivery was not
 * recorded when the fault hit), and the store must stay consistent.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { wireCompany } from '../support/faultFixtures.js';
import { openStoredEvents, startPgInstance, type PgInstance } from '../support/pgService.js';
import { createTestDatabase, postgresTarget, type TestDatabase } from '../support/postgres.js';
import { report, storedPlatformMessageIds, storeProblems } from '../support/storeCheck.js';

const target = await postgresTarget();

const N = 90;
const FAULT_AFTER_ACKS = 30;
const PARALLEL = 6;

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

type Fault = 'SIGTERM' | 'SIGKILL' | 'connections ended';

async function floodThrough(fault: Fault) {
  const db: TestDatabase = await createTestDatabase(`restart_${fault.slice(0, 7)}`);
  cleanups.push(() => db.drop());
  const platform: FakePlatform = await startFakePlatform({ token: 'tok-restart' });
  const llm: FakeLlm = await startFakeLlm({ delayMs: 30 });
  cleanups.push(() => platform.close(), () => llm.close());
  // Small pools: every PostgreSQL test file of the suite shares one server's max_connections (100 by default).
  const env = { DATABASE_URL: db.url, ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', SEND_RETRY_BACKOFF_MS: '200,500,1000,2000', LEASE_RETRY_MS: '500', LEASE_CHECK_MS: '500', PG_POOL_SIZE: '2' };
  let service: PgInstance = await startPgInstance('all', env);
  cleanups.push(() => service.kill('SIGKILL'));
  try {
    await flood(fault, db, env, () => service, (s) => (service = s), platform, llm);
  } catch (err) {
    // What the service said is the first thing to read when it did not cope.
    throw new Error(`${(err as Error).message}\n--- the service's last output ---\n${service.proc.output().slice(-4000)}`, { cause: err });
  }
}

async function flood(
  fault: Fault,
  db: TestDatabase,
  env: Record<string, string>,
  current: () => PgInstance,
  replace: (s: PgInstance) => void,
  platform: FakePlatform,
  llm: FakeLlm,
) {
  let service = current();
  const co = await wireCompany(service.base, { platformUrl: platform.url, platformToken: 'tok-restart', llmUrl: llm.url });

  const acked: string[] = [];
  let faultAt = 0;
  let faulting: Promise<unknown> | null = null;
  const inject = async () => {
    if (fault === 'connections ended') {
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      try {
        const ended = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'mas %'", [db.name]);
        expect(ended.rowCount).toBeGreaterThan(0);
      } finally {
        await admin.end();
      }
    } else {
      await service.kill(fault);
    }
  };
  let next = 0;
  const first = service;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < N) {
        const i = next++;
        const status = await co.post({ clientId: `r-${i}`, messageId: `restart-${i}`, text: `question ${i}` }, first.base).catch(() => 0);
        if (status === 200) acked.push(`restart-${i}`);
        if (acked.length >= FAULT_AFTER_ACKS && !faulting) {
          faultAt = Date.now();
          faulting = inject();
        }
      }
    }),
  );
  await faulting;
  expect(faultAt).toBeGreaterThan(0);
  if (fault !== 'connections ended') {
    service = await startPgInstance('all', env);
    replace(service);
  } else {
    // The same process: its pools, listener and leases connect again, and it reports ready.
    await eventually(async () => expect((await fetch(`${service.base}/readyz`)).status).toBe(200), 60_000, 250);
  }

  const answered = () => new Set(platform.messages().map((m) => String(m.client_id)));
  await eventually(() => expect(acked.filter((id) => !answered().has(`r-${id.slice('restart-'.length)}`))).toEqual([]), 120_000, 250);
  await new Promise((r) => setTimeout(r, 1500)); // late duplicates would land now
  await service.kill('SIGTERM');

  const store = await openStoredEvents(db.url);
  try {
    const stored = await storedPlatformMessageIds(store);
    expect(acked.filter((id) => stored.get(id) !== 1)).toEqual([]);
    expect(await storeProblems(store)).toEqual([]);
    const all = await store.readAll();
    const repliesPerStream = new Map<string, number>();
    for (const e of all) if (e.type === 'AgentReplied') repliesPerStream.set(e.stream, (repliesPerStream.get(e.stream) ?? 0) + 1);
    expect([...repliesPerStream.values()].filter((n) => n !== 1)).toEqual([]);
    const charged = all.filter((e) => e.type === 'CreditsConsumed').map((e) => (e.data as { replyId: string }).replyId);
    expect(new Set(charged).size).toBe(charged.length);
    expect(charged).toHaveLength(repliesPerStream.size);

    const deliveredBefore = new Set(all.filter((e) => e.type === 'MessageDelivered' && Date.parse(e.createdAt) < faultAt).map((e) => e.stream));
    const streamOfClient = new Map(all.filter((e) => e.type === 'ConversationStarted').map((e) => [String((e.data as { customer: { clientId: unknown } }).customer.clientId), e.stream]));
    const sends = new Map<string, number>();
    for (const m of platform.messages()) sends.set(String(m.client_id), (sends.get(String(m.client_id)) ?? 0) + 1);
    const twice = [...sends].filter(([, n]) => n > 1).map(([client]) => client);
    expect(twice.filter((client) => deliveredBefore.has(streamOfClient.get(client)!))).toEqual([]);
    report(
      `PostgreSQL, ROLE=all, ${fault} after ${FAULT_AFTER_ACKS} acks: all ${acked.length} of ${N} acked messages stored once and answered once, ` +
        `${charged.length} charges for ${repliesPerStream.size} replies, ${twice.length} sent twice inside the at-least-once window, store consistent`,
    );
  } finally {
    await store.close();
  }
}

describe.skipIf(target.mode === 'skip')('fault: a single instance on PostgreSQL, mid-flood', () => {
  it('SIGTERM, then a restart on the same database', () => floodThrough('SIGTERM'), 300_000);
  it('SIGKILL, then a restart on the same database', () => floodThrough('SIGKILL'), 300_000);
  // Found by this test: a pooled connection ended while checked out killed the thread (test/contract/pgPool.postgres.test.ts).
  it('PostgreSQL ends every connection of the service (as a server restart would): it reconnects and carries on', () => floodThrough('connections ended'), 300_000);
});
