import { describe, expect, it } from 'vitest';
import { APPROVAL_EXPIRED_REASON } from '../../../../src/domain/conversations/actionApprovals.js';
import { conversationDecider, type ConversationCommand } from '../../../../src/domain/conversations/decider.js';
import type { ConversationEvent } from '../../../../src/domain/conversations/events.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(conversationDecider);
const CONV = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const S1 = '51515151-5151-4515-8515-515151515151';
const M1 = '11111111-1111-4111-8111-111111111111';
const REPLY = '33333333-3333-4333-8333-333333333333';
const HOLD = '44444444-4444-4444-8444-444444444444';
const CALL = '55555555-5555-4555-8555-555555555555';
const OTHER_CALL = '66666666-6666-4666-8666-666666666666';
const ACTION = '77777777-7777-4777-8777-777777777777';
const ANN = 'user:a0a0a0a0-a0a0-40a0-80a0-a0a0a0a0a0a0';
const T = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-01T00:05:00.000Z';
const EXPIRES = '2026-01-01T01:00:00.000Z';
const LATE = '2026-01-01T01:00:01.000Z';

const customer = { clientId: 42, channelId: 1, transport: 'telegram' };
const active: ConversationEvent[] = [
  { type: 'ConversationStarted', data: { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform', customer, stageId: null, at: T } },
  { type: 'AiSessionOpened', data: { sessionId: S1, at: T } },
  { type: 'MessageReceived', data: { messageId: M1, dedupeKey: `msg:${M1}`, dedupeUntil: null, text: 'cancel order 4411', platform: {}, at: T } },
];
const requested = (mode: 'confirm' | 'approve'): ConversationEvent => ({
  type: 'ActionCallRequested',
  data: { callId: CALL, replyId: REPLY, actionId: ACTION, actionName: 'cancel_order', mode, arguments: { order_id: '4411' }, at: T },
});
const approvalRequested = (approverRoles: string[] | null = null): ConversationEvent[] => [
  requested('approve'),
  { type: 'ActionApprovalRequested', data: { callId: CALL, messageId: HOLD, holdingReply: 'A teammate will approve this.', approverRoles, expiresAt: EXPIRES, at: T } },
];
const confirmationAsked: ConversationEvent[] = [
  requested('confirm'),
  { type: 'ActionConfirmationAsked', data: { callId: CALL, messageId: HOLD, prompt: 'Cancel order 4411? Reply yes to confirm.', expiresAt: EXPIRES, at: T } },
];
const approve = (role = 'agent', callId = CALL, now = T2): ConversationCommand => ({ type: 'ApproveActionCall', callId, by: ANN, role, now });
const refuse = (reason: string | null = 'Order already shipped', role = 'agent', now = T2): ConversationCommand => ({ type: 'RefuseActionCall', callId: CALL, by: ANN, role, reason, now });
const approved: ConversationEvent = { type: 'ActionCallApproved', data: { callId: CALL, by: ANN, at: T2 } };
const refused: ConversationEvent = { type: 'ActionCallRefused', data: { callId: CALL, by: ANN, reason: 'Order already shipped', at: T2 } };

describe('Approving or refusing a call that waits for a teammate', () => {
  it('given a pending approval, when a teammate approves, then ActionCallApproved with who and when, and nothing waits any more', () => {
    const state = spec.given([...active, ...approvalRequested()]).when(approve()).then([approved]);
    expect(state.pendingAction).toBeNull();
  });

  it('given a pending approval, when a teammate refuses with a reason, then ActionCallRefused with the reason; without one, reason null', () => {
    spec.given([...active, ...approvalRequested()]).when(refuse()).then([refused]);
    spec.given([...active, ...approvalRequested()]).when(refuse('  ')).then([{ type: 'ActionCallRefused', data: { callId: CALL, by: ANN, reason: null, at: T2 } }]);
  });

  it('given an approved call, when approved again, then nothing (a double click); when refused, then CONFLICT', () => {
    spec.given([...active, ...approvalRequested(), approved]).when(approve()).then([]);
    spec.given([...active, ...approvalRequested(), approved]).when(refuse()).thenThrows('CONFLICT');
    spec.given([...active, ...approvalRequested(), refused]).when(approve()).thenThrows('CONFLICT');
  });

  it('given an action naming its approver roles, when a teammate of another role decides, then FORBIDDEN; one of those roles may', () => {
    spec.given([...active, ...approvalRequested(['owner', 'admin'])]).when(approve('agent')).thenThrows('FORBIDDEN');
    spec.given([...active, ...approvalRequested(['owner', 'admin'])]).when(refuse('no', 'agent')).thenThrows('FORBIDDEN');
    spec.given([...active, ...approvalRequested(['owner', 'admin'])]).when(approve('admin')).then([approved]);
  });

  it('given a call that waits for the customer\'s yes, when a teammate approves, then INVALID_STATE: only the customer confirms', () => {
    spec.given([...active, ...confirmationAsked]).when(approve()).thenThrows('INVALID_STATE');
  });

  it('given no such call in this conversation, when approved, then NOT_FOUND; given no conversation, NOT_FOUND', () => {
    spec.given([...active, ...approvalRequested()]).when(approve('agent', OTHER_CALL)).thenThrows('NOT_FOUND');
    spec.given([]).when(approve()).thenThrows('NOT_FOUND');
  });

  it('given a pending approval past its deadline, when a teammate approves, then CONFLICT: the timer expires it', () => {
    spec.given([...active, ...approvalRequested()]).when(approve('agent', CALL, LATE)).thenThrows('CONFLICT');
  });
});

describe('The clock ends a call nobody decided', () => {
  const expire = (now = LATE): ConversationCommand => ({ type: 'ExpireActionCall', callId: CALL, now });
  const decline = (now = LATE): ConversationCommand => ({ type: 'DeclineActionCall', callId: CALL, why: 'silence', now });

  it('given a pending approval past its deadline, when it expires, then ActionApprovalExpired and a handoff: the AI pauses and people get it, with the reason', () => {
    const state = spec
      .given([...active, ...approvalRequested()])
      .when(expire())
      .then([
        { type: 'ActionApprovalExpired', data: { callId: CALL, at: LATE } },
        { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'handoff', by: null, at: LATE } },
      ]);
    expect(state.pendingAction).toBeNull();
    expect(state.handoff.handoff).toMatchObject({ reason: 'ai_unanswered', detail: APPROVAL_EXPIRED_REASON });
  });

  it('given a paused conversation, when its approval expires, then only ActionApprovalExpired: people have it already', () => {
    const paused: ConversationEvent = { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'api', by: ANN, at: T2 } };
    spec.given([...active, ...approvalRequested(), paused]).when(expire()).then([{ type: 'ActionApprovalExpired', data: { callId: CALL, at: LATE } }]);
  });

  it('given an approval before its deadline, or one decided already, when the timer runs, then nothing', () => {
    spec.given([...active, ...approvalRequested()]).when(expire(T2)).then([]);
    spec.given([...active, ...approvalRequested(), approved]).when(expire()).then([]);
  });

  it('given a confirmation question past its deadline, when the timer runs, then ActionCallDeclined for silence; an expiry of the wrong kind does nothing', () => {
    spec.given([...active, ...confirmationAsked]).when(decline()).then([{ type: 'ActionCallDeclined', data: { callId: CALL, why: 'silence', at: LATE } }]);
    spec.given([...active, ...confirmationAsked]).when(decline(T2)).then([]);
    spec.given([...active, ...confirmationAsked]).when(expire()).then([]);
    spec.given([...active, ...approvalRequested()]).when(decline()).then([]);
  });

  it('given an expired approval, when a teammate approves late, then CONFLICT: it expired', () => {
    spec.given([...active, ...approvalRequested(), { type: 'ActionApprovalExpired', data: { callId: CALL, at: LATE } }]).when(approve()).thenThrows('CONFLICT');
  });
});
