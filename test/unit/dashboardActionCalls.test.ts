import { describe, expect, it } from 'vitest';
import { argumentsLine, callIdOf, foldActionCalls, interleaveCalls } from '../../web/dashboard/src/lib/actionCalls.js';

const conv = '6f1c7d2e-8a1b-4c3d-9e4f-5a6b7c8d0001';
const ann = 'a0a0a0a0-a0a0-40a0-80a0-a0a0a0a0a0a0';
let position = 0;
// As GET /api/conversations/:id/events answers: position and revision as strings.
const event = (type: string, data: Record<string, unknown>) => ({ position: String(++position), revision: String(position), type, data, createdAt: String(data.at) });
const at = (m: number) => `2026-03-10T10:0${m}:00.000Z`;

describe('the conversation timeline groups a call\'s events into one card', () => {
  it('given a call approved and made, and another refused, then one card each with where it ended and who decided', () => {
    const events = [
      event('MessageReceived', { messageId: 'm1', text: 'cancel 4411', at: at(0) }),
      event('ActionCallRequested', { callId: 'c1', replyId: 'r1', actionId: 'a1', actionName: 'cancel_order', mode: 'approve', arguments: { order_id: '4411', customer: '[platform.clientId]' }, at: at(1) }),
      event('ActionApprovalRequested', { callId: 'c1', messageId: 'm2', holdingReply: 'One moment', approverRoles: null, expiresAt: at(9), at: at(1) }),
      event('ActionCallApproved', { callId: 'c1', by: ann, at: at(2) }),
      event('ActionCallStarted', { callId: 'c1', idempotencyKey: 'k', mocked: false, at: at(2) }),
      event('ActionCallSucceeded', { callId: 'c1', status: 200, durationMs: 320, response: '{"cancelled":true}', mocked: false, at: at(3) }),
      event('ActionCallRequested', { callId: 'c2', replyId: 'r2', actionId: 'a1', actionName: 'cancel_order', mode: 'approve', arguments: {}, at: at(4) }),
      event('ActionCallRefused', { callId: 'c2', by: ann, reason: 'Shipped already', at: at(5) }),
      // A call whose request is not in this list (older page) is not folded.
      event('ActionCallFailed', { callId: 'c0', status: 500, durationMs: 10, error: 'boom', at: at(6) }),
    ];
    const calls = foldActionCalls(events, conv);
    expect([...calls.keys()]).toEqual(['c1', 'c2']);
    expect(calls.get('c1')).toMatchObject({ status: 'succeeded', decidedBy: ann, decidedAt: at(2), httpStatus: 200, durationMs: 320, response: '{"cancelled":true}', finishedAt: at(3), conversationId: conv, replyId: 'r1' });
    expect(calls.get('c2')).toMatchObject({ status: 'refused', reason: 'Shipped already', decidedBy: ann });
    expect(events.map(callIdOf)).toEqual([null, 'c1', 'c1', 'c1', 'c1', 'c1', 'c2', 'c2', 'c0']);
    expect(argumentsLine(calls.get('c1')!.arguments)).toBe('order_id=4411, customer=[platform.clientId]');
  });
});

describe('the Messages tab shows each call between the messages, where it happened', () => {
  it('given messages and calls, then each call comes before the first message written after it was requested', () => {
    const msg = (id: string, m: number) => ({ id, createdAt: at(m) });
    const call = (callId: string, m: number) => ({ ...foldActionCalls([event('ActionCallRequested', { callId, actionId: 'a', actionName: 'x', mode: 'auto', arguments: {}, at: at(m) })], conv).get(callId)! });
    const entries = interleaveCalls([msg('q', 0), msg('reply', 2), msg('q2', 5)], [call('late', 7), call('c1', 1), call('c2', 1)]);
    expect(entries.map((e) => (e.kind === 'call' ? `call:${e.call.callId}` : e.message.id))).toEqual(['q', 'call:c1', 'call:c2', 'reply', 'q2', 'call:late']);
  });
});
