import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOP_ACTIONS } from '../../src/infrastructure/metrics/actionCallMetrics.js';
import { acmeAndGlobex, type Company } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { samples, valueOf } from '../support/prometheus.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * The action log (GET /api/action-calls[/:callId]) and per-action analytics (GET /api/analytics/actions), read
 * from the action-call events recorded on conversations. The events are appended here as the reply loop records
 * them (src/domain/conversations/actionCalls.ts), so these tests hold whatever appends them.
 */

let server: TestServer;
let acme: Company;
let globex: Company;
const lookup = randomUUID();
const cancel = randomUUID();
const SECRET_TAIL = 'sk_live_never_in_the_log';

type Step = { type: string; data: Record<string, unknown> };
interface SeededCall {
  callId: string;
  conversationId: string;
}

/** One conversation of `c` with the given calls, each a list of steps after its request; waits until the log has them. */
async function conversationWithCalls(c: Company, day: string, calls: { actionId: string; actionName: string; mode: 'auto' | 'confirm' | 'approve'; then: (callId: string, at: (t: string) => string) => Step[] }[]): Promise<SeededCall[]> {
  const conversationId = randomUUID();
  const at = (t: string) => `${day}T${t}.000Z`;
  const steps: Step[] = [
    { type: 'ConversationStarted', data: { conversationId, companyId: c.company.companyId, integrationId: 1, connectorType: 'msgplatform', customer: { clientId: conversationId.slice(0, 8), channelId: null, transport: 'telegram' }, stageId: null, at: at('09:00:00') } },
  ];
  const seeded: SeededCall[] = [];
  calls.forEach((call, i) => {
    const callId = randomUUID();
    seeded.push({ callId, conversationId });
    const minute = `09:${String(10 + i).padStart(2, '0')}`;
    steps.push({
      type: 'ActionCallRequested',
      data: { callId, replyId: randomUUID(), actionId: call.actionId, actionName: call.actionName, mode: call.mode, arguments: { order_id: '4411', customer: '[platform.clientId]' }, at: at(`${minute}:00`) },
    });
    steps.push(...call.then(callId, (t) => at(`${minute}:${t}`)));
  });
  const appended = await server.adapters.eventStore.append(`conversation-${conversationId}`, steps.map((s) => ({ id: randomUUID(), ...s, metadata: { companyId: c.company.companyId } })), 'no_stream');
  await server.projections.waitForPosition(appended.position);
  return seeded;
}

const succeeded = (durationMs: number, response = '{"status":"shipped"}') => (callId: string, at: (t: string) => string): Step[] => [
  { type: 'ActionCallStarted', data: { callId, idempotencyKey: `idem-${callId}`, mocked: false, at: at('01') } },
  { type: 'ActionCallSucceeded', data: { callId, status: 200, durationMs, response, mocked: false, at: at('02') } },
];
const failed = (durationMs: number) => (callId: string, at: (t: string) => string): Step[] => [
  { type: 'ActionCallStarted', data: { callId, idempotencyKey: `idem-${callId}`, mocked: false, at: at('01') } },
  { type: 'ActionCallFailed', data: { callId, status: 503, durationMs, error: 'The endpoint answered 503', at: at('02') } },
];
const approvedBy = (userId: string, then: ReturnType<typeof succeeded>) => (callId: string, at: (t: string) => string): Step[] => [
  { type: 'ActionApprovalRequested', data: { callId, messageId: randomUUID(), holdingReply: 'One moment', approverRoles: null, expiresAt: at('59'), at: at('00') } },
  { type: 'ActionCallApproved', data: { callId, by: userId, at: at('00') } },
  ...then(callId, at),
];
const refusedBy = (userId: string) => (callId: string, at: (t: string) => string): Step[] => [
  { type: 'ActionApprovalRequested', data: { callId, messageId: randomUUID(), holdingReply: 'One moment', approverRoles: ['owner'], expiresAt: at('59'), at: at('00') } },
  { type: 'ActionCallRefused', data: { callId, by: userId, reason: 'Already shipped', at: at('03') } },
];
const expired = () => (callId: string, at: (t: string) => string): Step[] => [
  { type: 'ActionApprovalRequested', data: { callId, messageId: randomUUID(), holdingReply: 'One moment', approverRoles: null, expiresAt: at('30'), at: at('00') } },
  { type: 'ActionApprovalExpired', data: { callId, at: at('30') } },
];
const rejected = () => (callId: string, at: (t: string) => string): Step[] => [{ type: 'ActionCallRejected', data: { callId, error: 'order_id: must be digits', at: at('00') } }];
const pending = () => (): Step[] => [];

let first: SeededCall[];
let second: SeededCall[];
let globexCalls: SeededCall[];

beforeAll(async () => {
  server = await startTestServer();
  ({ acme, globex } = await acmeAndGlobex(server));
  const ann = acme.user.id as string;
  first = await conversationWithCalls(acme, '2026-03-10', [
    { actionId: lookup, actionName: 'order_status', mode: 'auto', then: succeeded(120) },
    { actionId: lookup, actionName: 'order_status', mode: 'auto', then: succeeded(300) },
    { actionId: lookup, actionName: 'order_status', mode: 'auto', then: failed(2000) },
    { actionId: cancel, actionName: 'cancel_order', mode: 'approve', then: approvedBy(ann, succeeded(800)) },
  ]);
  second = await conversationWithCalls(acme, '2026-03-11', [
    { actionId: cancel, actionName: 'cancel_order', mode: 'approve', then: refusedBy(ann) },
    { actionId: cancel, actionName: 'cancel_order', mode: 'approve', then: expired() },
    { actionId: lookup, actionName: 'order_status', mode: 'auto', then: rejected() },
    { actionId: lookup, actionName: 'order_status', mode: 'auto', then: succeeded(50, `{"note":"${'x'.repeat(2100)}${SECRET_TAIL}"}`) },
    { actionId: cancel, actionName: 'cancel_order', mode: 'approve', then: pending() },
  ]);
  globexCalls = await conversationWithCalls(globex, '2026-03-10', [{ actionId: randomUUID(), actionName: 'globex_lookup', mode: 'auto', then: succeeded(10) }]);
}, 60_000);
afterAll(() => server?.close());

const list = async (c: Company, query = '') => {
  const res = await c.call('GET', `/api/action-calls${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { calls: { callId: string; status: string; actionId: string; conversationId: string; [k: string]: unknown }[]; nextCursor: string | null };
};

describe('GET /api/action-calls: the company-wide action log', () => {
  it('lists every call of the company, the most recently requested first, with what, when, with what arguments, the result and who decided', async () => {
    const { calls } = await list(acme, '?limit=200');
    expect(calls.map((c) => c.callId)).toEqual([...second].reverse().concat([...first].reverse()).map((c) => c.callId));
    const approved = calls.find((c) => c.callId === first[3]!.callId)!;
    expect(approved).toMatchObject({
      actionId: cancel, actionName: 'cancel_order', mode: 'approve', status: 'succeeded', decidedBy: acme.user.id, httpStatus: 200, durationMs: 800,
      arguments: { order_id: '4411', customer: '[platform.clientId]' }, response: '{"status":"shipped"}', conversationId: first[0]!.conversationId,
      requestedAt: '2026-03-10T09:13:00.000Z', finishedAt: '2026-03-10T09:13:02.000Z',
    });
    expect(calls.find((c) => c.callId === second[0]!.callId)).toMatchObject({ status: 'refused', reason: 'Already shipped', decidedBy: acme.user.id });
    expect(calls.find((c) => c.callId === second[4]!.callId)).toMatchObject({ status: 'requested', finishedAt: null });
  });

  it('filters by action, by status and by conversation, alone or together', async () => {
    const byAction = await list(acme, `?actionId=${cancel}`);
    expect(byAction.calls.map((c) => c.callId).sort()).toEqual([first[3]!, second[0]!, second[1]!, second[4]!].map((c) => c.callId).sort());
    const failedOnes = await list(acme, '?status=failed');
    expect(failedOnes.calls.map((c) => c.callId)).toEqual([first[2]!.callId]);
    const inFirst = await list(acme, `?conversationId=${first[0]!.conversationId}`);
    expect(inFirst.calls.map((c) => c.callId)).toEqual([...first].reverse().map((c) => c.callId));
    const together = await list(acme, `?actionId=${lookup}&status=succeeded&conversationId=${second[0]!.conversationId}`);
    expect(together.calls.map((c) => c.callId)).toEqual([second[3]!.callId]);
    expect((await acme.call('GET', '/api/action-calls?status=done')).statusCode).toBe(400);
    expect((await acme.call('GET', '/api/action-calls?actionId=not-a-uuid')).statusCode).toBe(400);
  });

  it('pages with keyset cursors: every call once, in order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(acme, `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.calls.length).toBeLessThanOrEqual(3);
      seen.push(...page.calls.map((c) => c.callId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...second].reverse().concat([...first].reverse()).map((c) => c.callId));
    expect((await acme.call('GET', '/api/action-calls?cursor=bogus')).statusCode).toBe(400);
  });

  it("never shows another company's calls; another company's call is 404", async () => {
    const theirs = await list(globex);
    expect(theirs.calls.map((c) => c.callId)).toEqual([globexCalls[0]!.callId]);
    expect((await list(acme)).calls.map((c) => c.callId)).not.toContain(globexCalls[0]!.callId);
    const mine = await acme.call('GET', `/api/action-calls/${first[0]!.callId}`);
    expect(mine.statusCode).toBe(200);
    expect(mine.json().call).toMatchObject({ callId: first[0]!.callId, status: 'succeeded', durationMs: 120 });
    const other = await globex.call('GET', `/api/action-calls/${first[0]!.callId}`);
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    expect((await acme.call('GET', `/api/action-calls/${randomUUID()}`)).statusCode).toBe(404);
  });

  it('keeps no more of a response than its cap, so nothing past it (here a secret) reaches the log', async () => {
    const res = await acme.call('GET', `/api/action-calls/${second[3]!.callId}`);
    const call = res.json().call;
    expect(call.response).toHaveLength(2000);
    expect(call.responseTruncated).toBe(true);
    expect(res.body).not.toContain(SECRET_TAIL);
    expect(JSON.stringify(await list(acme, '?limit=200'))).not.toContain(SECRET_TAIL);
  });

  it('every role reads it (an agent included)', async () => {
    const invited = await acme.call('POST', '/api/team/invitations', { email: uniqueEmail('agent'), role: 'agent' });
    const url = invited.json().invitationUrl as string;
    const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
    const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Agent Al', password: 'agent password' } });
    const bearer = accepted.json().session.access_token as string;
    expect((await acme.call('GET', '/api/action-calls', undefined, bearer)).statusCode).toBe(200);
    expect((await acme.call('GET', `/api/action-calls/${first[0]!.callId}`, undefined, bearer)).statusCode).toBe(200);
    expect((await acme.call('GET', '/api/analytics/actions?from=2026-03-10&to=2026-03-11', undefined, bearer)).statusCode).toBe(200);
    expect((await server.app.inject({ method: 'GET', url: '/api/action-calls' })).statusCode).toBe(401);
  });
});

describe('GET /api/analytics/actions: per action over the analytics period', () => {
  it('counts calls, failures, rejections, approvals, refusals and expiries per action, with p50/p95 durations', async () => {
    const res = await acme.call('GET', '/api/analytics/actions?from=2026-03-10&to=2026-03-11');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ timezone: 'UTC', from: '2026-03-10', to: '2026-03-11' });
    expect(body.byAction.map((a: { actionId: string }) => a.actionId)).toEqual([lookup, cancel]);
    expect(body.byAction[0]).toMatchObject({ actionName: 'order_status', calls: 5, succeeded: 3, failed: 1, rejected: 1, approved: 0, refused: 0, expired: 0, declined: 0 });
    expect(body.byAction[1]).toMatchObject({ actionName: 'cancel_order', calls: 4, succeeded: 1, failed: 0, approved: 1, refused: 1, expired: 1 });
    expect(body.totals).toMatchObject({ calls: 9, succeeded: 4, failed: 1, rejected: 1, approved: 1, refused: 1, expired: 1 });
    // order_status made 4 calls: 50, 120, 300, 2000 ms → p50 is the 2nd (120 ms), p95 the 4th (2000 ms), each within ±12 %.
    const near = (value: number, expected: number) => expect(Math.abs(value - expected) / expected).toBeLessThan(0.12);
    near(body.byAction[0].durationP50Ms, 120);
    near(body.byAction[0].durationP95Ms, 2000);
    near(body.byAction[1].durationP50Ms, 800);
  });

  it('counts only the range asked for, and only the company\'s own calls', async () => {
    const oneDay = (await acme.call('GET', '/api/analytics/actions?from=2026-03-11&to=2026-03-11')).json();
    expect(oneDay.byAction.find((a: { actionId: string }) => a.actionId === lookup)).toMatchObject({ calls: 2, succeeded: 1, rejected: 1, failed: 0 });
    const theirs = (await globex.call('GET', '/api/analytics/actions?from=2026-03-10&to=2026-03-11')).json();
    expect(theirs.byAction.map((a: { actionName: string }) => a.actionName)).toEqual(['globex_lookup']);
    expect(theirs.totals.calls).toBe(1);
    expect((await acme.call('GET', '/api/analytics/actions?from=2026-03-12&to=2026-03-10')).statusCode).toBe(400);
  });
});

describe('GET /metrics: per-action calls by outcome and durations, with bounded labels', () => {
  it('counts each call that ended by its action and outcome; beyond TOP_ACTIONS actions the quietest are "other"; a label is an action id, never an argument or URL', async () => {
    const many = Array.from({ length: TOP_ACTIONS + 3 }, (_, i) => ({ actionId: randomUUID(), actionName: `lookup_${i}`, mode: 'auto' as const, then: succeeded(40) }));
    await conversationWithCalls(acme, '2026-03-12', many);
    const scrape = async () => (await server.app.inject({ method: 'GET', url: '/metrics' })).body;
    const text = await eventually(async () => {
      const body = await scrape();
      // Every call seeded in this file has ended by now but one (pending): 5 + 3 + 1 + the many.
      const ended = samples(body, 'mas_action_calls').reduce((n, s) => n + s.value, 0);
      if (ended < 9 + many.length) throw new Error(`${ended} calls counted so far`);
      return body;
    }, 20_000, 100);
    const actions = new Set(samples(text, 'mas_action_calls').map((s) => s.labels.action!));
    expect(actions.size).toBe(TOP_ACTIONS + 1);
    expect(actions.has('other')).toBe(true);
    for (const label of actions) expect(label).toMatch(/^(other|[0-9a-f-]{36})$/);
    // Action ids are random UUIDs and may hold the digits by chance: look for the argument outside them.
    expect(text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')).not.toContain('4411');
    // The busiest actions keep their own series, with each outcome.
    expect(valueOf(text, 'mas_action_calls', { action: lookup, outcome: 'succeeded' })).toBe(3);
    expect(valueOf(text, 'mas_action_calls', { action: lookup, outcome: 'failed' })).toBe(1);
    expect(valueOf(text, 'mas_action_calls', { action: lookup, outcome: 'rejected' })).toBe(1);
    expect(valueOf(text, 'mas_action_calls', { action: cancel, outcome: 'refused' })).toBe(1);
    expect(valueOf(text, 'mas_action_calls', { action: cancel, outcome: 'expired' })).toBe(1);
    expect(valueOf(text, 'mas_action_call_duration_seconds_count', { action: lookup })).toBe(4);
    const counted = samples(text, 'mas_action_call_duration_seconds_count').reduce((n, s) => n + s.value, 0);
    expect(counted).toBe(4 + 1 + 1 + many.length);
  });
});
