import { describe, expect, it } from 'vitest';
import { confirmationAnswer, confirmationAnswerOf } from '../../../../src/domain/conversations/actionCallDecisions.js';
import { conversationDecider } from '../../../../src/domain/conversations/decider.js';
import type { ConversationEvent } from '../../../../src/domain/conversations/events.js';
import { specFor } from '../../../support/gwt.js';

/** The reply worker's decisions on an action call: requested or rejected, confirmation asked and answered, started, settled. */

const spec = specFor(conversationDecider);
const CONV = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const AGENT = 'a9e7c6b5-1111-4222-8333-444455556666';
const ACTION = 'ac000000-0000-4000-8000-000000000001';
const S1 = '51515151-5151-4515-8515-515151515151';
const M1 = '11111111-1111-4111-8111-111111111111';
const R1 = '33333333-3333-4333-8333-333333333333';
const CALL = 'ca110000-0000-4000-8000-000000000001';
const T = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-01T00:05:00.000Z';
const LATER = '2026-01-01T01:00:00.000Z';
const EXPIRES = '2026-01-01T00:30:00.000Z';

const customer = { clientId: 42, channelId: 1, transport: 'telegram' };
const started: ConversationEvent = { type: 'ConversationStarted', data: { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform', customer, stageId: null, at: T } };
const opened: ConversationEvent = { type: 'AiSessionOpened', data: { sessionId: S1, at: T } };
const received: ConversationEvent = { type: 'MessageReceived', data: { messageId: M1, dedupeKey: `msg:${M1}`, dedupeUntil: null, text: 'Cancel order 4411', platform: {}, at: T } };
const asking = [started, opened, received];
const requested = (mode: 'auto' | 'confirm' = 'confirm'): ConversationEvent => ({
  type: 'ActionCallRequested',
  data: { callId: CALL, replyId: R1, actionId: ACTION, actionName: 'cancel_order', mode, arguments: { order_id: '4411' }, at: T2 },
});
const asked: ConversationEvent = { type: 'ActionConfirmationAsked', data: { callId: CALL, messageId: R1, prompt: 'Cancel order 4411? Reply yes to confirm.', expiresAt: EXPIRES, at: T2 } };
const confirmReply = { messageId: R1, sessionId: S1, agentId: AGENT, text: 'Cancel order 4411? Reply yes to confirm.', inReplyTo: [M1], model: 'gpt-4o-mini', inputTokens: 30, outputTokens: 5 };
const callStarted: ConversationEvent = { type: 'ActionCallStarted', data: { callId: CALL, idempotencyKey: CALL, mocked: false, at: T2 } };

describe('requesting a call', () => {
  it('given a customer message, when a call is requested, then it is recorded with its arguments', () => {
    spec.given(asking).when({ type: 'RequestActionCall', callId: CALL, replyId: R1, actionId: ACTION, actionName: 'cancel_order', mode: 'confirm', arguments: { order_id: '4411' }, now: T2 }).then([requested()]);
  });

  it('given a call refused before it was made, when requested, then the request and its rejection are recorded together', () => {
    spec
      .given(asking)
      .when({ type: 'RequestActionCall', callId: CALL, replyId: R1, actionId: ACTION, actionName: 'cancel_order', mode: 'confirm', arguments: { order_id: '4411' }, rejection: 'client_id is filled by the service and cannot be given', now: T2 })
      .then([requested(), { type: 'ActionCallRejected', data: { callId: CALL, error: 'client_id is filled by the service and cannot be given', at: T2 } }]);
  });

  it('given the call was requested already, when requested again (a redelivery), then nothing is recorded', () => {
    spec.given([...asking, requested()]).when({ type: 'RequestActionCall', callId: CALL, replyId: R1, actionId: ACTION, actionName: 'cancel_order', mode: 'confirm', arguments: {}, now: T2 }).then([]);
  });
});

describe('a second call that must wait, while one waits', () => {
  const CALL2 = 'ca110000-0000-4000-8000-000000000002';
  const R2 = '33333333-3333-4333-8333-333333333334';
  const approvalAsked: ConversationEvent = {
    type: 'ActionApprovalRequested',
    data: { callId: CALL, messageId: R1, holdingReply: 'A teammate checks this first.', approverRoles: null, expiresAt: EXPIRES, at: T2 },
  };
  const waiting = [...asking, requested(), approvalAsked];
  const second = (mode: 'auto' | 'confirm' | 'approve') =>
    ({ type: 'RequestActionCall', callId: CALL2, replyId: R2, actionId: ACTION, actionName: 'refund_order', mode, arguments: { order_id: '4412' }, now: LATER }) as const;
  const secondRequested = (mode: 'auto' | 'confirm' | 'approve'): ConversationEvent => ({
    type: 'ActionCallRequested',
    data: { callId: CALL2, replyId: R2, actionId: ACTION, actionName: 'refund_order', mode, arguments: { order_id: '4412' }, at: LATER },
  });

  it('given an approval waiting, when the model asks for another approve or confirm call, then that one is refused with a reason the team and the model read, and the first still waits', () => {
    for (const mode of ['approve', 'confirm'] as const) {
      const state = spec
        .given(waiting)
        .when(second(mode))
        .then([secondRequested(mode), { type: 'ActionCallRejected', data: { callId: CALL2, error: "another action is waiting for a teammate's approval: ask again once it is decided", at: LATER } }]);
      expect(state.pendingAction).toMatchObject({ callId: CALL, mode: 'approve' });
    }
  });

  it('given an approval waiting and a second call refused, when a teammate approves the first, then it is approved', () => {
    const refusedSecond: ConversationEvent = { type: 'ActionCallRejected', data: { callId: CALL2, error: 'another action is waiting', at: LATER } };
    spec
      .given([...waiting, secondRequested('approve'), refusedSecond])
      .when({ type: 'ApproveActionCall', callId: CALL, by: 'user:u1', role: 'agent', now: T2 })
      .then([{ type: 'ActionCallApproved', data: { callId: CALL, by: 'user:u1', at: T2 } }]);
  });

  it('given an approval waiting, when the model asks for an auto lookup, then it is recorded and may run', () => {
    spec.given(waiting).when(second('auto')).then([secondRequested('auto')]);
  });
});

describe('asking the customer to confirm', () => {
  it('given a requested confirm call, when the question is asked, then it is a reply to the customer and the call waits for a yes', () => {
    const state = spec
      .given([...asking, requested()])
      .when({ type: 'AskActionConfirmation', callId: CALL, prompt: 'Cancel order 4411? Reply yes to confirm.', expiresAt: EXPIRES, reply: confirmReply, now: T2 })
      .then([{ type: 'AgentReplied', data: { ...confirmReply, handoff: false, at: T2 } }, asked]);
    expect(state.pendingAction).toMatchObject({ callId: CALL, mode: 'confirm', askedIn: R1 });
    expect(state.unanswered).toEqual([]);
  });

  it('given a pending confirmation, when the customer confirms, then the call is confirmed', () => {
    spec.given([...asking, requested(), asked]).when({ type: 'ConfirmActionCall', callId: CALL, inMessage: M1, now: T2 }).then([{ type: 'ActionCallConfirmed', data: { callId: CALL, inMessage: M1, at: T2 } }]);
  });

  it('given no pending confirmation, when a yes arrives, then nothing is confirmed', () => {
    spec.given([...asking, requested()]).when({ type: 'ConfirmActionCall', callId: CALL, inMessage: M1, now: T2 }).then([]);
  });

  it('given a pending confirmation, when the customer says no, then the call is declined', () => {
    spec.given([...asking, requested(), asked]).when({ type: 'DeclineActionCall', callId: CALL, why: 'no', now: T2 }).then([{ type: 'ActionCallDeclined', data: { callId: CALL, why: 'no', at: T2 } }]);
  });

  it('given a pending confirmation still in its window, when silence is declared, then nothing is declined; after the window it is', () => {
    spec.given([...asking, requested(), asked]).when({ type: 'DeclineActionCall', callId: CALL, why: 'silence', now: T2 }).then([]);
    spec.given([...asking, requested(), asked]).when({ type: 'DeclineActionCall', callId: CALL, why: 'silence', now: LATER }).then([{ type: 'ActionCallDeclined', data: { callId: CALL, why: 'silence', at: LATER } }]);
  });
});

describe('making the call', () => {
  it('given a requested auto call, when it starts, then the attempt is recorded before the call', () => {
    const state = spec.given([...asking, requested('auto')]).when({ type: 'StartActionCall', callId: CALL, idempotencyKey: CALL, mocked: false, now: T2 }).then([callStarted]);
    expect(state.startedCalls).toEqual([CALL]);
  });

  it('given a call waiting for the customer, when it is started, then it is refused', () => {
    spec.given([...asking, requested(), asked]).when({ type: 'StartActionCall', callId: CALL, idempotencyKey: CALL, mocked: false, now: T2 }).thenThrows('INVALID_STATE');
  });

  it('given a started call, when it starts again (a retried job), then nothing is recorded', () => {
    spec.given([...asking, requested('auto'), callStarted]).when({ type: 'StartActionCall', callId: CALL, idempotencyKey: CALL, mocked: false, now: T2 }).then([]);
  });

  it('given a started call, when it succeeds, then its mapped response is recorded and it is no longer started', () => {
    const state = spec
      .given([...asking, requested('auto'), callStarted])
      .when({ type: 'SucceedActionCall', callId: CALL, status: 200, durationMs: 12.4, response: '{"status":"shipped"}', mocked: false, now: T2 })
      .then([{ type: 'ActionCallSucceeded', data: { callId: CALL, status: 200, durationMs: 12, response: '{"status":"shipped"}', mocked: false, at: T2 } }]);
    expect(state.startedCalls).toEqual([]);
  });

  it('given a started call whose outcome was lost, when it fails with outcome unknown, then that is recorded; again, nothing more', () => {
    const state = spec
      .given([...asking, requested('auto'), callStarted])
      .when({ type: 'FailActionCall', callId: CALL, status: null, durationMs: 0, error: 'the service stopped during the call', outcomeUnknown: true, now: T2 })
      .then([{ type: 'ActionCallFailed', data: { callId: CALL, status: null, durationMs: 0, error: 'the service stopped during the call', outcomeUnknown: true, at: T2 } }]);
    expect(spec.given([...asking, requested('auto'), callStarted, { type: 'ActionCallFailed', data: { callId: CALL, status: null, durationMs: 0, error: 'x', at: T2 } }]).state.startedCalls).toEqual([]);
    expect(state.startedCalls).toEqual([]);
  });

  it('given a call never started, when a result arrives, then nothing is recorded', () => {
    spec.given([...asking, requested('auto')]).when({ type: 'SucceedActionCall', callId: CALL, status: 200, durationMs: 1, response: '{}', mocked: false, now: T2 }).then([]);
  });
});

describe("the customer's answer to a confirmation", () => {
  it.each(['yes', 'Yes!', 'y', 'yeah', 'OK', 'confirm', 'yes please', 'Ja', 'oui', 'sí', 'да'])('"%s" is a yes', (text) => {
    expect(confirmationAnswer(text)).toBe('yes');
  });
  it.each(['no', 'No.', 'nope', 'cancel', 'no thanks', 'nein', 'нет'])('"%s" is a no', (text) => {
    expect(confirmationAnswer(text)).toBe('no');
  });
  it.each(['yes but change the address first', 'what will that cost?', 'maybe', '', 'ok so what about my other order'])('"%s" is neither', (text) => {
    expect(confirmationAnswer(text)).toBe('other');
  });
});

describe('the customer\'s answer in several quick messages (one turn)', () => {
  it.each([
    [['yes', 'yes'], 'yes'],
    [['Yes!', 'yes please'], 'yes'],
    [['yes', 'please'], 'yes'],
    [['no', 'no'], 'no'],
    [['yes', 'no'], 'other'],
    [['yes', 'and change the address'], 'other'],
  ] as const)('given %j, then it is %s', (texts, said) => {
    expect(confirmationAnswerOf([...texts])).toBe(said);
  });
});
