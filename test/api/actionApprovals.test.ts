import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVAL_EXPIRED_REASON } from '../../src/domain/conversations/actionApprovals.js';
import { signUp, type Company } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

let server: TestServer;
let acme: Company;
let globex: Company;

beforeAll(async () => {
  server = await startTestServer({ ACTION_EXPIRY_SWEEP_INTERVAL_MS: '100' });
  acme = await signUp(server, 'Acme');
  globex = await signUp(server, 'Globex');
});
afterAll(async () => {
  await server?.close();
});

const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

/** A teammate of `owner`'s company with `role`, signed in: their `call`. */
async function teammate(owner: Company, role: 'admin' | 'agent') {
  const invited = await owner.call('POST', '/api/team/invitations', { email: uniqueEmail(`approver-${role}`), role });
  const url = invited.json().invitationUrl as string;
  const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
  const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: role, password: 'teammate password' } });
  expect(accepted.statusCode).toBe(200);
  const bearer = accepted.json().session.access_token as string;
  return { userId: accepted.json().user.id as string, call: (method: 'GET' | 'POST', url: string, payload?: unknown) => owner.call(method, url, payload, bearer) };
}

/**
 * Given a conversation whose agent asked to call `cancel_order` and waits: for a teammate's approval (approve) or
 * the customer's yes (confirm), until `expiresAt`. Appended as the reply worker records them.
 */
async function waitingCall(co: Company, options: { mode?: 'approve' | 'confirm'; expiresAt?: string; approverRoles?: string[] | null } = {}, target: TestServer = server) {
  const { mode = 'approve', expiresAt = inMinutes(60), approverRoles = null } = options;
  const [conversationId, sessionId, callId, replyId, askedIn] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const now = new Date().toISOString();
  const metadata = { companyId: co.company.companyId };
  const wait =
    mode === 'approve'
      ? { type: 'ActionApprovalRequested', data: { callId, messageId: askedIn, holdingReply: 'A teammate will approve this shortly.', approverRoles, expiresAt, at: now } }
      : { type: 'ActionConfirmationAsked', data: { callId, messageId: askedIn, prompt: 'Cancel order 4411? Reply yes to confirm.', expiresAt, at: now } };
  const events = [
    { type: 'ConversationStarted', data: { conversationId, companyId: co.company.companyId, integrationId: 999_001, connectorType: 'msgplatform', customer: { clientId: 'client-1', channelId: null, transport: 'telegram' }, stageId: null, at: now } },
    { type: 'AiSessionOpened', data: { sessionId, at: now } },
    { type: 'ActionCallRequested', data: { callId, replyId, actionId: randomUUID(), actionName: 'cancel_order', mode, arguments: { order_id: '4411', customer: '[platform.clientId]' }, at: now } },
    wait,
  ];
  const appended = await target.adapters.eventStore.append(`conversation-${conversationId}`, events.map((e) => ({ id: randomUUID(), ...e, metadata })), 'no_stream');
  await target.projections.waitForPosition(appended.position);
  return { conversationId, callId };
}

const typesOf = async (conversationId: string) => (await server.adapters.eventStore.readStream(`conversation-${conversationId}`)).map((e) => e.type);
const decide = (caller: { call: Company['call'] | ((m: 'GET' | 'POST', u: string, p?: unknown) => ReturnType<Company['call']>) }, conversationId: string, callId: string, decision: 'approve' | 'refuse', body?: unknown) =>
  (caller.call as (m: 'POST', u: string, p?: unknown) => ReturnType<Company['call']>)('POST', `/api/conversations/${conversationId}/action-calls/${callId}/${decision}`, body);

describe('a call waiting for approval', () => {
  it('is visible in the conversation (what it will call, with the redacted arguments) and in the inbox row', async () => {
    const { conversationId, callId } = await waitingCall(acme);
    const detail = await acme.call('GET', `/api/conversations/${conversationId}`);
    expect(detail.statusCode).toBe(200);
    expect(detail.json().conversation.pendingAction).toMatchObject({
      callId,
      actionName: 'cancel_order',
      mode: 'approve',
      arguments: { order_id: '4411', customer: '[platform.clientId]' },
      holdingReply: 'A teammate will approve this shortly.',
      approverRoles: null,
    });
    const list = await acme.call('GET', '/api/conversations');
    expect(list.json().conversations.find((c: { id: string }) => c.id === conversationId).pendingAction).toMatchObject({ callId, mode: 'approve' });
  });

  it('any teammate approves it: ActionCallApproved with who, nothing waits any more; approving again is a no-op, refusing then 409', async () => {
    const { conversationId, callId } = await waitingCall(acme);
    const agent = await teammate(acme, 'agent');
    const approved = await decide(agent, conversationId, callId, 'approve');
    expect(approved.statusCode).toBe(200);
    expect(approved.json().conversation.pendingAction).toBeNull();
    const events = await server.adapters.eventStore.readStream(`conversation-${conversationId}`);
    expect(events.filter((e) => e.type === 'ActionCallApproved').map((e) => e.data)).toEqual([expect.objectContaining({ callId, by: `user:${agent.userId}` })]);
    expect((await decide(agent, conversationId, callId, 'approve')).statusCode).toBe(200);
    expect((await typesOf(conversationId)).filter((t) => t === 'ActionCallApproved')).toHaveLength(1);
    const late = await decide(acme, conversationId, callId, 'refuse', { reason: 'no' });
    expect(late.statusCode).toBe(409);
    expect(late.json().error).toMatchObject({ code: 'CONFLICT', message: 'This action call was already approved' });
  });

  it('refused with a reason: ActionCallRefused records it', async () => {
    const { conversationId, callId } = await waitingCall(acme);
    const refused = await decide(acme, conversationId, callId, 'refuse', { reason: 'The order has shipped already' });
    expect(refused.statusCode).toBe(200);
    const events = await server.adapters.eventStore.readStream(`conversation-${conversationId}`);
    expect(events.find((e) => e.type === 'ActionCallRefused')?.data).toMatchObject({ callId, by: `user:${acme.user.id}`, reason: 'The order has shipped already' });
  });

  it('an action naming its approver roles: an agent gets 403, an admin decides', async () => {
    const { conversationId, callId } = await waitingCall(acme, { approverRoles: ['owner', 'admin'] });
    const agent = await teammate(acme, 'agent');
    const forbidden = await decide(agent, conversationId, callId, 'approve');
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.code).toBe('FORBIDDEN');
    const admin = await teammate(acme, 'admin');
    expect((await decide(admin, conversationId, callId, 'approve')).statusCode).toBe(200);
  });

  it("another company's conversation or call is 404; so is an unknown call, and a call that waits for the customer's yes is 409", async () => {
    const { conversationId, callId } = await waitingCall(acme);
    expect((await decide(globex, conversationId, callId, 'approve')).statusCode).toBe(404);
    expect((await decide(globex, conversationId, callId, 'refuse')).statusCode).toBe(404);
    const theirs = await waitingCall(globex);
    expect((await decide(acme, conversationId, theirs.callId, 'approve')).statusCode).toBe(404);
    expect((await decide(acme, theirs.conversationId, theirs.callId, 'approve')).statusCode).toBe(404);
    expect((await decide(acme, conversationId, 'not-a-uuid', 'approve')).statusCode).toBe(404);
    expect((await typesOf(theirs.conversationId)).includes('ActionCallApproved')).toBe(false);
    const confirm = await waitingCall(acme, { mode: 'confirm' });
    expect((await decide(acme, confirm.conversationId, confirm.callId, 'approve')).statusCode).toBe(409);
  });
});

describe('the clock', () => {
  it('an approval nobody decides expires on time into a handoff with the reason; a late approval is then 409', async () => {
    const { conversationId, callId } = await waitingCall(acme, { expiresAt: new Date(Date.now() + 300).toISOString() });
    const detail = await eventually(async () => {
      const res = await acme.call('GET', `/api/conversations/${conversationId}`);
      expect(res.json().conversation.handoff).not.toBeNull();
      return res.json().conversation;
    }, 8000, 100);
    expect(detail.handoff).toMatchObject({ reason: 'ai_unanswered', detail: APPROVAL_EXPIRED_REASON });
    expect(detail.pendingAction).toBeNull();
    expect(detail.session.state).toBe('paused');
    const types = await typesOf(conversationId);
    // Handed off like any handoff (the summary for whoever takes it follows).
    expect(types.slice(types.indexOf('ActionApprovalExpired'), types.indexOf('ActionApprovalExpired') + 2)).toEqual(['ActionApprovalExpired', 'AiSessionPaused']);
    const late = await decide(acme, conversationId, callId, 'approve');
    expect(late.statusCode).toBe(409);
  });

  it('a confirmation the customer leaves unanswered is declined for silence', async () => {
    const { conversationId, callId } = await waitingCall(acme, { mode: 'confirm', expiresAt: new Date(Date.now() + 200).toISOString() });
    const declined = await eventually(async () => {
      const event = (await server.adapters.eventStore.readStream(`conversation-${conversationId}`)).find((e) => e.type === 'ActionCallDeclined');
      expect(event).toBeDefined();
      return event!;
    }, 8000, 100);
    expect(declined.data).toMatchObject({ callId, why: 'silence' });
    expect(declined.metadata.actor).toBe('system:action-expiry');
  });

  it('a wait not yet due is left alone', async () => {
    const { conversationId } = await waitingCall(acme, { expiresAt: inMinutes(5) });
    await new Promise((r) => setTimeout(r, 500));
    expect(await typesOf(conversationId)).not.toContain('ActionApprovalExpired');
  });
});

describe('after a restart', () => {
  it('an approval that fell due while the service was down expires once it is back: the deadline lives in the read model', async () => {
    const first = await startTestServer({ ACTION_EXPIRY_SWEEP_INTERVAL_MS: '100' });
    const owner = await signUp(first, 'Restart Inc');
    const { conversationId } = await waitingCall(owner, { expiresAt: new Date(Date.now() + 1500).toISOString() }, first);
    await first.stop();
    await new Promise((r) => setTimeout(r, 1600));
    const second = await startTestServer({ ACTION_EXPIRY_SWEEP_INTERVAL_MS: '100' }, undefined, { dataDir: first.dataDir });
    try {
      await eventually(async () => {
        const types = (await second.adapters.eventStore.readStream(`conversation-${conversationId}`)).map((e) => e.type);
        expect(types.filter((t) => t === 'ActionApprovalExpired')).toHaveLength(1);
      }, 8000, 100);
    } finally {
      await second.close();
    }
  });
});
