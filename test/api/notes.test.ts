import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { signUp } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * Internal notes with @mentions, and in-app notifications (assigned, mentioned, handoff waiting), through the
 * HTTP API of a real server: tenant isolation (404 across companies) and the role checks.
 */

const SECRET = 'whsec_notes_0123456789abcdef';
let server: TestServer;
let base: string;
type Company = Awaited<ReturnType<typeof signUp>>;
let acme: Company;
let other: Company;
let acmeIntegration: number;
type Teammate = Awaited<ReturnType<typeof addTeammate>>;
let bella: Teammate;

async function addTeammate(owner: Company, name: string) {
  const invited = await owner.call('POST', '/api/team/invitations', { email: uniqueEmail('teammate'), role: 'agent' });
  expect(invited.statusCode).toBe(201);
  const url = invited.json().invitationUrl as string;
  const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
  const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name, password: 'agent password' } });
  expect(accepted.statusCode).toBe(200);
  const bearer = accepted.json().session.access_token as string;
  return { userId: accepted.json().user.id as string, call: (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => owner.call(method, url, payload, bearer) };
}

let clients = 0;
async function customerWrites(text: string) {
  const clientId = `notes-client-${++clients}`;
  const body = JSON.stringify({ text, client_id: clientId, channel_id: 1, transport: 'telegram' });
  const res = await fetch(`${base}/api/webhook/msgplatform/${acmeIntegration}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) } });
  expect(res.status).toBe(200);
  return eventually(async () => {
    const list = (await acme.call('GET', '/api/conversations?limit=200')).json().conversations as { id: string; customer: { clientId: string } }[];
    const found = list.find((c) => String(c.customer.clientId) === clientId);
    if (!found) throw new Error(`no conversation for ${clientId} yet`);
    return found;
  }, 10_000, 50);
}

type Notification = { id: string; kind: string; conversationId: string; byUserId: string | null; excerpt: string | null; read: boolean };
const feed = async (who: { call: (method: 'GET', url: string) => ReturnType<Company['call']> }, query = '') => {
  const res = await who.call('GET', `/api/me/notifications/feed${query}`);
  expect(res.statusCode).toBe(200);
  return res.json() as { notifications: Notification[]; unreadCount: number };
};

beforeAll(async () => {
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '0' });
  base = await server.listen(0, '127.0.0.1');
  acme = await signUp(server, 'Notes Co');
  other = await signUp(server, 'Other Notes Co');
  acmeIntegration = (await acme.call('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret: SECRET })).json().integration.id;
  bella = await addTeammate(acme, 'Bella Quinn');
});
afterAll(async () => {
  await server?.close();
});

describe('internal notes', () => {
  it('a note shows in the timeline as a note, mentions resolve to teammates, and the mentioned teammate is notified', async () => {
    const c = await customerWrites('my parcel is late');
    const res = await acme.call('POST', `/api/conversations/${c.id}/notes`, { text: '@Bella can you check the courier? (not @nobody)' });
    expect(res.statusCode).toBe(201);
    expect(res.json().note).toMatchObject({ author: 'note', text: '@Bella can you check the courier? (not @nobody)', note: { authorId: acme.user.id, mentions: [bella.userId] } });

    const detail = (await acme.call('GET', `/api/conversations/${c.id}`)).json();
    const note = detail.messages.find((m: { author: string }) => m.author === 'note');
    expect(note.text).toContain('check the courier');
    // A note is no message of the customer's conversation: the inbox row's preview stays the customer's.
    expect(detail.conversation.lastMessage).toEqual({ author: 'customer', text: 'my parcel is late' });

    const bellas = await eventually(async () => {
      const f = await feed(bella);
      const mention = f.notifications.find((n) => n.kind === 'mentioned' && n.conversationId === c.id);
      if (!mention) throw new Error('no mention yet');
      return { f, mention };
    }, 10_000, 50);
    expect(bellas.mention).toMatchObject({ byUserId: acme.user.id, read: false, excerpt: '@Bella can you check the courier? (not @nobody)' });
    expect(bellas.f.unreadCount).toBeGreaterThanOrEqual(1);
    // The author is not notified of their own note.
    expect((await feed(acme)).notifications.some((n) => n.kind === 'mentioned' && n.conversationId === c.id)).toBe(false);
  });

  it('an Idempotency-Key makes a retried note record nothing; the same key with another text is refused', async () => {
    const c = await customerWrites('retry please');
    const headersCall = (text: string) =>
      server.app.inject({ method: 'POST', url: `/api/conversations/${c.id}/notes`, payload: { text }, headers: { authorization: `Bearer ${acme.bearer}`, 'idempotency-key': 'note-key-1' } });
    const first = await headersCall('only once');
    const again = await headersCall('only once');
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json().note.id).toBe(first.json().note.id);
    const notes = (await acme.call('GET', `/api/conversations/${c.id}`)).json().messages.filter((m: { author: string }) => m.author === 'note');
    expect(notes).toHaveLength(1);
    const reused = await headersCall('something else');
    expect(reused.statusCode).toBe(422);
    expect(reused.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('any role writes notes; the text is bounded; another company\'s conversation is 404', async () => {
    const c = await customerWrites('hello');
    expect((await bella.call('POST', `/api/conversations/${c.id}/notes`, { text: 'agents write notes too' })).statusCode).toBe(201);
    const tooLong = await acme.call('POST', `/api/conversations/${c.id}/notes`, { text: 'x'.repeat(4001) });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().error.code).toBe('VALIDATION_ERROR');
    const theirs = await other.call('POST', `/api/conversations/${c.id}/notes`, { text: 'peeking' });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().error.code).toBe('NOT_FOUND');
    expect((await acme.call('POST', '/api/conversations/not-a-uuid/notes', { text: 'x' })).statusCode).toBe(404);
  });

  it('sharing notes with the AI is off by default; owners and admins turn it on, an agent may not (403)', async () => {
    expect((await acme.call('GET', '/api/settings/notes')).json()).toEqual({ notes: { shareWithAi: false } });
    const denied = await bella.call('PUT', '/api/settings/notes', { shareWithAi: true });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.code).toBe('FORBIDDEN');
    expect((await acme.call('PUT', '/api/settings/notes', { shareWithAi: true })).json()).toEqual({ notes: { shareWithAi: true } });
    expect((await other.call('GET', '/api/settings/notes')).json()).toEqual({ notes: { shareWithAi: false } });
    await acme.call('PUT', '/api/settings/notes', { shareWithAi: false });
  });
});

describe('in-app notifications', () => {
  it('assigning a conversation notifies the assignee (not one who takes it themself); marking read lowers the count', async () => {
    const c = await customerWrites('assign me');
    expect((await acme.call('POST', `/api/conversations/${c.id}/assign`, { assigneeId: bella.userId })).statusCode).toBe(200);
    const assigned = await eventually(async () => {
      const n = (await feed(bella, '?unread=true')).notifications.find((x) => x.kind === 'assigned' && x.conversationId === c.id);
      if (!n) throw new Error('not notified yet');
      return n;
    }, 10_000, 50);
    expect(assigned.byUserId).toBe(acme.user.id);

    const before = (await feed(bella)).unreadCount;
    const marked = await bella.call('POST', '/api/me/notifications/read', { ids: [assigned.id] });
    expect(marked.statusCode).toBe(200);
    expect(marked.json().unreadCount).toBe(before - 1);
    expect((await feed(bella, '?unread=true')).notifications.some((n) => n.id === assigned.id)).toBe(false);
    expect((await feed(bella)).notifications.find((n) => n.id === assigned.id)?.read).toBe(true);

    // Taking a conversation yourself is no news.
    const mine = await customerWrites('mine');
    await acme.call('POST', `/api/conversations/${mine.id}/assign`, { assigneeId: acme.user.id });
    await acme.call('POST', `/api/conversations/${mine.id}/notes`, { text: 'sync point' });
    expect((await feed(acme)).notifications.some((n) => n.kind === 'assigned' && n.conversationId === mine.id)).toBe(false);
  });

  it('a conversation handed to people notifies the owners and admins while nobody has it', async () => {
    const c = await customerWrites('I want to talk to a human');
    const waiting = await eventually(async () => {
      const n = (await feed(acme)).notifications.find((x) => x.kind === 'handoff_waiting' && x.conversationId === c.id);
      if (!n) throw new Error('not notified yet');
      return n;
    }, 10_000, 50);
    expect(waiting.byUserId).toBeNull();
    // An agent is not a manager: nobody gave it to Bella.
    expect((await feed(bella)).notifications.some((n) => n.kind === 'handoff_waiting' && n.conversationId === c.id)).toBe(false);
  });

  it("a teammate sees and marks only their own: another teammate's or company's notification is 404, nothing marked", async () => {
    const c = await customerWrites('isolation');
    await acme.call('POST', `/api/conversations/${c.id}/notes`, { text: 'hey @bella' });
    const mention = await eventually(async () => {
      const n = (await feed(bella)).notifications.find((x) => x.kind === 'mentioned' && x.conversationId === c.id);
      if (!n) throw new Error('not notified yet');
      return n;
    }, 10_000, 50);
    expect((await feed(other)).notifications).toEqual([]);
    const byOther = await other.call('POST', '/api/me/notifications/read', { ids: [mention.id] });
    expect(byOther.statusCode).toBe(404);
    expect(byOther.json().error.code).toBe('NOT_FOUND');
    expect((await acme.call('POST', '/api/me/notifications/read', { ids: [mention.id] })).statusCode).toBe(404);
    expect((await bella.call('POST', '/api/me/notifications/read', { ids: [mention.id, 'unknown-id'] })).statusCode).toBe(404);
    expect((await feed(bella)).notifications.find((n) => n.id === mention.id)?.read).toBe(false);
    expect((await bella.call('POST', '/api/me/notifications/read', { ids: [] })).statusCode).toBe(400);
  });
});
