/**
 * Retention (docs/erasure.md): a company's conversations closed more than its period ago are erased, with their
 * customer, by the same erasure as DELETE /api/customers/:id, on the processor's sweep; open conversations, and
 * other companies', stay. The sweep runs here on a clock the test sets (days ahead), one pass at a time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { createLogger } from '../../src/infrastructure/logger.js';
import { RETENTION_SWEEP_LIMITS, sweepRetention, type RetentionSweepDeps } from '../../src/workers/retention/retentionSweep.js';
import { acmeAndGlobex, signUp, type Company } from '../support/api.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

const SECRET = 'whsec_0123456789abcdef0123';
const DAY = 86_400_000;
let server: TestServer;
let acme: Company;
let globex: Company;
let n = 0;

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

/** A conversation of `co` with `clientId` saying `text`; closed when asked. */
const integrations = new Map<Company, number>();
async function conversationOf(co: Company, clientId: string, text: string, close: boolean): Promise<Listed> {
  if (!integrations.has(co)) {
    const made = await co.call('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret: SECRET });
    integrations.set(co, made.json().integration.id as number);
  }
  const integrationId = integrations.get(co)!;
  const payload = JSON.stringify({ message_id: `m-ret-${n++}`, channel_id: 42, transport: 'whatsapp', client_id: clientId, text });
  const hook = await server.app.inject({
    method: 'POST',
    url: `/api/webhook/msgplatform/${integrationId}`,
    payload,
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(payload, SECRET) },
  });
  expect(hook.statusCode).toBe(200);
  const listed = await eventually(
    async () => ((await co.call('GET', '/api/conversations?limit=100')).json().conversations as Listed[]).find((c) => c.customer.clientId === clientId),
    (c) => !!c,
    'the conversation',
  );
  await eventually(() => co.call('GET', `/api/customers/${listed!.customerId}`), (r) => r.statusCode === 200, 'the customer');
  if (close) expect((await co.call('POST', `/api/conversations/${listed!.id}/close`, {})).statusCode).toBe(200);
  return listed!;
}

const sweepAt = (daysAhead: number): RetentionSweepDeps => ({
  eventStore: server.adapters.eventStore,
  readStore: server.adapters.readStore,
  personalKeys: server.adapters.personalKeys,
  clock: { now: () => new Date(Date.now() + daysAhead * DAY) },
  logger: createLogger({ level: 'silent' }),
  sweepIntervalMs: 60_000,
});

beforeAll(async () => {
  server = await startTestServer();
  ({ acme, globex } = await acmeAndGlobex(server));
});
afterAll(async () => {
  await server?.close();
});

describe('GET/PUT /api/settings/retention', () => {
  it('keeps everything by default; owners set a period in days; bad values are 400; agents 403; each company its own', async () => {
    const initial = await acme.call('GET', '/api/settings/retention');
    expect(initial.statusCode).toBe(200);
    expect(initial.json().retention).toEqual({ conversationDays: null, updatedBy: null, updatedAt: null });
    for (const bad of [0, 3651, 1.5, '30']) {
      const res = await acme.call('PUT', '/api/settings/retention', { conversationDays: bad });
      expect(res.statusCode, String(bad)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    const set = await acme.call('PUT', '/api/settings/retention', { conversationDays: 30 });
    expect(set.statusCode).toBe(200);
    expect(set.json().retention).toMatchObject({ conversationDays: 30, updatedBy: `user:${acme.user.id}` });
    expect((await acme.call('GET', '/api/settings/retention')).json().retention.conversationDays).toBe(30);
    expect((await globex.call('GET', '/api/settings/retention')).json().retention.conversationDays).toBeNull();

    const invited = await acme.call('POST', '/api/team/invitations', { email: uniqueEmail('agent'), role: 'agent' });
    const url = invited.json().invitationUrl as string;
    const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
    const agent = (await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Agent Al', password: 'agent password' } })).json().session.access_token as string;
    expect((await acme.call('GET', '/api/settings/retention', undefined, agent)).statusCode).toBe(403);
    const put = await acme.call('PUT', '/api/settings/retention', { conversationDays: 1 }, agent);
    expect(put.statusCode).toBe(403);
    expect(put.json().error.code).toBe('FORBIDDEN');
  });
});

describe('the retention sweep', () => {
  it('erases conversations closed longer ago than the period, with their customer; keeps open ones and other companies’', async () => {
    const old = await conversationOf(acme, 'retention-closed', 'Obstreperous-Gecko-1204 old question', true);
    const open = await conversationOf(acme, 'retention-open', 'Open-Pangolin-7781 still talking', false);
    const elsewhere = await conversationOf(globex, 'retention-globex', 'Globex-Caracal-3312 kept forever', true);

    // Inside the period (10 of 30 days): nothing.
    expect(await sweepRetention(sweepAt(10))).toBe(0);
    // Past it: the closed conversation's customer, once the read model has the close time.
    const erased = await eventually(() => sweepRetention(sweepAt(31)), (count) => count > 0, 'the retention erasure');
    expect(erased).toBe(1);
    const erasures = (await server.adapters.eventStore.readAll()).filter((e) => e.type === 'CustomerErased');
    expect(erasures.map((e) => e.data)).toEqual([expect.objectContaining({ customerId: old.customerId, conversationIds: [old.id], by: 'system:retention', reason: 'retention: closed more than 30 days ago' })]);

    // The same erasure as by hand: the API's sweep purges the read models.
    server.services.erasure!.sweep.request();
    await server.services.erasure!.sweep.idle();
    const messages = async (co: Company, id: string) => JSON.stringify((await co.call('GET', `/api/conversations/${id}`)).json());
    expect(await messages(acme, old.id)).not.toContain('Obstreperous');
    expect(await messages(acme, open.id)).toContain('Open-Pangolin');
    expect(await messages(globex, elsewhere.id)).toContain('Globex-Caracal');
    expect((await acme.call('GET', `/api/customers/${old.customerId}`)).json().customer.clientId).toBe('[erased]');

    // A later pass has nothing more to do (the erased conversation left the read model of closed ones).
    await eventually(() => sweepRetention(sweepAt(400)), (count) => count === 0, 'a pass with nothing to erase');
    const erasuresOf = async (customerId: string) => (await server.adapters.eventStore.readAll()).filter((e) => e.type === 'CustomerErased' && (e.data as { customerId: string }).customerId === customerId).length;
    expect(await erasuresOf(old.customerId)).toBe(1);

    // The customer writes again and the conversation closes again: after the erasure's rebuild of the read models
    // (where the conversation's first event reads erased) it is listed again under its customer, closed from now.
    const payload = JSON.stringify({ message_id: 'm-ret-again', channel_id: 42, transport: 'whatsapp', client_id: 'retention-closed', text: 'Returning-Heron-6620 me again' });
    const hook = await server.app.inject({
      method: 'POST',
      url: `/api/webhook/msgplatform/${integrations.get(acme)}`,
      payload,
      headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(payload, SECRET) },
    });
    expect(hook.statusCode).toBe(200);
    await eventually(async () => JSON.stringify((await acme.call('GET', `/api/conversations/${old.id}`)).json()), (body) => body.includes('Returning-Heron'), 'the new message');
    expect((await acme.call('POST', `/api/conversations/${old.id}/close`, {})).statusCode).toBe(200);
    const relisted = await eventually(() => server.adapters.readStore.get('retained_conversations', old.id), (doc) => doc?.['closed'] === true, 'the conversation closed again');
    expect(relisted).toMatchObject({ customerId: old.customerId, companyId: acme.company.companyId });
  });

  it('a period set back to null keeps everything again', async () => {
    await conversationOf(acme, 'retention-kept', 'Kept-Marten-5590 keep me', true);
    expect((await acme.call('PUT', '/api/settings/retention', { conversationDays: null })).json().retention.conversationDays).toBeNull();
    await new Promise((r) => setTimeout(r, 200));
    await eventually(() => server.adapters.readStore.get('retention_policies', acme.company.companyId), (doc) => doc?.['active'] === false, 'the policy read model');
    expect(await sweepRetention(sweepAt(4000))).toBe(0);
  });

  it('does bounded work per pass: at most RETENTION_SWEEP_LIMITS.perCompany erasures of a company, the rest on later passes', async () => {
    const initech = await signUp(server, 'Initech');
    expect((await initech.call('PUT', '/api/settings/retention', { conversationDays: 1 })).statusCode).toBe(200);
    const count = RETENTION_SWEEP_LIMITS.perCompany + 2;
    for (let i = 0; i < count; i++) await conversationOf(initech, `bulk-${i}`, `bulk message ${i}`, true);
    await eventually(
      async () => (await server.adapters.readStore.find('retained_conversations', { where: { companyId: initech.company.companyId, closed: true }, orderBy: [{ field: 'closedAt', direction: 'asc' }], limit: 50 })).items.length,
      (closed) => closed === count,
      'every close in the read model',
    );
    expect(await sweepRetention(sweepAt(2))).toBe(RETENTION_SWEEP_LIMITS.perCompany);
    const erasures = async () =>
      (await server.adapters.eventStore.readAll()).filter((e) => e.type === 'CustomerErased' && (e.data as { companyId: string }).companyId === initech.company.companyId).length;
    expect(await erasures()).toBe(RETENTION_SWEEP_LIMITS.perCompany);
    // Later passes (once the read model has dropped the erased ones) take the rest, each customer once.
    await eventually(async () => (await sweepRetention(sweepAt(2)), erasures()), (total) => total === count, 'the rest on later passes');
    expect(await sweepRetention(sweepAt(2))).toBe(0);
  });
});
