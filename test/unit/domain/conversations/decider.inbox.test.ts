import { describe, expect, it } from 'vitest';
import { conversationDecider, type ConversationCommand } from '../../../../src/domain/conversations/decider.js';
import type { ConversationEvent } from '../../../../src/domain/conversations/events.js';
import { asksForHuman } from '../../../../src/domain/conversations/state.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(conversationDecider);
const CONV = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const OTHER_CO = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';
const ANN = 'a0a0a0a0-a0a0-40a0-80a0-a0a0a0a0a0a0';
const BOB = 'b0b0b0b0-b0b0-40b0-80b0-b0b0b0b0b0b0';
const S1 = '51515151-5151-4515-8515-515151515151';
const S2 = '52525252-5252-4525-8525-525252525252';
const M1 = '11111111-1111-4111-8111-111111111111';
const M2 = '22222222-2222-4222-8222-222222222222';
const R1 = '33333333-3333-4333-8333-333333333333';
const O1 = '44444444-4444-4444-8444-444444444444';
const T = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-01T00:05:00.000Z';
const T3 = '2026-01-01T00:09:00.000Z';

const start = { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform' as const, customer: { clientId: 42, channelId: 1, transport: 'telegram' }, defaultStageId: null };
const started: ConversationEvent = { type: 'ConversationStarted', data: { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform', customer: start.customer, stageId: null, at: T } };
const opened: ConversationEvent = { type: 'AiSessionOpened', data: { sessionId: S1, at: T } };
const received = (messageId = M1, at = T, text = 'where is my parcel?'): ConversationEvent => ({
  type: 'MessageReceived',
  data: { messageId, dedupeKey: `msg:${messageId}`, dedupeUntil: null, text, platform: {}, at },
});
const active = [started, opened, received()];
const assigned = (assigneeId: string, previousAssigneeId: string | null = null): ConversationEvent => ({ type: 'ConversationAssigned', data: { assigneeId, previousAssigneeId, by: `user:${ANN}`, at: T } });
const autoAssign = (assigneeId: string): ConversationCommand => ({ type: 'AssignConversation', assigneeId, assignee: { userId: assigneeId, companyId: CO }, by: 'auto-assignment', reason: 'auto', now: T2 });
const assign = (assigneeId: string, companyId: string | null = CO): ConversationCommand => ({
  type: 'AssignConversation',
  assigneeId,
  assignee: companyId ? { userId: assigneeId, companyId } : null,
  by: `user:${ANN}`,
  now: T2,
});
const handoffReply: ConversationEvent = {
  type: 'AgentReplied',
  data: { messageId: R1, sessionId: S1, agentId: null, text: 'A colleague will get back to you.', inReplyTo: [M1], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: true, at: T2 },
};
const handoffPause: ConversationEvent = { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'handoff', by: null, at: T2 } };
const handedOff = [...active, handoffReply, handoffPause];
const stateOf = (events: ConversationEvent[]) => events.reduce(conversationDecider.evolve, conversationDecider.initialState);

describe('Assignment', () => {
  it('a teammate of the company is assigned: ConversationAssigned with who, why (manual) and at', () => {
    const after = spec.given(active).when(assign(BOB)).then([{ type: 'ConversationAssigned', data: { assigneeId: BOB, previousAssigneeId: null, by: `user:${ANN}`, reason: 'manual', at: T2 } }]);
    expect(after.assigneeId).toBe(BOB);
  });
  it('reassigning records who had it before', () => {
    spec.given([...active, assigned(ANN)]).when(assign(BOB)).then([{ type: 'ConversationAssigned', data: { assigneeId: BOB, previousAssigneeId: ANN, by: `user:${ANN}`, reason: 'manual', at: T2 } }]);
  });
  it('automatic assignment takes a handed-off conversation nobody owns, recording why (auto)', () => {
    spec.given(handedOff).when(autoAssign(BOB)).then([
      { type: 'ConversationAssigned', data: { assigneeId: BOB, previousAssigneeId: null, by: 'auto-assignment', reason: 'auto', at: T2 } },
    ]);
  });
  it('automatic assignment never overrides a person: an owned, a not handed-off or a resolved conversation records nothing', () => {
    const auto = autoAssign(BOB);
    spec.given([...handedOff, assigned(ANN)]).when(auto).then([]);
    spec.given(active).when(auto).then([]);
    spec.given([...handedOff, { type: 'AiSessionClosed', data: { sessionId: S1, reason: 'api', action: 'session_close', by: `user:${ANN}`, at: T2 } }]).when(auto).then([]);
  });
  it('assigning the current owner again is idempotent (nothing recorded)', () => {
    spec.given([...active, assigned(BOB)]).when(assign(BOB)).then([]);
  });
  it('assigning a user who is not a member is refused: unknown user, or a user of another company', () => {
    spec.given(active).when(assign(BOB, null)).thenThrows('VALIDATION_ERROR');
    spec.given(active).when(assign(BOB, OTHER_CO)).thenThrows('VALIDATION_ERROR');
  });
  it('a conversation that does not exist cannot be assigned or unassigned', () => {
    spec.given([]).when(assign(BOB)).thenThrows('NOT_FOUND');
    spec.given([]).when({ type: 'UnassignConversation', by: `user:${ANN}`, now: T2 }).thenThrows('NOT_FOUND');
  });
  it('unassign records who had it; unassigning an unassigned conversation records nothing', () => {
    const after = spec.given([...active, assigned(BOB)]).when({ type: 'UnassignConversation', by: `user:${ANN}`, now: T2 }).then([
      { type: 'ConversationUnassigned', data: { previousAssigneeId: BOB, by: `user:${ANN}`, at: T2 } },
    ]);
    expect(after.assigneeId).toBeNull();
    spec.given(active).when({ type: 'UnassignConversation', by: `user:${ANN}`, now: T2 }).then([]);
  });
});

describe('Unassigning a removed teammate', () => {
  it("given a conversation of the removed teammate, it is unassigned; given one someone else took meanwhile, nothing is recorded", () => {
    spec.given([...active, assigned(BOB)]).when({ type: 'UnassignConversation', from: BOB, by: `user:${ANN}`, now: T2 }).then([
      { type: 'ConversationUnassigned', data: { previousAssigneeId: BOB, by: `user:${ANN}`, at: T2 } },
    ]);
    spec.given([...active, assigned(BOB), assigned(ANN, BOB)]).when({ type: 'UnassignConversation', from: BOB, by: `user:${ANN}`, now: T2 }).then([]);
    spec.given(active).when({ type: 'UnassignConversation', from: BOB, by: `user:${ANN}`, now: T2 }).then([]);
  });
});

describe('Handoff queue ("Needs human")', () => {
  it('a handoff reply by the model sets the handoff with the time the customer started waiting', () => {
    expect(stateOf(handedOff).handoff.handoff).toEqual({ reason: 'agent_handoff', detail: null, since: T });
  });
  it("a handoff by the model's tool call records its reason on AgentReplied (bounded) and shows it as the handoff's detail; a reason without a handoff is not kept", () => {
    const reply = (handoff: boolean, handoffReason?: string): ConversationCommand => ({
      type: 'AppendAgentReply',
      messageId: R1,
      sessionId: S1,
      agentId: null,
      text: 'A colleague will get back to you.',
      inReplyTo: [M1],
      model: 'gpt-4o-mini',
      inputTokens: 10,
      outputTokens: 2,
      handoff,
      ...(handoffReason !== undefined ? { handoffReason } : {}),
      now: T2,
    });
    const after = spec.given(active).when(reply(true, 'Wants a refund')).then([
      { type: 'AgentReplied', data: { ...handoffReply.data, model: 'gpt-4o-mini', inputTokens: 10, outputTokens: 2, handoffReason: 'Wants a refund' } },
      handoffPause,
    ]);
    expect(after.handoff.handoff).toEqual({ reason: 'agent_handoff', detail: 'Wants a refund', since: T });
    const events = conversationDecider.decide(reply(true, 'x'.repeat(900)), stateOf(active));
    expect((events[0]!.data as { handoffReason: string }).handoffReason).toHaveLength(500);
    const plain = conversationDecider.decide(reply(false, 'ignored'), stateOf(active));
    expect(plain[0]!.data).not.toHaveProperty('handoffReason');
  });
  it('given an active conversation, when the answerer hands off for want of a confident answer, then AgentReplied records the cause and the queue shows it as its own reason', () => {
    const command: ConversationCommand = {
      type: 'AppendAgentReply',
      messageId: R1,
      sessionId: S1,
      agentId: null,
      text: 'A colleague will get back to you.',
      inReplyTo: [M1],
      model: 'builtin',
      inputTokens: 0,
      outputTokens: 0,
      handoff: true,
      handoffReason: 'no confident answer',
      handoffCause: 'no_confident_answer',
      now: T2,
    };
    const after = spec.given(active).when(command).then([
      { type: 'AgentReplied', data: { ...handoffReply.data, model: 'builtin', inputTokens: 0, outputTokens: 0, handoffReason: 'no confident answer', handoffCause: 'no_confident_answer' } },
      handoffPause,
    ]);
    // The reason says it all: no detail unless the model gave its own words.
    expect(after.handoff.handoff).toEqual({ reason: 'no_confident_answer', detail: null, since: T });
    // An answer (no handoff) never carries a cause.
    const answered = conversationDecider.decide({ ...command, handoff: false }, stateOf(active));
    expect(answered[0]!.data).not.toHaveProperty('handoffCause');
  });
  it('the AI failing with a handoff (MarkUnanswered handoff) sets it with the failure as detail', () => {
    const after = spec.given(active).when({ type: 'MarkUnanswered', messageIds: [M1], reason: 'the language model failed (timeout)', handoff: true, now: T2 }).then([
      { type: 'MessagesUnanswered', data: { messageIds: [M1], reason: 'the language model failed (timeout)', at: T2 } },
      { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'handoff', by: null, at: T2 } },
    ]);
    expect(after.handoff.handoff).toEqual({ reason: 'ai_unanswered', detail: 'the language model failed (timeout)', since: T });
  });
  it('an unanswered message without handoff (no agent) does not join the queue', () => {
    const after = spec.given(active).when({ type: 'MarkUnanswered', messageIds: [M1], reason: 'no agent', handoff: false, now: T2 }).then([
      { type: 'MessagesUnanswered', data: { messageIds: [M1], reason: 'no agent', at: T2 } },
    ]);
    expect(after.handoff.handoff).toBeNull();
  });
  it('the platform transferring the dialog sets it, even when the session was already paused', () => {
    const paused: ConversationEvent = { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'api', by: 'user:x', at: T } };
    const after = spec.given([...active, paused]).when({ type: 'TransferDialog', dialogId: 5, requestId: 6, now: T2 }).then([
      { type: 'DialogTransferred', data: { action: 'session_transfer_external', dialogId: 5, requestId: 6, at: T2 } },
    ]);
    expect(after.handoff.handoff).toEqual({ reason: 'dialog_transferred', detail: null, since: T });
  });
  it('a customer asking for a human: HumanRequested (the AI still answers meanwhile)', () => {
    const after = spec.given(active).when({
      type: 'ReceiveCustomerMessage', start, sessionId: S2, messageId: M2, dedupeKey: 'msg:2', dedupeUntil: null, text: 'Can I talk to a human please?', platform: {}, now: T2,
    }).then([
      { type: 'MessageReceived', data: { messageId: M2, dedupeKey: 'msg:2', dedupeUntil: null, text: 'Can I talk to a human please?', platform: {}, at: T2 } },
      { type: 'HumanRequested', data: { messageId: M2, at: T2 } },
    ]);
    expect(after.handoff.handoff).toEqual({ reason: 'customer_request', detail: null, since: T });
    expect(after.session?.state).toBe('active');
  });
  it('asking again while already waiting for a human records only the message', () => {
    const events = conversationDecider.decide(
      { type: 'ReceiveCustomerMessage', start, sessionId: S2, messageId: M2, dedupeKey: 'msg:2', dedupeUntil: null, text: 'human please', platform: {}, now: T2 },
      stateOf(handedOff),
    );
    expect(events.map((e) => e.type)).toEqual(['MessageReceived']);
  });
  it('an AI answer after the request does not take it out of the queue; a human reply does', () => {
    const requested: ConversationEvent = { type: 'HumanRequested', data: { messageId: M1, at: T } };
    const answered: ConversationEvent = {
      type: 'AgentReplied',
      data: { messageId: R1, sessionId: S1, agentId: null, text: 'A colleague is coming.', inReplyTo: [M1], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: false, at: T2 },
    };
    expect(stateOf([...active, requested, answered]).handoff.handoff).toEqual({ reason: 'customer_request', detail: null, since: T });
    const human: ConversationEvent = { type: 'OperatorMessageRecorded', data: { messageId: O1, dedupeKey: 'msg:op', dedupeUntil: null, text: 'Anna here', platform: {}, at: T3 } };
    expect(stateOf([...active, requested, answered, human]).handoff.handoff).toBeNull();
  });
  it('the first reason and the waiting time stay when another handoff follows', () => {
    const transferred: ConversationEvent = { type: 'DialogTransferred', data: { action: 'session_transfer_external', dialogId: 5, requestId: null, at: T3 } };
    expect(stateOf([...handedOff, transferred]).handoff.handoff).toEqual({ reason: 'agent_handoff', detail: null, since: T });
  });
  it('a manual pause is not a handoff', () => {
    const after = spec.given(active).when({ type: 'PauseSession', reason: 'api', by: 'user:x', now: T2 }).then([
      { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'api', by: 'user:x', at: T2 } },
    ]);
    expect(after.handoff.handoff).toBeNull();
  });
  it('cleared when a human replies', () => {
    const after = spec.given(handedOff).when({ type: 'SendOperatorMessage', messageId: O1, text: 'Hi, Bob here', by: `user:${BOB}`, now: T3 }).then([
      { type: 'OperatorMessageSent', data: { messageId: O1, text: 'Hi, Bob here', by: `user:${BOB}`, at: T3 } },
    ]);
    expect(after.handoff).toEqual({ handoff: null, waitingSince: null, lastUnansweredReason: null });
  });
  it('cleared when the conversation is resolved (closed with a resolution)', () => {
    const after = spec.given(handedOff).when({ type: 'CloseSession', reason: 'api', by: `user:${BOB}`, resolution: 'Refund issued', now: T3 }).then([
      { type: 'AiSessionClosed', data: { sessionId: S1, reason: 'api', action: 'session_close', by: `user:${BOB}`, resolution: 'Refund issued', at: T3 } },
    ]);
    expect(after.handoff.handoff).toBeNull();
  });
  it('cleared when the AI is resumed', () => {
    const after = spec.given(handedOff).when({ type: 'ResumeSession', by: `user:${BOB}`, now: T3 }).then([{ type: 'AiSessionResumed', data: { sessionId: S1, by: `user:${BOB}`, at: T3 } }]);
    expect(after.handoff.handoff).toBeNull();
  });
  it('recognises clear requests for a person and nothing else', () => {
    for (const text of ['human', 'I need a human', 'Operator!', 'I want to speak to a human', 'can I talk with a real person?', 'connect me to an operator', 'Live agent please']) expect(asksForHuman(text), text).toBe(true);
    for (const text of ['hi', 'Is the human body 60% water?', 'where is my parcel?', 'the operator of the bus was rude', 'what is a representative sample']) expect(asksForHuman(text), text).toBe(false);
  });
});

describe('Routing to a support team', () => {
  const TEAM = 'e0e0e0e0-e0e0-40e0-80e0-e0e0e0e0e0e0';
  const TEAM2 = 'e1e1e1e1-e1e1-40e1-80e1-e1e1e1e1e1e1';
  const route = (teamId: string | null, ifUnrouted = false, by = `user:${ANN}`): ConversationCommand => ({ type: 'RouteConversationToTeam', teamId, teamExists: teamId !== null, ifUnrouted, by, now: T2 });
  const routed = (teamId: string | null, previousTeamId: string | null, by = `user:${ANN}`): ConversationEvent => ({ type: 'ConversationRoutedToTeam', data: { teamId, previousTeamId, by, at: T2 } });

  it('a teammate moves it to a team, and back to none; the same team again records nothing', () => {
    const after = spec.given(active).when(route(TEAM)).then([routed(TEAM, null)]);
    expect(after.teamId).toBe(TEAM);
    spec.given([...active, routed(TEAM, null)]).when(route(TEAM)).then([]);
    spec.given([...active, routed(TEAM, null)]).when(route(null)).then([routed(null, TEAM)]);
  });

  it('routing on a handoff sets the team of an unrouted conversation only: a team chosen before stays', () => {
    spec.given(active).when(route(TEAM, true, 'routing')).then([routed(TEAM, null, 'routing')]);
    spec.given([...active, routed(TEAM2, null)]).when(route(TEAM, true, 'routing')).then([]);
  });

  it("a deleted team's conversation goes back to no team, unless moved to another team meanwhile", () => {
    const unroute = (from: string): ConversationCommand => ({ type: 'RouteConversationToTeam', teamId: null, teamExists: false, ifUnrouted: false, from, by: 'routing', now: T2 });
    spec.given([...active, routed(TEAM, null)]).when(unroute(TEAM)).then([routed(null, TEAM, 'routing')]);
    spec.given([...active, routed(TEAM2, null)]).when(unroute(TEAM)).then([]);
  });

  it("a team not of the conversation's company is refused; a missing conversation is NOT_FOUND", () => {
    spec.given(active).when({ type: 'RouteConversationToTeam', teamId: TEAM, teamExists: false, ifUnrouted: false, by: `user:${ANN}`, now: T2 }).thenThrows('VALIDATION_ERROR');
    spec.given([]).when(route(TEAM)).thenThrows('NOT_FOUND');
  });
});
