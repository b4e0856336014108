import { describe, expect, it } from 'vitest';
import { conversationDecider, HAND_BACK_TIMEOUT, NO_MODEL } from '../../../../src/domain/conversations/decider.js';
import type { ConversationEvent } from '../../../../src/domain/conversations/events.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(conversationDecider);
const CONV = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const AGENT = 'a9a9a9a9-a9a9-49a9-89a9-a9a9a9a9a9a9';
const S1 = '51515151-5151-4515-8515-515151515151';
const M1 = '11111111-1111-4111-8111-111111111111';
const R1 = '33333333-3333-4333-8333-333333333333';
const T = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-01T00:05:00.000Z';

const customer = { clientId: 42, channelId: 1, transport: 'telegram' };
const started: ConversationEvent = { type: 'ConversationStarted', data: { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform', customer, stageId: null, at: T } };
const opened: ConversationEvent = { type: 'AiSessionOpened', data: { sessionId: S1, at: T } };
const received: ConversationEvent = { type: 'MessageReceived', data: { messageId: M1, dedupeKey: 'msg:1', dedupeUntil: null, text: 'where is my parcel?', platform: {}, at: T } };
const active = [started, opened, received];
const CAUSE = 'The AI model could not be reached (connection refused)';
const notice = { messageId: R1, agentId: AGENT, text: 'A colleague will reply soon.' };

describe('The AI cannot answer: the customer is told, the team reads why', () => {
  it('given a waiting message, when it is marked unanswered with a handoff notice, then the notice answers it and the conversation needs a human for that cause', () => {
    const after = spec.given(active).when({ type: 'MarkUnanswered', messageIds: [M1], reason: CAUSE, handoff: true, notice, now: T2 }).then([
      { type: 'MessagesUnanswered', data: { messageIds: [M1], reason: CAUSE, at: T2 } },
      {
        type: 'AgentReplied',
        data: { messageId: R1, sessionId: S1, agentId: AGENT, text: notice.text, inReplyTo: [M1], model: NO_MODEL, inputTokens: 0, outputTokens: 0, handoff: true, aiFailed: true, at: T2 },
      },
      { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'handoff', by: null, at: T2 } },
    ]);
    expect(after.handoff.handoff).toEqual({ reason: 'ai_unanswered', detail: CAUSE, since: T });
    expect(after.outbound).toHaveProperty(R1);
    expect(after.session?.state).toBe('paused');
  });
  it('given the notice already sent, when the same failure is recorded again (a redelivered job), then nothing is recorded', () => {
    const first = conversationDecider.decide({ type: 'MarkUnanswered', messageIds: [M1], reason: CAUSE, handoff: true, notice, now: T2 }, active.reduce(conversationDecider.evolve, conversationDecider.initialState));
    spec.given([...active, ...first]).when({ type: 'MarkUnanswered', messageIds: [M1], reason: CAUSE, handoff: true, notice, now: T2 }).then([]);
  });
  it('given no handoff (no agent answers), when marked unanswered with a notice, then no notice is sent', () => {
    spec.given(active).when({ type: 'MarkUnanswered', messageIds: [M1], reason: 'no agent', handoff: false, notice, now: T2 }).then([
      { type: 'MessagesUnanswered', data: { messageIds: [M1], reason: 'no agent', at: T2 } },
    ]);
  });
});

const handedOff: ConversationEvent[] = [
  ...active,
  {
    type: 'AgentReplied',
    data: { messageId: R1, sessionId: S1, agentId: AGENT, text: 'A colleague will reply soon.', inReplyTo: [M1], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: true, at: T },
  },
  { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'handoff', by: null, at: T } },
];
const M2 = '22222222-2222-4222-8222-222222222222';
const O1 = '44444444-4444-4444-8444-444444444444';
const laterMessage = (at: string): ConversationEvent => ({ type: 'MessageReceived', data: { messageId: M2, dedupeKey: 'msg:2', dedupeUntil: null, text: 'hello?', platform: {}, at } });
const minutesAfterT = (minutes: number) => new Date(Date.parse(T) + minutes * 60_000).toISOString();

describe('No handoff loops: a later message does not hand the conversation back to the AI', () => {
  it('given a handed-off conversation, when the customer writes again, then the AI stays paused and the conversation still needs a human', () => {
    const after = spec.given(handedOff).when({ type: 'ReceiveCustomerMessage', start: { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform', customer, defaultStageId: null }, sessionId: S1, messageId: M2, dedupeKey: 'msg:2', dedupeUntil: null, text: 'hello?', platform: {}, now: minutesAfterT(600) }).then([
      laterMessage(minutesAfterT(600)),
    ]);
    expect(after.session).toMatchObject({ state: 'paused', pausedReason: 'handoff' });
    expect(after.handoff.handoff?.reason).toBe('agent_handoff');
  });
  it('given a hand-back timeout of 30 minutes, when the customer writes 31 minutes after the handoff, then the AI takes the conversation back', () => {
    const after = spec.given([...handedOff, laterMessage(minutesAfterT(31))]).when({ type: 'HandBackToAi', afterMinutes: 30, now: minutesAfterT(31) }).then([
      { type: 'AiSessionResumed', data: { sessionId: S1, by: HAND_BACK_TIMEOUT, at: minutesAfterT(31) } },
    ]);
    expect(after.session?.state).toBe('active');
    expect(after.handoff.handoff).toBeNull();
  });
  it('given a hand-back timeout of 30 minutes, when the customer writes 29 minutes after the handoff, then it stays with people', () => {
    spec.given([...handedOff, laterMessage(minutesAfterT(29))]).when({ type: 'HandBackToAi', afterMinutes: 30, now: minutesAfterT(29) }).then([]);
  });
  it('the timeout counts from the last teammate message, not from the handoff', () => {
    const teammate: ConversationEvent = { type: 'OperatorMessageSent', data: { messageId: O1, text: 'Looking into it', by: 'user:x', at: minutesAfterT(20) } };
    spec.given([...handedOff, teammate, laterMessage(minutesAfterT(31))]).when({ type: 'HandBackToAi', afterMinutes: 30, now: minutesAfterT(31) }).then([]);
  });
  it('a deliberate pause (api) or a platform transfer is never ended by the timeout', () => {
    const pausedByApi: ConversationEvent[] = [...active, { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'api', by: 'user:x', at: T } }];
    spec.given([...pausedByApi, laterMessage(minutesAfterT(600))]).when({ type: 'HandBackToAi', afterMinutes: 30, now: minutesAfterT(600) }).then([]);
  });
  it('without a new customer message nothing is handed back', () => {
    spec.given(handedOff).when({ type: 'HandBackToAi', afterMinutes: 30, now: minutesAfterT(600) }).then([]);
  });
});

describe('The handoff summary: one per handoff', () => {
  const summary = { wants: 'A parcel update', tried: 'Nothing', sources: [], why: 'The AI handed off' };
  const SUM = '99999999-9999-4999-8999-999999999999';
  const record = (since: string) => ({ type: 'RecordHandoffSummary' as const, summaryId: SUM, since, writtenBy: 'extractive' as const, model: 'builtin', inputTokens: 0, outputTokens: 0, ...summary, now: T2 });
  it('given a handoff, when its summary is recorded, then HandoffSummarized', () => {
    const after = spec.given(handedOff).when(record(T)).then([
      { type: 'HandoffSummarized', data: { summaryId: SUM, since: T, writtenBy: 'extractive', model: 'builtin', inputTokens: 0, outputTokens: 0, ...summary, at: T2 } },
    ]);
    expect(after.summarizedHandoff).toBe(T);
  });
  it('given the handoff summarised already, when a summary is recorded again (a redelivered job), then nothing', () => {
    const first = conversationDecider.decide(record(T), handedOff.reduce(conversationDecider.evolve, conversationDecider.initialState));
    spec.given([...handedOff, ...first]).when(record(T)).then([]);
  });
  it('given the handoff ended (a teammate answered) or another one, then a late summary is dropped', () => {
    const answered: ConversationEvent = { type: 'OperatorMessageSent', data: { messageId: O1, text: 'Hi', by: 'user:x', at: T2 } };
    spec.given([...handedOff, answered]).when(record(T)).then([]);
    spec.given(handedOff).when(record(T2)).then([]);
  });
});
