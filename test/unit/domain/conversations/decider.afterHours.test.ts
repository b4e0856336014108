import { describe, expect, it } from 'vitest';
import { conversationDecider, type ConversationCommand } from '../../../../src/domain/conversations/decider.js';
import type { ConversationEvent } from '../../../../src/domain/conversations/events.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(conversationDecider);
const CONV = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const S1 = '51515151-5151-4515-8515-515151515151';
const M1 = '11111111-1111-4111-8111-111111111111';
const R1 = '33333333-3333-4333-8333-333333333333';
const T = '2026-01-10T10:00:00.000Z';
const BACK = '2026-01-12T08:00:00.000Z';

const given: ConversationEvent[] = [
  { type: 'ConversationStarted', data: { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform', customer: { clientId: 42, channelId: 1, transport: 'telegram' }, stageId: null, at: T } },
  { type: 'AiSessionOpened', data: { sessionId: S1, at: T } },
  { type: 'MessageReceived', data: { messageId: M1, dedupeKey: `msg:${M1}`, dedupeUntil: null, text: 'pizza?', platform: {}, at: T } },
];
const reply = (backAt?: string): ConversationCommand =>
  ({ type: 'AppendAgentReply', messageId: R1, sessionId: S1, agentId: null, text: 'A colleague will reply.', inReplyTo: [M1], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: true, ...(backAt ? { backAt } : {}), now: T });

describe('conversation decider: handoffs outside business hours', () => {
  it('given a handoff reply outside hours, then the reply and the pause carry when people are back, and the queue entry waits until then', () => {
    const state = spec.given(given).when(reply(BACK)).then([
      { type: 'AgentReplied', data: { messageId: R1, sessionId: S1, agentId: null, text: 'A colleague will reply.', inReplyTo: [M1], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: true, backAt: BACK, at: T } },
      { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'handoff', by: null, backAt: BACK, at: T } },
    ]);
    expect(state.handoff.handoff).toEqual({ reason: 'agent_handoff', detail: null, since: T, backAt: BACK });
  });

  it('given a handoff in hours, then nothing says after hours', () => {
    const state = spec.given(given).when(reply()).then([
      { type: 'AgentReplied', data: { messageId: R1, sessionId: S1, agentId: null, text: 'A colleague will reply.', inReplyTo: [M1], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: true, at: T } },
      { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'handoff', by: null, at: T } },
    ]);
    expect(state.handoff.handoff).toEqual({ reason: 'agent_handoff', detail: null, since: T });
  });

  it('given the model failing outside hours, then the messages left to people wait "after hours" too', () => {
    const state = spec.given(given).when({ type: 'MarkUnanswered', messageIds: [M1], reason: 'the language model failed', handoff: true, backAt: BACK, now: T }).then([
      { type: 'MessagesUnanswered', data: { messageIds: [M1], reason: 'the language model failed', at: T } },
      { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'handoff', by: null, backAt: BACK, at: T } },
    ]);
    expect(state.handoff.handoff).toMatchObject({ reason: 'ai_unanswered', backAt: BACK });
  });

  it('given a customer who asked for a person, when the AI answers them (no handoff) outside hours, then the answer carries when people are back and so does their wait', () => {
    const asked: ConversationEvent[] = [...given, { type: 'HumanRequested', data: { messageId: M1, at: T } }];
    const answer: ConversationCommand = { ...(reply(BACK) as Extract<ConversationCommand, { type: 'AppendAgentReply' }>), text: 'Someone will write to you.', handoff: false };
    const state = spec.given(asked).when(answer).then([
      { type: 'AgentReplied', data: { messageId: R1, sessionId: S1, agentId: null, text: 'Someone will write to you.', inReplyTo: [M1], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: false, backAt: BACK, at: T } },
    ]);
    expect(state.handoff.handoff).toEqual({ reason: 'customer_request', detail: null, since: T, backAt: BACK });
  });

  it('given nobody waits for a person, then an ordinary answer carries no backAt whatever the worker sends', () => {
    const answer: ConversationCommand = { ...(reply(BACK) as Extract<ConversationCommand, { type: 'AppendAgentReply' }>), text: 'We ship.', handoff: false };
    const state = spec.given(given).when(answer).then([
      { type: 'AgentReplied', data: { messageId: R1, sessionId: S1, agentId: null, text: 'We ship.', inReplyTo: [M1], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: false, at: T } },
    ]);
    expect(state.handoff.handoff).toBeNull();
  });
});
