import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import type { SqliteEventStore } from '../../src/infrastructure/sqlite/sqliteEventStore.js';
import type { Server } from '../../src/server.js';
import { signUp } from '../support/api.js';
import { startServerWithReachableStore, type ReachableStoreServer } from '../support/faultFixtures.js';
import { report, storedPlatformMessageIds, storeProblems } from '../support/storeCheck.js';
import type { TestServer } from '../support/testServer.js';

/**
 * The event store runs out of space while webhooks arrive. Injected with SQLite's max_page_count on the
 * server's own connection to events.sqlite: the file cannot grow, exactly as on a full disk.
 */
const SECRET = 'whsec_fullstore_0123456789';
let stage: ReachableStoreServer;
let raw: SqliteEventStore;
let server: Server;
let base: string;

beforeAll(async () => {
  stage = await startServerWithReachableStore();
  ({ raw, server, base } = stage);
});
afterAll(async () => {
  await stage?.close();
});

/** The server's own better-sqlite3 handle: the fault is injected on the connection that writes. */
const db = () => (raw as unknown as { db: Database.Database }).db;
const pageCount = () => Number(db().pragma('page_count', { simple: true }));

async function post(integrationId: number, messageId: string) {
  const body = JSON.stringify({ client_id: `c-${messageId}`, channel_id: 1, transport: 'telegram', message_id: messageId, text: `${messageId} ${'x'.repeat(2000)}` });
  const res = await fetch(`${base}/api/webhook/msgplatform/${integrationId}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) },
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
}

const readyz = async () => {
  const res = await fetch(`${base}/readyz`);
  return { status: res.status, body: (await res.json()) as { ok: boolean; checks: Record<string, boolean> } };
};

describe('fault: the event store is full', () => {
  it('webhooks get 500 INTERNAL_ERROR, nothing acknowledged is lost, /readyz is 503 until the store can write again', async () => {
    const co = await signUp(server as TestServer, 'Full Co');
    const created = await co.call('POST', '/api/integrations', { name: 'P', connectorType: 'msgplatform', webhookSecret: SECRET });
    expect(created.statusCode).toBe(201);
    const integrationId = created.json().integration.id as number;
    const acked: string[] = [];
    const refused: string[] = [];
    let n = 0;
    const burst = async (size: number) =>
      Promise.all(
        Array.from({ length: size }, async () => {
          const id = `full-${n++}`;
          const res = await post(integrationId, id);
          if (res.status === 200) acked.push(id);
          else {
            // The only acceptable failure: the spec's 500 INTERNAL_ERROR, with the error shape.
            expect(res).toEqual({ status: 500, body: { error: { code: 'INTERNAL_ERROR', message: expect.any(String) } } });
            refused.push(id);
          }
        }),
      );

    await burst(20);
    expect(refused).toEqual([]);
    expect((await readyz()).status).toBe(200);

    const cap = pageCount();
    db().pragma(`max_page_count = ${cap}`);
    for (let i = 0; i < 100 && refused.length === 0; i++) await burst(10);
    expect(refused.length).toBeGreaterThan(0);
    const whileFull = await readyz();
    expect(whileFull).toMatchObject({ status: 503, body: { ok: false, checks: { eventStore: false, readStore: true, bus: true } } });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    // Still full a moment later (the probe is retried, not trusted once).
    await new Promise((r) => setTimeout(r, 1100));
    expect((await readyz()).status).toBe(503);

    db().pragma('max_page_count = 1073741823');
    await expect.poll(async () => (await readyz()).status, { timeout: 5000, interval: 200 }).toBe(200);

    // The platform redelivers what was refused; now everything is stored, once.
    const redelivered = [...refused];
    for (const id of redelivered) expect((await post(integrationId, id)).status).toBe(200);
    const stored = await storedPlatformMessageIds(server.adapters.eventStore);
    const lost = acked.filter((id) => stored.get(id) !== 1);
    expect(lost).toEqual([]);
    expect(redelivered.filter((id) => stored.get(id) !== 1)).toEqual([]);
    expect(await storeProblems(server.adapters.eventStore)).toEqual([]);
    report(
      `full store: max_page_count=${cap} pages on events.sqlite during ${n} webhooks -> ${acked.length} acked (all stored once), ` +
        `${refused.length} answered 500 INTERNAL_ERROR (stored once after redelivery), /readyz 503 while full and 200 after, store consistent`,
    );
  }, 60_000);
});
