import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { signUp } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * Working as a support team: assignment, the inbox views (Mine, Unassigned, Needs human), the handoff queue,
 * unread counts and resolve, through the HTTP API of a real listening server.
 */

const SECRET = 'whsec_inbox_0123456789abcdef';
let server: TestServer;
let base: string;
type Company = Awaited<ReturnType<typeof signUp>>;
let acme: Company;
let other: Company;
let acmeIntegration: number;
let otherIntegration: number;

/** A second user of the owner's company, an agent who joined through an invitation, signed in. */
async function addTeammate(owner: Company) {
  const email = uniqueEmail('teammate');
  const invited = await owner.call('POST', '/api/team/invitations', { email, role: 'agent' });
  expect(invited.statusCode).toBe(201);
  const url = invited.json().invitationUrl as string;
  const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
  const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Teammate', password: 'agent password' } });
  expect(accepted.statusCode).toBe(200);
  const userId = accepted.json().user.id as string;
  const bearer = accepted.json().session.access_token as string;
  return { userId, token: bearer, call: (method: 'GET' | 'POST', url: string, payload?: unknown) => owner.call(method, url, payload, bearer) };
}

async function webhook(integrationId: number, payload: Record<string, unknown>) {
  const body = JSON.stringify(payload);
  const res = await fetch(`${base}/api/webhook/msgplatform/${integrationId}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) } });
  expect(res.status).toBe(200);
}

let clients = 0;
/** A customer writes; resolves with the conversation once the list shows it. */
async function customerWrites(who: Company, integrationId: number, text: string, clientId = `client-${++clients}`) {
  await webhook(integrationId, { text, client_id: clientId, channel_id: 1, transport: 'telegram' });
  return settled(async () => {
    const list = (await who.call('GET', '/api/conversations?limit=200')).json().conversations as { id: string; customer: { clientId: string } }[];
    const found = list.find((c) => String(c.customer.clientId) === clientId);
    if (!found) throw new Error(`no conversation for ${clientId} yet`);
    return found;
  });
}

/** The read models this suite waits for settle within 10 s. */
const settled = <T>(check: () => Promise<T>) => eventually(check, 10_000, 50);

const ids = (res: { json(): { conversations: { id: string }[] } }) => res.json().conversations.map((c) => c.id);

beforeAll(async () => {
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '0' });
  base = await server.listen(0, '127.0.0.1');
  acme = await signUp(server, 'Inbox Co');
  other = await signUp(server, 'Other Co');
  acmeIntegration = (await acme.call('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret: SECRET })).json().integration.id;
  otherIntegration = (await other.call('POST', '/api/integrations', { name: 'Theirs', connectorType: 'msgplatform', webhookSecret: SECRET })).json().integration.id;
});
afterAll(async () => {
  await server?.close();
});

describe('assignment', () => {
  it('a conversation is assigned to a teammate, shows in their "Mine" and leaves "Unassigned"; unassign puts it back', async () => {
    const bob = await addTeammate(acme);
    const c = await customerWrites(acme, acmeIntegration, 'where is my order?');
    expect(ids(await acme.call('GET', '/api/conversations?view=unassigned&limit=200'))).toContain(c.id);

    const assigned = await acme.call('POST', `/api/conversations/${c.id}/assign`, { assigneeId: bob.userId });
    expect(assigned.statusCode).toBe(200);
    expect(assigned.json().conversation.assigneeId).toBe(bob.userId);
    expect(ids(await bob.call('GET', '/api/conversations?view=mine'))).toContain(c.id);
    expect(ids(await acme.call('GET', '/api/conversations?view=mine'))).not.toContain(c.id);
    expect(ids(await acme.call('GET', '/api/conversations?view=unassigned&limit=200'))).not.toContain(c.id);

    // Assigning the owner again is idempotent: 200, nothing recorded.
    const before = (await acme.call('GET', `/api/conversations/${c.id}/events`)).json().events.length;
    expect((await acme.call('POST', `/api/conversations/${c.id}/assign`, { assigneeId: bob.userId })).statusCode).toBe(200);
    expect((await acme.call('GET', `/api/conversations/${c.id}/events`)).json().events).toHaveLength(before);

    const unassigned = await bob.call('POST', `/api/conversations/${c.id}/unassign`);
    expect(unassigned.json().conversation.assigneeId).toBeNull();
    expect(ids(await bob.call('GET', '/api/conversations?view=mine'))).not.toContain(c.id);
    const events = (await acme.call('GET', `/api/conversations/${c.id}/events`)).json().events as { type: string; data: Record<string, unknown> }[];
    expect(events.filter((e) => e.type.startsWith('Conversation') && e.type !== 'ConversationStarted')).toEqual([
      expect.objectContaining({ type: 'ConversationAssigned', data: expect.objectContaining({ assigneeId: bob.userId, previousAssigneeId: null, by: `user:${acme.user.id}` }) }),
      expect.objectContaining({ type: 'ConversationUnassigned', data: expect.objectContaining({ previousAssigneeId: bob.userId, by: `user:${bob.userId}` }) }),
    ]);
  });

  it("assigning to another company's user, or to no user, is refused with 400 and records nothing", async () => {
    const c = await customerWrites(acme, acmeIntegration, 'hello');
    for (const assigneeId of [other.user.id, randomUUID()]) {
      const res = await acme.call('POST', `/api/conversations/${c.id}/assign`, { assigneeId });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'assigneeId is not a user of this company' } });
    }
    expect((await acme.call('POST', `/api/conversations/${c.id}/assign`, { assigneeId: 'me' })).statusCode).toBe(400);
    const events = (await acme.call('GET', `/api/conversations/${c.id}/events`)).json().events as { type: string }[];
    expect(events.map((e) => e.type)).not.toContain('ConversationAssigned');
  });

  it('a removed teammate can no longer be assigned', async () => {
    const c = await customerWrites(acme, acmeIntegration, 'hello again');
    const carol = await addTeammate(acme);
    expect((await acme.call('POST', `/api/conversations/${c.id}/assign`, { assigneeId: carol.userId })).statusCode).toBe(200);
    expect((await acme.call('DELETE' as 'POST', `/api/team/${carol.userId}`)).statusCode).toBe(204);
    const res = await acme.call('POST', `/api/conversations/${c.id}/assign`, { assigneeId: carol.userId });
    expect(res.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'assigneeId is not a user of this company' } });
  });

  it("given conversations assigned to a teammate, when the teammate is removed, then they return to Unassigned, each with an event naming who had it", async () => {
    const dave = await addTeammate(acme);
    const open = await customerWrites(acme, acmeIntegration, 'still waiting');
    const resolved = await customerWrites(acme, acmeIntegration, 'thanks, solved');
    for (const c of [open, resolved]) expect((await acme.call('POST', `/api/conversations/${c.id}/assign`, { assigneeId: dave.userId })).statusCode).toBe(200);
    expect((await acme.call('POST', `/api/conversations/${resolved.id}/close`, { resolution: 'done' })).statusCode).toBe(200);

    expect((await acme.call('DELETE' as 'POST', `/api/team/${dave.userId}`)).statusCode).toBe(204);

    expect(ids(await acme.call('GET', '/api/conversations?view=unassigned&limit=200'))).toContain(open.id);
    for (const c of [open, resolved]) {
      expect((await acme.call('GET', `/api/conversations/${c.id}`)).json().conversation.assigneeId, c.id).toBeNull();
      const events = (await acme.call('GET', `/api/conversations/${c.id}/events`)).json().events as { type: string; data: Record<string, unknown> }[];
      expect(events.filter((e) => e.type === 'ConversationUnassigned')).toEqual([
        expect.objectContaining({ data: expect.objectContaining({ previousAssigneeId: dave.userId, by: `user:${acme.user.id}` }) }),
      ]);
    }
    // Reopened, the resolved one is nobody's yet: back in Unassigned, not with the removed teammate.
    expect((await acme.call('POST', `/api/conversations/${resolved.id}/reopen`)).statusCode).toBe(200);
    expect(ids(await acme.call('GET', '/api/conversations?view=unassigned&limit=200'))).toContain(resolved.id);
  });

  it("another company's conversation is 404 for every action and never in a view", async () => {
    const theirs = await customerWrites(other, otherIntegration, 'I need a human');
    await other.call('POST', `/api/conversations/${theirs.id}/assign`, { assigneeId: other.user.id });
    for (const [method, url, body] of [
      ['POST', 'assign', { assigneeId: acme.user.id }],
      ['POST', 'unassign', undefined],
      ['POST', 'read', undefined],
      ['POST', 'close', { resolution: 'x' }],
      ['GET', '', undefined],
    ] as const) {
      const res = await acme.call(method, `/api/conversations/${theirs.id}${url ? `/${url}` : ''}`, body);
      expect(res.statusCode, url).toBe(404);
    }
    for (const view of ['mine', 'unassigned', 'needs_human']) {
      expect(ids(await acme.call('GET', `/api/conversations?view=${view}&limit=200`)), view).not.toContain(theirs.id);
    }
    await settled(async () => expect(ids(await other.call('GET', '/api/conversations?view=needs_human'))).toContain(theirs.id));
  });

  it('two teammates assigning at once: both succeed in order, and the state matches the last event', async () => {
    const [ann, bob] = [await addTeammate(acme), await addTeammate(acme)];
    const c = await customerWrites(acme, acmeIntegration, 'race');
    const url = `${base}/api/conversations/${c.id}/assign`;
    const send = (who: { userId: string }, token: string) =>
      fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ assigneeId: who.userId }) });
    const [annToken, bobToken] = [ann.token, bob.token];
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? send(ann, bobToken) : send(bob, annToken))));
    for (const r of results) expect([200, 409]).toContain(r.status);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(0);

    const events = ((await acme.call('GET', `/api/conversations/${c.id}/events`)).json().events as { type: string; data: { assigneeId: string; previousAssigneeId: string | null } }[]).filter(
      (e) => e.type === 'ConversationAssigned',
    );
    // Each assignment names the owner before it: a consistent chain, no lost update.
    expect(events.length).toBeGreaterThan(0);
    events.forEach((e, i) => expect(e.data.previousAssigneeId).toBe(i === 0 ? null : events[i - 1]!.data.assigneeId));
    const detail = (await acme.call('GET', `/api/conversations/${c.id}`)).json().conversation;
    expect(detail.assigneeId).toBe(events.at(-1)!.data.assigneeId);
  });
});

describe('the handoff queue ("Needs human")', () => {
  it('a customer asking for a human waits in "Needs human" with the reason and since when; a teammate replies and it leaves', async () => {
    const c = await customerWrites(acme, acmeIntegration, 'Can I speak to a human please?');
    const queued = await settled(async () => {
      const list = (await acme.call('GET', '/api/conversations?view=needs_human&limit=200')).json().conversations as { id: string; handoff: unknown; session: unknown }[];
      const found = list.find((x) => x.id === c.id);
      if (!found) throw new Error('not queued yet');
      return found;
    });
    expect(queued.handoff).toEqual({ reason: 'customer_request', detail: null, since: expect.any(String) });

    expect((await acme.call('POST', `/api/conversations/${c.id}/assign`, { assigneeId: acme.user.id })).statusCode).toBe(200);
    expect((await acme.call('POST', `/api/conversations/${c.id}/messages`, { text: 'Hi, I am here.' })).statusCode).toBe(202);
    expect(ids(await acme.call('GET', '/api/conversations?view=needs_human&limit=200'))).not.toContain(c.id);
    const after = (await acme.call('GET', `/api/conversations/${c.id}`)).json().conversation;
    expect(after.handoff).toBeNull();
    expect(ids(await acme.call('GET', '/api/conversations?view=mine'))).toContain(c.id);
  });

  it('the platform transferring the dialog puts it in the queue; a manual pause does not', async () => {
    const transferred = await customerWrites(acme, acmeIntegration, 'hello there', 'transfer-1');
    await webhook(acmeIntegration, { text: 'more', client_id: 'transfer-1', channel_id: 1, transport: 'telegram', request_id: 55001 });
    await webhook(acmeIntegration, { hook_type: 'dialog_transferred', request_id: 55001, dialog_id: 66001 });
    const paused = await customerWrites(acme, acmeIntegration, 'hello too');
    await acme.call('POST', `/api/conversations/${paused.id}/pause`);
    await settled(async () => expect(ids(await acme.call('GET', '/api/conversations?view=needs_human&limit=200'))).toContain(transferred.id));
    const queue = (await acme.call('GET', '/api/conversations?view=needs_human&limit=200')).json().conversations as { id: string; handoff: { reason: string } }[];
    expect(queue.find((x) => x.id === transferred.id)!.handoff.reason).toBe('dialog_transferred');
    expect(queue.map((x) => x.id)).not.toContain(paused.id);
  });

  it('resolve = close with a resolution: out of the queue and of the open views, the resolution kept; reopen brings it back to its owner', async () => {
    const c = await customerWrites(acme, acmeIntegration, 'real person please');
    await settled(async () => expect(ids(await acme.call('GET', '/api/conversations?view=needs_human&limit=200'))).toContain(c.id));
    await acme.call('POST', `/api/conversations/${c.id}/assign`, { assigneeId: acme.user.id });
    const resolved = await acme.call('POST', `/api/conversations/${c.id}/close`, { resolution: 'Refund issued' });
    expect(resolved.statusCode).toBe(200);
    expect(resolved.json().conversation).toMatchObject({ resolution: 'Refund issued', handoff: null, session: { state: 'closed' } });
    for (const view of ['mine', 'needs_human']) expect(ids(await acme.call('GET', `/api/conversations?view=${view}&limit=200`)), view).not.toContain(c.id);
    expect((await acme.call('POST', `/api/conversations/${c.id}/close`, { resolution: '' })).statusCode).toBe(400);
    const reopened = await acme.call('POST', `/api/conversations/${c.id}/reopen`);
    expect(reopened.json().conversation).toMatchObject({ resolution: null, assigneeId: acme.user.id });
    expect(ids(await acme.call('GET', '/api/conversations?view=mine&limit=200'))).toContain(c.id);
    // Close without a body still works as before.
    const plainClose = await acme.call('POST', `/api/conversations/${c.id}/close`);
    expect(plainClose.json()).toMatchObject({ conversation: { resolution: null, session: { state: 'closed' } } });
  });
});

describe('unread counts', () => {
  it("customer messages since a teammate last read it, per teammate; opening marks read (once) and per-view counts follow", async () => {
    const carol = await addTeammate(acme);
    const c = await customerWrites(acme, acmeIntegration, 'first');
    await webhook(acmeIntegration, { text: 'second', client_id: String(c.customer.clientId), channel_id: 1, transport: 'telegram' });
    await settled(async () => expect((await acme.call('GET', `/api/conversations/${c.id}`)).json().conversation.unread).toBe(2));

    const read = await acme.call('POST', `/api/conversations/${c.id}/read`);
    expect(read.json().conversation.unread).toBe(0);
    // Carol has not opened it: still 2 for her.
    expect((await carol.call('GET', `/api/conversations/${c.id}`)).json().conversation.unread).toBe(2);
    // Opening it again records nothing.
    const markers = async () => (await server.adapters.eventStore.readStream(`conversationread-${c.id}-${acme.user.id}`)).length;
    expect(await markers()).toBe(1);
    await acme.call('POST', `/api/conversations/${c.id}/read`);
    expect(await markers()).toBe(1);

    await webhook(acmeIntegration, { text: 'third', client_id: String(c.customer.clientId), channel_id: 1, transport: 'telegram' });
    await settled(async () => {
      const list = (await acme.call('GET', '/api/conversations?view=unassigned&limit=200')).json().conversations as { id: string; unread: number }[];
      expect(list.find((x) => x.id === c.id)?.unread).toBe(1);
    });
    const views = (await acme.call('GET', '/api/conversations/views')).json().views;
    expect(views.unassigned).toMatchObject({ count: expect.any(Number), unread: expect.any(Number), unreadCapped: false });
    expect(views.unassigned.unread).toBeGreaterThanOrEqual(1);
    expect(views.unassigned.count).toBeGreaterThanOrEqual(views.unassigned.unread);
    await acme.call('POST', `/api/conversations/${c.id}/read`);
    const after = (await acme.call('GET', '/api/conversations/views')).json().views;
    expect(after.unassigned.unread).toBe(views.unassigned.unread - 1);
  });
});

describe('views: filters and keyset pagination', () => {
  it('pages through a view without repeats or gaps; needs_human is longest-waiting first', async () => {
    const fresh = await signUp(server, 'Paging Co');
    const integration = (await fresh.call('POST', '/api/integrations', { name: 'P', connectorType: 'msgplatform', webhookSecret: SECRET })).json().integration.id as number;
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await customerWrites(fresh, integration, 'talk to a human', `page-${i}`)).id);
    await settled(async () => expect((await fresh.call('GET', '/api/conversations/views')).json().views.needs_human.count).toBe(5));
    const seen: string[] = [];
    const since: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { conversations: { id: string; handoff: { since: string } }[]; nextCursor: string | null } = (await fresh.call('GET', `/api/conversations?view=needs_human&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).json();
      seen.push(...page.conversations.map((c: { id: string }) => c.id));
      since.push(...page.conversations.map((c: { handoff: { since: string } }) => c.handoff.since));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(made);
    expect([...since].sort()).toEqual(since);
    expect((await fresh.call('GET', '/api/conversations?view=everything')).statusCode).toBe(400);
    expect(ids(await fresh.call('GET', '/api/conversations?view=unassigned&state=closed'))).toEqual([]);
  });
});

describe('the inbox row', () => {
  it("given a customer's message and an operator's answer, when the list is read, then each row carries the newest message's author and first words", async () => {
    const c = await customerWrites(acme, acmeIntegration, 'My parcel never\narrived, can you check?');
    const row = () => acme.call('GET', '/api/conversations?limit=200').then((res) => (res.json().conversations as { id: string; lastMessage: unknown }[]).find((x) => x.id === c.id));
    expect((await row())!.lastMessage).toEqual({ author: 'customer', text: 'My parcel never arrived, can you check?' });
    expect((await acme.call('POST', `/api/conversations/${c.id}/messages`, { text: 'Checking it now.' })).statusCode).toBe(202);
    await settled(async () => expect((await row())!.lastMessage).toEqual({ author: 'operator', text: 'Checking it now.' }));
  });
});

describe('OpenAPI', () => {
  it('documents the new routes and the view parameter', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, Record<string, { parameters?: { name: string }[] }>> };
    for (const path of ['/api/conversations/{id}/assign', '/api/conversations/{id}/unassign', '/api/conversations/{id}/read', '/api/conversations/views']) expect(Object.keys(doc.paths), path).toContain(path);
    expect(doc.paths['/api/conversations']!.get!.parameters!.map((p) => p.name)).toContain('view');
  });
});
