import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import type { Server } from '../../src/server.js';
import { signUp } from '../support/api.js';
import { startServerWithReachableStore, type ReachableStoreServer } from '../support/faultFixtures.js';
import { report, storedPlatformMessageIds, storeProblems } from '../support/storeCheck.js';
import type { TestServer } from '../support/testServer.js';

/**
 * Another process (or the processor thread, stuck in a slow fsync) holds events.sqlite's write lock. Under
 * load this used to block the HTTP event loop in SQLite's busy handler for up to 5 s per append, then answer
 * 500 "database is locked". Now the wait is a timer: /healthz keeps answering, a webhook held past the
 * store's busy timeout gets 503 SERVICE_UNAVAILABLE with Retry-After, and its redelivery is stored once.
 */
const SECRET = 'whsec_locked_0123456789';
const BUSY_TIMEOUT_MS = 600;
let stage: ReachableStoreServer;
let server: Server;
let base: string;
let holder: Database.Database;

beforeAll(async () => {
  stage = await startServerWithReachableStore({ busyTimeoutMs: BUSY_TIMEOUT_MS });
  ({ server, base } = stage);
  holder = new Database(stage.eventsPath);
});
afterAll(async () => {
  if (holder.inTransaction) holder.exec('ROLLBACK');
  holder.close();
  await stage?.close();
});

async function post(integrationId: number, messageId: string) {
  const body = JSON.stringify({ client_id: `c-${messageId}`, channel_id: 1, transport: 'telegram', message_id: messageId, text: messageId });
  const res = await fetch(`${base}/api/webhook/msgplatform/${integrationId}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) },
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as unknown };
}

describe('fault: the event store write lock is held elsewhere', () => {
  it('webhooks wait without blocking the loop; past the busy timeout they get 503 with Retry-After; a redelivery is stored once', async () => {
    const co = await signUp(server as TestServer, 'Locked Co');
    const created = await co.call('POST', '/api/integrations', { name: 'P', connectorType: 'msgplatform', webhookSecret: SECRET });
    const integrationId = created.json().integration.id as number;
    expect((await post(integrationId, 'before')).status).toBe(200);

    // Held shorter than the busy timeout: the webhook waits for it and is acknowledged.
    holder.exec('BEGIN IMMEDIATE');
    setTimeout(() => holder.exec('COMMIT'), 250);
    const healthDuringShortHold: number[] = [];
    const shortHold = post(integrationId, 'short-hold');
    for (let i = 0; i < 4; i++) {
      const started = performance.now();
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      healthDuringShortHold.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 40));
    }
    expect((await shortHold).status).toBe(200);
    expect(Math.max(...healthDuringShortHold)).toBeLessThan(100);

    // Held past it: refused with 503, nothing stored.
    holder.exec('BEGIN IMMEDIATE');
    const started = performance.now();
    const healthz = fetch(`${base}/healthz`).then(() => performance.now() - started);
    const refused = await post(integrationId, 'long-hold');
    expect(refused).toEqual({
      status: 503,
      retryAfter: '1',
      body: { error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/nothing was stored/) } },
    });
    expect(await healthz).toBeLessThan(100);
    holder.exec('COMMIT');

    // The platform redelivers: stored once, as is everything acknowledged.
    expect((await post(integrationId, 'long-hold')).status).toBe(200);
    const stored = await storedPlatformMessageIds(server.adapters.eventStore);
    expect(['before', 'short-hold', 'long-hold'].map((id) => stored.get(id))).toEqual([1, 1, 1]);
    expect(await storeProblems(server.adapters.eventStore)).toEqual([]);
    report(`locked store: write lock held 250 ms -> webhook acked after it, /healthz max ${Math.max(...healthDuringShortHold).toFixed(0)} ms; held past ${BUSY_TIMEOUT_MS} ms -> 503 + Retry-After, redelivery stored once`);
  }, 30_000);
});
