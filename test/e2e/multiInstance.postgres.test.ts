/**
 * Several instances for real, on PostgreSQL and NATS: two ROLE=api and two ROLE=processor instances of the compiled
 * server on one fresh database and one nats-server. Two companies flood webhooks through both APIs; in the middle,
 * the processor holding the reactors' lease is killed with SIGKILL. Then: every acknowledged message is stored once
 * and answered exactly once (or handed to people with a reason), each answer charged once and sent once (a second
 * send only inside the documented at-least-once window: sent, its delivery not yet recorded at the kill), the read
 * models converge (conversations, credits, search), and the dead processor's leases pass to the survivor.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore, RecordedEvent } from '../../src/ports/eventStore.js';
import { eventually } from '../support/eventually.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { wireCompany, type WiredCompany } from '../support/faultFixtures.js';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';
import { leaseHolders, LEASE_NAMES, openStoredEvents, startPgInstance, type PgInstance } from '../support/pgService.js';
import { createTestDatabase, postgresTarget, type TestDatabase } from '../support/postgres.js';
import { report, storedPlatformMessageIds, storeProblems } from '../support/storeCheck.js';

const target = await postgresTarget();

const PER_COMPANY = 60;
const KILL_AFTER_ACKS = 40;
const PARALLEL = 8;
const TOKEN = 'platform-token-multi';

let db: TestDatabase;
let admin: pg.Client;
let nats: NatsServerHandle;
let platform: FakePlatform;
let llm: FakeLlm;
const instances: PgInstance[] = [];
let store: EventStore | undefined;

describe.skipIf(target.mode === 'skip')('two api and two processor instances on one PostgreSQL and NATS, a processor killed mid-flood', () => {
  beforeAll(async () => {
    db = await createTestDatabase('multi');
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    nats = await startNatsServer();
    platform = await startFakePlatform({ token: TOKEN });
    llm = await startFakeLlm({ delayMs: 40 });
    const env = {
      DATABASE_URL: db.url,
      NATS_URL: nats.url,
      ALLOW_PRIVATE_PLATFORM_URLS: 'true',
      REPLY_BURST_WINDOW_MS: '0',
      SEND_RETRY_BACKOFF_MS: '200,500,1000,2000',
      LEASE_RETRY_MS: '500',
      LEASE_CHECK_MS: '500',
      // Small pools: the whole suite's PostgreSQL files share one server's max_connections (100 by default).
      PG_POOL_SIZE: '2',
    };
    // Processors first: they migrate the schema (at once, under the migrations' lock) and one takes each lease.
    instances.push(...(await Promise.all([startPgInstance('processor', env), startPgInstance('processor', env)])));
    instances.push(...(await Promise.all([startPgInstance('api', env), startPgInstance('api', env)])));
  }, 240_000);

  afterAll(async () => {
    for (const i of instances) await i.kill('SIGTERM').catch(() => undefined);
    await store?.close();
    await admin?.end().catch(() => undefined);
    await nats?.stop();
    await Promise.all([platform?.close(), llm?.close()]);
    await db?.drop();
  });

  it('answers, charges and sends every acknowledged message once; read models converge; the leases pass on', async () => {
    const [procA, procB, api1, api2] = instances as [PgInstance, PgInstance, PgInstance, PgInstance];
    const processors = [procA, procB];
    // Each lease is held by exactly one of the two processors, never by an API instance.
    const before = await eventually(async () => {
      const holders = await leaseHolders(admin, db.name);
      expect(Object.keys(holders).sort()).toEqual([...LEASE_NAMES].sort());
      for (const pid of Object.values(holders)) expect([procA.pid, procB.pid]).toContain(pid);
      return holders;
    }, 30_000, 200);

    const companies: WiredCompany[] = [
      await wireCompany(api1.base, { platformUrl: platform.url, platformToken: TOKEN, llmUrl: llm.url, name: 'North Co' }),
      await wireCompany(api2.base, { platformUrl: platform.url, platformToken: TOKEN, llmUrl: llm.url, name: 'South Co' }),
    ];

    // The flood: both companies, alternating API instances; the reactors' holder is killed once enough are acknowledged.
    const victim = processors.find((p) => p.pid === before.reactors)!;
    const survivor = processors.find((p) => p !== victim)!;
    // Each processor's /metrics says which duties it runs (mas_lease_held), as the database does.
    const leaseMetrics = async (p: PgInstance) =>
      Object.fromEntries([...(await (await fetch(`${p.base}/metrics`)).text()).matchAll(/^mas_lease_held\{lease="(\w+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
    await eventually(async () => {
      for (const p of processors) {
        expect(await leaseMetrics(p)).toEqual(Object.fromEntries(LEASE_NAMES.map((n) => [n, before[n] === p.pid ? 1 : 0])));
      }
    }, 10_000, 200);
    const acked: { company: number; clientId: string; messageId: string }[] = [];
    let killedAt = 0;
    let killing: Promise<void> | null = null;
    const jobs = Array.from({ length: PER_COMPANY * 2 }, (_, i) => ({ company: i % 2, clientId: `c${i % 2}-${i}`, messageId: `m${i % 2}-${i}`, via: i % 4 < 2 ? api1 : api2 }));
    let next = 0;
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < jobs.length) {
          const job = jobs[next++]!;
          const status = await companies[job.company]!.post({ clientId: job.clientId, messageId: job.messageId, text: `question ${job.messageId} about parcels` }, job.via.base).catch(() => 0);
          if (status === 200) acked.push(job);
          if (acked.length >= KILL_AFTER_ACKS && !killing) {
            killedAt = Date.now();
            killing = victim.kill('SIGKILL');
          }
        }
      }),
    );
    await killing;
    expect(killedAt).toBeGreaterThan(0);
    expect(acked).toHaveLength(jobs.length);

    // The dead processor's leases pass to the survivor.
    await eventually(async () => {
      const holders = await leaseHolders(admin, db.name);
      expect(holders).toEqual(Object.fromEntries(LEASE_NAMES.map((n) => [n, survivor.pid])));
      expect(await leaseMetrics(survivor)).toEqual(Object.fromEntries(LEASE_NAMES.map((n) => [n, 1])));
    }, 30_000, 200);

    // Every acknowledged message gets its answer (the killed processor's jobs are redelivered to the survivor).
    const sentTo = () => new Set(platform.messages().map((m) => String(m.client_id)));
    await eventually(() => expect(acked.filter((a) => !sentTo().has(a.clientId))).toEqual([]), 120_000, 500);

    // The read models converge: each company lists its conversations with question and answer, its balance is what its charges left.
    store = await openStoredEvents(db.url);
    await eventually(async () => {
      for (const [i, co] of companies.entries()) {
        const list = await co.call('GET', '/api/conversations?limit=200');
        expect(list.status).toBe(200);
        const conversations = list.body.conversations as { id: string; messageCount: number }[];
        expect(conversations).toHaveLength(PER_COMPANY);
        expect(conversations.filter((c) => c.messageCount !== 2)).toEqual([]);
        const ids = new Set(conversations.map((c) => c.id));
        const charges = (await store!.readAll({ filter: { eventTypes: ['CreditsConsumed'] } })).filter((e) => ids.has((e.data as { conversationId: string }).conversationId));
        expect(charges, `company ${i}`).toHaveLength(PER_COMPANY);
        const spent = charges.reduce((sum, e) => sum + (e.data as { amountMicros: number }).amountMicros, 0);
        expect((await co.call('GET', '/api/credits')).body.credits.balanceMicros).toBe(5_000_000 - spent);
      }
    }, 60_000, 500);
    // Search finds one customer's words through either API instance.
    const probe = acked.find((a) => a.company === 1)!;
    await eventually(async () => {
      const found = await companies[1]!.call('GET', `/api/search?q=${encodeURIComponent(probe.messageId)}`);
      expect(found.status).toBe(200);
      expect(JSON.stringify(found.body)).toContain(probe.messageId);
    }, 30_000, 500);

    // Late duplicates would land now.
    await new Promise((r) => setTimeout(r, 2000));
    const all = await store.readAll();
    expect(await storeProblems(store)).toEqual([]);
    const stored = await storedPlatformMessageIds(store);
    expect(acked.filter((a) => stored.get(a.messageId) !== 1)).toEqual([]);

    const received = new Map<string, string>(); // platform message id -> stored message id
    for (const e of all) if (e.type === 'MessageReceived') received.set(String((e.data as { platform: { messageId: string } }).platform.messageId), (e.data as { messageId: string }).messageId);
    const answers = new Map<string, number>();
    const handed = new Map<string, number>();
    const count = (map: Map<string, number>, ids: string[]) => ids.forEach((id) => map.set(id, (map.get(id) ?? 0) + 1));
    for (const e of all) {
      if (e.type === 'AgentReplied') count(answers, (e.data as { inReplyTo: string[] }).inReplyTo);
      if (e.type === 'MessagesUnanswered') count(handed, (e.data as { messageIds: string[] }).messageIds);
    }
    // Answered exactly once, or handed to people with a reason, never both, never neither.
    const notOnce = acked.filter((a) => {
      const id = received.get(a.messageId)!;
      return (answers.get(id) ?? 0) + (handed.get(id) ?? 0) !== 1;
    });
    expect(notOnce).toEqual([]);

    // Charged once: one charge per reply, and no reply charged twice.
    const replies = all.filter((e: RecordedEvent) => e.type === 'AgentReplied' && !(e.data as { aiFailed?: boolean }).aiFailed).map((e) => (e.data as { messageId: string }).messageId);
    const charged = all.filter((e) => e.type === 'CreditsConsumed').map((e) => (e.data as { replyId: string }).replyId);
    expect(new Set(charged).size).toBe(charged.length);
    expect([...charged].sort()).toEqual([...replies].sort());

    // Sent once: a second send only where the killed processor sent it and had not recorded the delivery yet.
    const deliveredBeforeKill = new Set(all.filter((e) => e.type === 'MessageDelivered' && Date.parse(e.createdAt) < killedAt).map((e) => e.stream));
    const streamOfClient = new Map(all.filter((e) => e.type === 'ConversationStarted').map((e) => [String((e.data as { customer: { clientId: unknown } }).customer.clientId), e.stream]));
    const sends = new Map<string, number>();
    for (const m of platform.messages()) sends.set(String(m.client_id), (sends.get(String(m.client_id)) ?? 0) + 1);
    const twice = [...sends].filter(([, n]) => n > 1).map(([client]) => client);
    expect(twice.filter((client) => deliveredBeforeKill.has(streamOfClient.get(client)!))).toEqual([]);

    report(
      `2 api + 2 processor instances on PostgreSQL + NATS, ${acked.length} webhooks from 2 companies, the reactors' lease holder SIGKILLed after ${KILL_AFTER_ACKS}: ` +
        `every message stored once, answered or handed over once, ${charged.length} charges for ${replies.length} replies, ${twice.length} sent twice inside the at-least-once window, leases passed to the survivor`,
    );
  }, 420_000);
});
