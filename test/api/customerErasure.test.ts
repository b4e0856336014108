/**
 * Erasure by crypto-shredding, end to end on the embedded engines (docs/erasure.md): a customer with distinctive
 * strings in their messages, profile, note, tags, webhook log and handoff summary is erased; then no byte of the
 * data directory holds any of those strings, analytics totals are unchanged, and rebuilding the read models again
 * gives the same documents.
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { createLogger } from '../../src/infrastructure/logger.js';
import { rebuildProjections } from '../../src/processing/projectionRunner.js';
import { allProjections } from '../../src/projections/index.js';
import { acmeAndGlobex, type Company } from '../support/api.js';
import { uniqueEmail } from '../support/testServer.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

const SECRET = 'whsec_0123456789abcdef0123';
const SECRETS = {
  text: 'Quizzical-Marmoset-4471 please refund order',
  human: 'Flamboyant-Okapi-9023 I want to talk to a human',
  name: 'Ottoline Vexworth',
  phone: '+47 555 987 654',
  email: 'ottoline.vexworth@example.org',
  note: 'Prefers-Zanzibar-Courier-Service',
  tag: 'vexworth-vip-xq',
  clientId: 'client-vexworth-3318',
};
let server: TestServer;
let acme: Company;
let globex: Company;
let integrationId: number;
let n = 0;

async function webhook(body: Record<string, unknown>) {
  const payload = JSON.stringify({ message_id: `m-${n++}`, channel_id: 42, transport: 'whatsapp', text: 'Hello', ...body });
  const res = await server.app.inject({
    method: 'POST',
    url: `/api/webhook/msgplatform/${integrationId}`,
    payload,
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(payload, SECRET) },
  });
  expect(res.statusCode).toBe(200);
}

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const until = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

type Listed = { id: string; customerId: string; customer: { clientId: string } };
const conversations = async () => (await acme.call('GET', '/api/conversations?limit=200')).json().conversations as Listed[];
const numbersOf = (value: unknown) => JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'string' ? undefined : v)));

beforeAll(async () => {
  server = await startTestServer();
  ({ acme, globex } = await acmeAndGlobex(server));
  const created = await acme.call('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret: SECRET });
  expect(created.statusCode).toBe(201);
  integrationId = created.json().integration.id;
});
afterAll(async () => {
  await server?.close();
});

describe('DELETE /api/customers/:id', () => {
  let customerId: string;
  let conversationId: string;

  it('given a customer with personal data everywhere, an agent may not erase (403), another company sees 404, a blank reason is 400', async () => {
    const client = { id: SECRETS.clientId, name: SECRETS.name, phone: SECRETS.phone, email: SECRETS.email };
    await webhook({ client_id: SECRETS.clientId, client, text: SECRETS.text });
    await webhook({ client_id: SECRETS.clientId, client, text: SECRETS.human });
    await webhook({ client_id: 'someone-else', text: 'the other customer stays' });
    const mine = await eventually(async () => (await conversations()).find((c) => c.customer.clientId === SECRETS.clientId), (c) => !!c, 'the conversation');
    customerId = mine!.customerId;
    conversationId = mine!.id;
    await eventually(
      () => acme.call('GET', `/api/customers/${customerId}`),
      (r) => r.statusCode === 200 && r.json().customer.email === SECRETS.email,
      'the profile',
    );
    expect((await acme.call('PUT', `/api/customers/${customerId}/note`, { note: SECRETS.note })).statusCode).toBe(200);
    expect((await acme.call('PUT', `/api/customers/${customerId}/tags`, { tags: [SECRETS.tag] })).statusCode).toBe(200);
    await eventually(
      async () => (await acme.call('GET', `/api/search?q=Marmoset`)).json(),
      (body) => JSON.stringify(body).includes('Quizzical'),
      'the message in the search index',
    );

    const invited = await acme.call('POST', '/api/team/invitations', { email: uniqueEmail('agent'), role: 'agent' });
    const url = invited.json().invitationUrl as string;
    const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
    const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Agent Al', password: 'agent password' } });
    const agent = accepted.json().session.access_token as string;
    const asAgent = await acme.call('DELETE', `/api/customers/${customerId}`, { reason: 'ticket 1' }, agent);
    expect(asAgent.statusCode).toBe(403);
    expect(asAgent.json().error.code).toBe('FORBIDDEN');
    const across = await globex.call('DELETE', `/api/customers/${customerId}`, { reason: 'ticket 1' });
    expect(across.statusCode).toBe(404);
    expect(across.json().error.code).toBe('NOT_FOUND');
    expect((await acme.call('DELETE', `/api/customers/${customerId}`, { reason: '   ' })).statusCode).toBe(400);
    expect((await acme.call('GET', `/api/customers/${customerId}`)).json().customer.name).toBe(SECRETS.name);
  });

  it('erasing leaves no byte of the data anywhere in the data directory; totals and the rest stay; a repeat is a no-op', async () => {
    // The scan below can fail: before the erasure the read models' files hold the customer's words in clear.
    const before = readdirSync(server.dataDir).map((f) => readFileSync(join(server.dataDir, f)));
    expect(before.some((b) => b.includes(Buffer.from('Quizzical-Marmoset-4471')))).toBe(true);
    const analyticsBefore = numbersOf((await acme.call('GET', '/api/analytics')).json());
    const eventsBefore = (await server.adapters.eventStore.readAll()).map((e) => [e.type, String(e.position)]);

    const erased = await acme.call('DELETE', `/api/customers/${customerId}`, { reason: 'GDPR request 2026-118' });
    expect(erased.statusCode).toBe(202);
    expect(erased.json().erasure).toMatchObject({ customerId, recorded: true });
    expect(erased.json().erasure.keysDeleted).toBeGreaterThanOrEqual(2);
    await server.services.erasure!.sweep.idle();

    const events = await server.adapters.eventStore.readAll();
    // The log keeps its structure: every event still there, in order, plus the erasure event (who and why).
    expect(events.slice(0, eventsBefore.length).map((e) => [e.type, String(e.position)])).toEqual(eventsBefore);
    const erasure = events.find((e) => e.type === 'CustomerErased')!;
    expect(erasure.data).toMatchObject({ customerId, conversationIds: [conversationId], by: expect.stringMatching(/^user:/), reason: 'GDPR request 2026-118' });
    expect(JSON.stringify(events.map((e) => e.data))).not.toContain('Marmoset');

    const profile = (await acme.call('GET', `/api/customers/${customerId}`)).json().customer;
    expect(profile).toMatchObject({ name: null, email: null, phone: null, note: '', tags: [] });
    expect(numbersOf((await acme.call('GET', '/api/analytics')).json())).toEqual(analyticsBefore);
    const list = await conversations();
    expect(list.some((c) => c.customer.clientId === 'someone-else')).toBe(true);
    expect(JSON.stringify(list)).not.toContain('vexworth');
    expect(JSON.stringify((await acme.call('GET', '/api/search?q=Marmoset')).json())).not.toContain('Quizzical');

    // The outbound events say so, ids only; earlier events of theirs carry no trace of the data any more.
    const feed = JSON.stringify((await acme.call('GET', '/api/events?limit=200')).json());
    expect(feed).toContain('"customer.erased"');
    expect(feed).not.toContain('Marmoset');
    expect(feed).not.toContain('vexworth');

    const again = await acme.call('DELETE', `/api/customers/${customerId}`, { reason: 'GDPR request 2026-118' });
    expect(again.statusCode).toBe(202);
    expect(again.json().erasure).toMatchObject({ recorded: false, keysDeleted: 0 });
    expect((await server.adapters.eventStore.readAll()).filter((e) => e.type === 'CustomerErased')).toHaveLength(1);

    // Rebuilding the read models again gives the same documents: the erased data stays out.
    const listBefore = JSON.stringify(await conversations());
    await rebuildProjections({ eventStore: server.adapters.eventStore, readStore: server.adapters.readStore, projections: allProjections, logger: createLogger({ level: 'silent' }) });
    await eventually(async () => JSON.stringify(await conversations()), (l) => l === listBefore, 'the same list after a rebuild');

    await server.stop(); // the stores close (the data directory stays until afterAll)
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const f of readdirSync(dir)) {
        const p = join(dir, f);
        if (statSync(p).isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk(server.dataDir);
    for (const f of files.filter((p) => p.endsWith('.sqlite'))) {
      const db = new Database(f);
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    }
    files.length = 0;
    walk(server.dataDir);
    expect(files.some((f) => f.endsWith('events.sqlite'))).toBe(true);
    const found: string[] = [];
    for (const f of files) {
      const bytes = readFileSync(f);
      for (const [what, value] of Object.entries(SECRETS)) {
        for (const probe of [value, ...value.split(/[\s-]+/).filter((w) => w.length >= 8)]) {
          if (bytes.includes(Buffer.from(probe))) found.push(`${what} (${probe}) in ${f}`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});

describe('an erasure cut short', () => {
  it('given CustomerErased stored but the keys not deleted (killed between the two), a restart completes it', async () => {
    const first = await startTestServer();
    const { acme: co } = await acmeAndGlobex(first);
    const made = await co.call('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret: SECRET });
    const id = made.json().integration.id as number;
    const payload = JSON.stringify({ message_id: 'm-cut', channel_id: 42, transport: 'whatsapp', client_id: 'cut-short-client', text: 'Perpendicular-Walrus-5150 wants help' });
    const hook = await first.app.inject({ method: 'POST', url: `/api/webhook/msgplatform/${id}`, payload, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(payload, SECRET) } });
    expect(hook.statusCode).toBe(200);
    const listed = async (c: Company) => (await c.call('GET', '/api/conversations?limit=200')).json().conversations as Listed[];
    const mine = (await eventually(() => listed(co), (cs) => cs.length === 1, 'the conversation'))[0]!;
    await eventually(() => co.call('GET', `/api/customers/${mine.customerId}`), (r) => r.statusCode === 200, 'the customer');
    // What the DELETE does first, alone: the erasure event, as if the process died before deleting the keys.
    const stream = `customer-${mine.customerId}`;
    const revision = BigInt((await first.adapters.eventStore.readStream(stream)).length - 1);
    const companyId = (await first.adapters.eventStore.readStream(stream))[0]!.metadata.companyId!;
    await first.adapters.eventStore.append(
      stream,
      [{ id: randomUUID(), type: 'CustomerErased', data: { customerId: mine.customerId, companyId, conversationIds: [mine.id], by: 'user:someone', reason: 'ticket 9', at: new Date().toISOString() } }],
      revision,
    );
    expect(JSON.stringify(await listed(co))).toContain('Perpendicular-Walrus');
    await first.stop();

    const second = await startTestServer({}, undefined, { dataDir: first.dataDir });
    try {
      await second.services.erasure!.sweep.idle();
      const texts = (await second.adapters.eventStore.readAll()).filter((e) => e.type === 'MessageReceived').map((e) => (e.data as { text: string }).text);
      expect(texts).toEqual(['[erased]']);
      const again = await second.app.inject({ method: 'GET', url: '/api/conversations?limit=200', headers: { authorization: `Bearer ${co.bearer}` } });
      expect(again.statusCode).toBe(200);
      expect(JSON.stringify(again.json())).not.toContain('Perpendicular-Walrus');
    } finally {
      await second.close();
    }
  });
});

describe('an erased customer who writes again into the same conversation', () => {
  it('is stored encrypted under a new key (never plain in the log), reads back whole, and a second erasure removes it', async () => {
    const own = await startTestServer();
    try {
      const { acme: co } = await acmeAndGlobex(own);
      const made = await co.call('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret: SECRET });
      const id = made.json().integration.id as number;
      let m = 0;
      const send = async (text: string) => {
        const payload = JSON.stringify({ message_id: `r-${m++}`, channel_id: 42, transport: 'whatsapp', client_id: 'returning-client-8812', text });
        const res = await own.app.inject({ method: 'POST', url: `/api/webhook/msgplatform/${id}`, payload, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(payload, SECRET) } });
        expect(res.statusCode).toBe(200);
      };
      const RETURNING = 'Returning-Pangolin-6604 my new address';
      await send('first words before the erasure');
      const listed = async () => (await co.call('GET', '/api/conversations?limit=200')).json().conversations as Listed[];
      const mine = (await eventually(listed, (cs) => cs.length === 1, 'the conversation'))[0]!;
      await eventually(() => co.call('GET', `/api/customers/${mine.customerId}`), (r) => r.statusCode === 200, 'the customer');
      const stream = `conversation-${mine.id}`;
      expect((await co.call('DELETE', `/api/customers/${mine.customerId}`, { reason: 'ticket 11' })).statusCode).toBe(202);
      await own.services.erasure!.sweep.idle();

      await send(RETURNING);
      const texts = async () => (await own.adapters.eventStore.readStream(stream)).filter((e) => e.type === 'MessageReceived').map((e) => (e.data as { text: string }).text);
      expect(await eventually(texts, (t) => t.length === 2, 'the new message')).toEqual(['[erased]', RETURNING]);

      // The log's file (after a WAL checkpoint) holds the new words only as ciphertext.
      const logFile = join(own.dataDir, readdirSync(own.dataDir).find((f) => f.endsWith('events.sqlite'))!);
      const logBytes = () => {
        const db = new Database(logFile);
        db.pragma('wal_checkpoint(TRUNCATE)');
        db.close();
        return readdirSync(own.dataDir)
          .filter((f) => f.startsWith('events.sqlite'))
          .map((f) => readFileSync(join(own.dataDir, f)));
      };
      expect(logBytes().some((b) => b.includes(Buffer.from('Returning-Pangolin-6604')))).toBe(false);
      const raw = JSON.stringify((await own.adapters.eventStore.readStream(stream)).map((e) => e.data));
      expect(raw).toContain('Returning-Pangolin-6604'); // readable through the store: it was encrypted, not lost

      const second = await co.call('DELETE', `/api/customers/${mine.customerId}`, { reason: 'ticket 12' });
      expect(second.statusCode).toBe(202);
      expect(second.json().erasure.keysDeleted).toBeGreaterThanOrEqual(1);
      expect(await texts()).toEqual(['[erased]', '[erased]']);
      expect(logBytes().some((b) => b.includes(Buffer.from('Returning-Pangolin-6604')))).toBe(false);
      expect(second.json().erasure.recorded).toBe(true); // the new data's copies in the read models are purged too
      await own.services.erasure!.sweep.idle();
      expect(JSON.stringify(await listed())).not.toContain('Pangolin');
      for (const f of readdirSync(own.dataDir).filter((f) => f.endsWith('.sqlite'))) {
        const db = new Database(join(own.dataDir, f));
        db.pragma('wal_checkpoint(TRUNCATE)');
        db.close();
      }
      const holding = readdirSync(own.dataDir).filter((f) => readFileSync(join(own.dataDir, f)).includes(Buffer.from('Returning-Pangolin-6604')));
      expect(holding).toEqual([]);
      const third = await co.call('DELETE', `/api/customers/${mine.customerId}`, { reason: 'ticket 13' });
      expect(third.json().erasure).toMatchObject({ recorded: false, keysDeleted: 0 });
    } finally {
      await own.close();
    }
  });
});
