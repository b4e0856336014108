import { describe, expect, it } from 'vitest';
import { conversationDecider, type ConversationCommand } from '../../../../src/domain/conversations/decider.js';
import { isDuplicate, dedupeWindowSize, DEDUPE_WINDOW_MAX, DEDUPE_WINDOW_MIN } from '../../../../src/domain/conversations/state.js';
import type { ConversationEvent } from '../../../../src/domain/conversations/events.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(conversationDecider);
const CONV = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const S1 = '51515151-5151-4515-8515-515151515151';
const S2 = '52525252-5252-4525-8525-525252525252';
const M1 = '11111111-1111-4111-8111-111111111111';
const M2 = '22222222-2222-4222-8222-222222222222';
const R1 = '33333333-3333-4333-8333-333333333333';
const STAGE_A = '44444444-4444-4444-8444-444444444444';
const STAGE_B = '45454545-4545-4545-8545-454545454545';
const T = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-01T00:05:00.000Z';

const start = { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform' as const, customer: { clientId: 42, channelId: 1, transport: 'telegram' }, defaultStageId: STAGE_A };
const started: ConversationEvent = { type: 'ConversationStarted', data: { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform', customer: start.customer, stageId: STAGE_A, at: T } };
const opened = (sessionId = S1): ConversationEvent => ({ type: 'AiSessionOpened', data: { sessionId, at: T } });
const received = (messageId = M1, key = 'msg:1', text = 'hi'): ConversationEvent => ({
  type: 'MessageReceived',
  data: { messageId, dedupeKey: key, dedupeUntil: null, text, platform: { messageId: 1 }, at: T },
});
const paused = (reason: 'api' | 'operator_message' | 'credits_exhausted' = 'api'): ConversationEvent => ({ type: 'AiSessionPaused', data: { sessionId: S1, reason, by: null, at: T } });
const closed: ConversationEvent = { type: 'AiSessionClosed', data: { sessionId: S1, reason: 'close_dialog', action: 'session_close', by: 'platform', at: T } };
const active = [started, opened(), received()];

const receive = (over: Partial<Extract<ConversationCommand, { type: 'ReceiveCustomerMessage' }>> = {}): ConversationCommand => ({
  type: 'ReceiveCustomerMessage',
  start,
  sessionId: S2,
  messageId: M2,
  dedupeKey: 'msg:2',
  dedupeUntil: null,
  text: 'hello again',
  platform: { messageId: 2 },
  now: T2,
  ...over,
});

describe('AI session lifecycle', () => {
  it('a first inbound message starts the conversation and opens an active session', () => {
    const after = spec.given([]).when(receive()).then([
      { type: 'ConversationStarted', data: { ...started.data, at: T2 } } as ConversationEvent,
      { type: 'AiSessionOpened', data: { sessionId: S2, at: T2 } },
      { type: 'MessageReceived', data: { messageId: M2, dedupeKey: 'msg:2', dedupeUntil: null, text: 'hello again', platform: { messageId: 2 }, at: T2 } },
    ]);
    expect(after.session).toEqual({ id: S2, state: 'active', pausedReason: null });
  });

  it('a message after a close opens a new active session', () => {
    const after = spec.given([...active, closed]).when(receive()).then([
      { type: 'AiSessionOpened', data: { sessionId: S2, at: T2 } },
      { type: 'MessageReceived', data: { messageId: M2, dedupeKey: 'msg:2', dedupeUntil: null, text: 'hello again', platform: { messageId: 2 }, at: T2 } },
    ]);
    expect(after.session?.state).toBe('active');
  });

  it('a message on an active or paused session opens nothing new', () => {
    for (const history of [active, [...active, paused()]]) {
      const events = conversationDecider.decide(receive(), history.reduce(conversationDecider.evolve, conversationDecider.initialState));
      expect(events.map((e) => e.type)).toEqual(['MessageReceived']);
    }
  });

  it('a redelivered message (same dedupe key) changes nothing', () => {
    spec.given(active).when(receive({ dedupeKey: 'msg:1' })).then([]);
  });

  it('a body-hash key counts only until its window ends', () => {
    const withBody: ConversationEvent = { type: 'MessageReceived', data: { messageId: M1, dedupeKey: 'body:x', dedupeUntil: '2026-01-02T00:00:00.000Z', text: 'hi', platform: {}, at: T } };
    spec.given([started, opened(), withBody]).when(receive({ dedupeKey: 'body:x', now: '2026-01-01T12:00:00.000Z' })).then([]);
    const later = conversationDecider.decide(receive({ dedupeKey: 'body:x', now: '2026-01-02T00:00:01.000Z' }), [started, opened(), withBody].reduce(conversationDecider.evolve, conversationDecider.initialState));
    expect(later.map((e) => e.type)).toEqual(['MessageReceived']);
  });

  it('pause (API): active → paused', () => {
    spec.given(active).when({ type: 'PauseSession', reason: 'api', by: 'user:1', now: T2 }).then([{ type: 'AiSessionPaused', data: { sessionId: S1, reason: 'api', by: 'user:1', at: T2 } }]);
  });
  it('pause on a paused session changes nothing', () => {
    spec.given([...active, paused()]).when({ type: 'PauseSession', reason: 'api', by: null, now: T2 }).then([]);
  });
  it('pause is rejected on a closed session and without a session', () => {
    spec.given([...active, closed]).when({ type: 'PauseSession', reason: 'api', by: null, now: T2 }).thenThrows('INVALID_STATE');
    spec.given([started]).when({ type: 'PauseSession', reason: 'api', by: null, now: T2 }).thenThrows('INVALID_STATE');
  });
  it('credits exhausted pauses with that reason', () => {
    const after = spec.given(active).when({ type: 'PauseSession', reason: 'credits_exhausted', by: null, now: T2 }).then([
      { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'credits_exhausted', by: null, at: T2 } },
    ]);
    expect(after.session).toMatchObject({ state: 'paused', pausedReason: 'credits_exhausted' });
  });
  it("an operator's outbox message is recorded and pauses an active session", () => {
    spec
      .given(active)
      .when({ type: 'RecordOperatorMessage', start, messageId: M2, dedupeKey: 'msg:op', dedupeUntil: null, text: 'Operator here', platform: { messageId: 'op' }, now: T2 })
      .then([
        { type: 'OperatorMessageRecorded', data: { messageId: M2, dedupeKey: 'msg:op', dedupeUntil: null, text: 'Operator here', platform: { messageId: 'op' }, at: T2 } },
        { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'operator_message', by: null, at: T2 } },
      ]);
  });
  it('the platform echoing our own reply back as outbox is not a takeover', () => {
    const replied: ConversationEvent = {
      type: 'AgentReplied',
      data: { messageId: R1, sessionId: S1, agentId: null, text: 'We ship to Norway.', inReplyTo: [M1], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: false, at: T },
    };
    const delivered: ConversationEvent = { type: 'MessageDelivered', data: { messageId: R1, platformMessageId: 9001, at: T } };
    spec
      .given([...active, replied, delivered])
      .when({ type: 'RecordOperatorMessage', start, messageId: M2, dedupeKey: 'msg:9001', dedupeUntil: null, text: 'We ship to Norway.', platform: { messageId: 9001 }, now: T2 })
      .then([]);
  });
  it('resume: paused → active; on active it changes nothing; on closed it is rejected', () => {
    spec.given([...active, paused()]).when({ type: 'ResumeSession', by: 'user:1', now: T2 }).then([{ type: 'AiSessionResumed', data: { sessionId: S1, by: 'user:1', at: T2 } }]);
    spec.given(active).when({ type: 'ResumeSession', by: null, now: T2 }).then([]);
    spec.given([...active, closed]).when({ type: 'ResumeSession', by: null, now: T2 }).thenThrows('INVALID_STATE');
    spec.given([started]).when({ type: 'ResumeSession', by: null, now: T2 }).thenThrows('INVALID_STATE');
  });
  it.each(['close_dialog', 'close_request', 'api'] as const)('close (%s): active or paused → closed with session_close', (reason) => {
    for (const history of [active, [...active, paused()]]) {
      spec.given(history).when({ type: 'CloseSession', reason, by: null, now: T2 }).then([
        { type: 'AiSessionClosed', data: { sessionId: S1, reason, action: 'session_close', by: null, at: T2 } },
      ]);
    }
  });
  it('reopen: closed → a new active session, remembering the closed one', () => {
    const after = spec.given([...active, closed]).when({ type: 'ReopenConversation', sessionId: S2, by: 'user:1', now: T2 }).then([
      { type: 'ConversationReopened', data: { sessionId: S2, previousSessionId: S1, by: 'user:1', at: T2 } },
    ]);
    expect(after.session).toEqual({ id: S2, state: 'active', pausedReason: null });
    // …which can be paused, resumed and closed again like any session.
    spec.given([...active, closed, { type: 'ConversationReopened', data: { sessionId: S2, previousSessionId: S1, by: 'user:1', at: T2 } }])
      .when({ type: 'PauseSession', reason: 'api', by: null, now: T2 })
      .then([{ type: 'AiSessionPaused', data: { sessionId: S2, reason: 'api', by: null, at: T2 } }]);
  });
  it('reopen on an active or paused session changes nothing; without a session or a conversation it is rejected', () => {
    spec.given(active).when({ type: 'ReopenConversation', sessionId: S2, by: null, now: T2 }).then([]);
    spec.given([...active, paused()]).when({ type: 'ReopenConversation', sessionId: S2, by: null, now: T2 }).then([]);
    spec.given([started]).when({ type: 'ReopenConversation', sessionId: S2, by: null, now: T2 }).thenThrows('INVALID_STATE');
    spec.given([]).when({ type: 'ReopenConversation', sessionId: S2, by: null, now: T2 }).thenThrows('NOT_FOUND');
  });
  it('close on a closed session changes nothing; without a session it is rejected', () => {
    spec.given([...active, closed]).when({ type: 'CloseSession', reason: 'close_dialog', by: null, now: T2 }).then([]);
    spec.given([started]).when({ type: 'CloseSession', reason: 'close_dialog', by: null, now: T2 }).thenThrows('INVALID_STATE');
  });
  it('dialog_transferred on paused: stays paused, transfer recorded (session_transfer_external)', () => {
    const after = spec.given([...active, paused()]).when({ type: 'TransferDialog', dialogId: 5, requestId: 6, now: T2 }).then([
      { type: 'DialogTransferred', data: { action: 'session_transfer_external', dialogId: 5, requestId: 6, at: T2 } },
    ]);
    expect(after.session?.state).toBe('paused');
  });
  it('dialog_transferred on active: the AI steps back for the humans it was transferred to', () => {
    spec.given(active).when({ type: 'TransferDialog', dialogId: 5, requestId: 6, now: T2 }).then([
      { type: 'DialogTransferred', data: { action: 'session_transfer_external', dialogId: 5, requestId: 6, at: T2 } },
      { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'dialog_transferred', by: null, at: T2 } },
    ]);
  });
  it('dialog_transferred on a conversation that does not exist is rejected', () => {
    spec.given([]).when({ type: 'TransferDialog', dialogId: 5, requestId: 6, now: T2 }).thenThrows('NOT_FOUND');
  });
});

describe('agent replies', () => {
  const reply = (over: Partial<Extract<ConversationCommand, { type: 'AppendAgentReply' }>> = {}): ConversationCommand => ({
    type: 'AppendAgentReply',
    messageId: R1,
    sessionId: S1,
    agentId: null,
    text: 'We ship to Norway.',
    inReplyTo: [M1],
    model: 'gpt-4o-mini',
    inputTokens: 10,
    outputTokens: 5,
    handoff: false,
    now: T2,
    ...over,
  });
  it('answers the unanswered messages of an active session', () => {
    const after = spec.given(active).when(reply()).then([
      {
        type: 'AgentReplied',
        data: { messageId: R1, sessionId: S1, agentId: null, text: 'We ship to Norway.', inReplyTo: [M1], model: 'gpt-4o-mini', inputTokens: 10, outputTokens: 5, handoff: false, at: T2 },
      },
    ]);
    expect(after.unanswered).toEqual([]);
    expect(after.outbound[R1]).toEqual({ attempts: 0 });
  });
  it('a reply generated while a human took over (paused) or after a close is dropped', () => {
    spec.given([...active, paused('operator_message')]).when(reply()).thenThrows('REPLY_DROPPED');
    spec.given([...active, closed]).when(reply()).thenThrows('REPLY_DROPPED');
  });
  it('a reply for a session that was replaced meanwhile is dropped', () => {
    spec.given([...active, closed, opened(S2), received(M2, 'msg:2')]).when(reply({ inReplyTo: [M2] })).thenThrows('REPLY_DROPPED');
  });
  it('the same reply appended twice (a redelivered job) is stored once', () => {
    const first = conversationDecider.decide(reply(), active.reduce(conversationDecider.evolve, conversationDecider.initialState));
    const state = [...active, ...first].reduce(conversationDecider.evolve, conversationDecider.initialState);
    expect(conversationDecider.decide(reply(), state)).toEqual([]);
  });
  it('a handoff reply pauses the session for a human', () => {
    const events = conversationDecider.decide(reply({ handoff: true }), active.reduce(conversationDecider.evolve, conversationDecider.initialState));
    expect(events.map((e) => e.type)).toEqual(['AgentReplied', 'AiSessionPaused']);
    expect(events[1]!.data).toMatchObject({ reason: 'handoff' });
  });
  it('a burst of messages is answered together', () => {
    const after = spec.given([...active, received(M2, 'msg:2', 'and to Sweden?')]).when(reply({ inReplyTo: [M1, M2] })).then([
      {
        type: 'AgentReplied',
        data: { messageId: R1, sessionId: S1, agentId: null, text: 'We ship to Norway.', inReplyTo: [M1, M2], model: 'gpt-4o-mini', inputTokens: 10, outputTokens: 5, handoff: false, at: T2 },
      },
    ]);
    expect(after.unanswered).toEqual([]);
  });
});

describe('delivery, operator messages, stages', () => {
  const replied: ConversationEvent = {
    type: 'AgentReplied',
    data: { messageId: R1, sessionId: S1, agentId: null, text: 'x', inReplyTo: [M1], model: 'm', inputTokens: 0, outputTokens: 0, handoff: false, at: T },
  };
  it('records a delivery once', () => {
    spec.given([...active, replied]).when({ type: 'RecordDelivery', messageId: R1, platformMessageId: 77, now: T2 }).then([{ type: 'MessageDelivered', data: { messageId: R1, platformMessageId: 77, at: T2 } }]);
    spec.given([...active, replied, { type: 'MessageDelivered', data: { messageId: R1, platformMessageId: 77, at: T2 } }]).when({ type: 'RecordDelivery', messageId: R1, platformMessageId: 77, now: T2 }).then([]);
  });
  it('records a delivery to the sandbox as delivered, saying where it went', () => {
    spec
      .given([...active, replied])
      .when({ type: 'RecordDelivery', messageId: R1, platformMessageId: null, deliveredTo: 'sandbox', now: T2 })
      .then([{ type: 'MessageDelivered', data: { messageId: R1, platformMessageId: null, deliveredTo: 'sandbox', at: T2 } }]);
    spec.given([...active, replied, { type: 'MessageDelivered', data: { messageId: R1, platformMessageId: null, deliveredTo: 'sandbox', at: T2 } }]).when({ type: 'RecordDeliveryFailure', messageId: R1, reason: 'late', attempts: 1, now: T2 }).then([]);
  });
  it('records a failure only for a pending message', () => {
    spec.given([...active, replied]).when({ type: 'RecordDeliveryFailure', messageId: R1, reason: 'platform answered 500', attempts: 5, now: T2 }).then([
      { type: 'MessageDeliveryFailed', data: { messageId: R1, reason: 'platform answered 500', attempts: 5, at: T2 } },
    ]);
    spec.given([...active, replied, { type: 'MessageDelivered', data: { messageId: R1, platformMessageId: 1, at: T } }]).when({ type: 'RecordDeliveryFailure', messageId: R1, reason: 'late', attempts: 5, now: T2 }).then([]);
  });
  it('records each send attempt before the call, only while the message is pending', () => {
    const attempted = { type: 'MessageSendAttempted' as const, data: { messageId: R1, attempt: 1, idempotencyKey: R1, at: T2 } };
    const after = spec.given([...active, replied]).when({ type: 'RecordSendAttempt', messageId: R1, idempotencyKey: R1, now: T2 }).then([attempted]);
    expect(after.outbound[R1]).toEqual({ attempts: 1 });
    spec.given([...active, replied, attempted]).when({ type: 'RecordSendAttempt', messageId: R1, idempotencyKey: R1, now: T2 }).then([{ ...attempted, data: { ...attempted.data, attempt: 2 } }]);
    spec.given([...active, replied, attempted, { type: 'MessageDelivered', data: { messageId: R1, platformMessageId: 1, at: T2 } }])
      .when({ type: 'RecordSendAttempt', messageId: R1, idempotencyKey: R1, now: T2 })
      .then([]);
  });
  it('a settled message leaves the pending set: the state does not grow with the messages sent', () => {
    const after = spec.given([...active, replied]).when({ type: 'RecordDelivery', messageId: R1, platformMessageId: 77, now: T2 }).then([{ type: 'MessageDelivered', data: { messageId: R1, platformMessageId: 77, at: T2 } }]);
    expect(after.outbound).toEqual({});
    // A late failure report for it, or a second delivery report, records nothing.
    spec.given([...active, replied, { type: 'MessageDelivered', data: { messageId: R1, platformMessageId: 77, at: T2 } }])
      .when({ type: 'RecordDeliveryFailure', messageId: R1, reason: 'late', attempts: 2, now: T2 })
      .then([]);
  });
  it('an operator message from the dashboard pauses the AI', () => {
    spec.given(active).when({ type: 'SendOperatorMessage', messageId: M2, text: 'Hi, Anna here', by: 'user:1', now: T2 }).then([
      { type: 'OperatorMessageSent', data: { messageId: M2, text: 'Hi, Anna here', by: 'user:1', at: T2 } },
      { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'operator_message', by: 'user:1', at: T2 } },
    ]);
  });
  it("moves between the company's stages only", () => {
    spec.given(active).when({ type: 'ChangeStage', stageId: STAGE_B, validStageIds: [STAGE_A, STAGE_B], by: null, now: T2 }).then([{ type: 'StageChanged', data: { stageId: STAGE_B, by: null, at: T2 } }]);
    spec.given(active).when({ type: 'ChangeStage', stageId: STAGE_A, validStageIds: [STAGE_A, STAGE_B], by: null, now: T2 }).then([]);
    spec.given(active).when({ type: 'ChangeStage', stageId: R1, validStageIds: [STAGE_A, STAGE_B], by: null, now: T2 }).thenThrows('VALIDATION_ERROR');
  });
  it('unanswered messages are marked with the reason, and a handoff pauses', () => {
    spec.given(active).when({ type: 'MarkUnanswered', messageIds: [M1], reason: 'no agent', handoff: false, now: T2 }).then([
      { type: 'MessagesUnanswered', data: { messageIds: [M1], reason: 'no agent', at: T2 } },
    ]);
    const events = conversationDecider.decide({ type: 'MarkUnanswered', messageIds: [M1], reason: 'LLM down', handoff: true, now: T2 }, active.reduce(conversationDecider.evolve, conversationDecider.initialState));
    expect(events.map((e) => e.type)).toEqual(['MessagesUnanswered', 'AiSessionPaused']);
  });
});

describe('a conversation of years keeps a bounded state', () => {
  it('given 5,000 messages, answers and deliveries, the dedupe window, reply ids and pending sends stay bounded', () => {
    let state = active.reduce(conversationDecider.evolve, conversationDecider.initialState);
    for (let i = 0; i < 5000; i++) {
      const m = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      const r = `10000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      state = conversationDecider.evolve(state, received(m, `msg:${i}`, 'x'.repeat(10_000)));
      state = conversationDecider.evolve(state, {
        type: 'AgentReplied',
        data: { messageId: r, sessionId: S1, agentId: null, text: 'y'.repeat(10_000), inReplyTo: [m], model: 'm', inputTokens: 0, outputTokens: 0, handoff: false, at: T },
      });
      state = conversationDecider.evolve(state, { type: 'MessageDelivered', data: { messageId: r, platformMessageId: i, at: T } });
    }
    expect(state.messageCount).toBe(10_001);
    expect(dedupeWindowSize(state.dedupe)).toBeLessThanOrEqual(DEDUPE_WINDOW_MAX);
    expect(state.replies.length).toBeLessThanOrEqual(100);
    expect(Object.keys(state.outbound)).toHaveLength(0);
    expect(state.settled.length).toBeLessThanOrEqual(50);
    expect(JSON.stringify(state).length).toBeLessThan(100_000);
    // The newest delivery is still recognised as a duplicate; the oldest is left to the store's unique id index.
    expect(isDuplicate(state, 'msg:4999', T2)).toBe(true);
    expect(isDuplicate(state, `msg:${5000 - DEDUPE_WINDOW_MIN}`, T2)).toBe(true);
    expect(isDuplicate(state, 'msg:0', T2)).toBe(false);
  });

  it('given a customer writing 5,000 messages with no answer in between, the messages awaiting an answer stay bounded to the newest', () => {
    let state = active.reduce(conversationDecider.evolve, conversationDecider.initialState);
    const ids = Array.from({ length: 5000 }, (_, i) => `20000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    for (const [i, m] of ids.entries()) state = conversationDecider.evolve(state, received(m, `msg:${i}`, 'hello?'));
    expect(state.unanswered).toEqual(ids.slice(-50));
    expect(state.messageCount).toBe(5001);
  });
});
