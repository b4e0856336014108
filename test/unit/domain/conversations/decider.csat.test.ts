import { describe, it } from 'vitest';
import { conversationDecider, type ConversationCommand } from '../../../../src/domain/conversations/decider.js';
import type { ConversationEvent } from '../../../../src/domain/conversations/events.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(conversationDecider);
const CONV = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const AGENT = 'a9e7c6b5-1111-4222-8333-444455556666';
const ANN = 'a0a0a0a0-a0a0-40a0-80a0-a0a0a0a0a0a0';
const S1 = '51515151-5151-4515-8515-515151515151';
const S2 = '52525252-5252-4525-8525-525252525252';
const M1 = '11111111-1111-4111-8111-111111111111';
const M2 = '22222222-2222-4222-8222-222222222222';
const R1 = '33333333-3333-4333-8333-333333333333';
const SURVEY = '66666666-6666-4666-8666-666666666666';
const Q1 = '77777777-7777-4777-8777-777777777777';
const T = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-01T00:05:00.000Z';
const T3 = '2026-01-01T00:09:00.000Z';
const QUESTION = 'How would you rate the help you got?';

const customer = { clientId: 42, channelId: 1, transport: 'telegram' };
const start = { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform' as const, customer, defaultStageId: null };
const started: ConversationEvent = { type: 'ConversationStarted', data: { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform', customer, stageId: null, at: T } };
const opened = (sessionId = S1): ConversationEvent => ({ type: 'AiSessionOpened', data: { sessionId, at: T } });
const received = (messageId: string, text = 'where is my parcel?'): ConversationEvent => ({
  type: 'MessageReceived',
  data: { messageId, dedupeKey: `msg:${messageId}`, dedupeUntil: null, text, platform: {}, at: T },
});
const replied: ConversationEvent = {
  type: 'AgentReplied',
  data: { messageId: R1, sessionId: S1, agentId: AGENT, text: 'It ships today.', inReplyTo: [M1], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: false, at: T },
};
const assigned: ConversationEvent = { type: 'ConversationAssigned', data: { assigneeId: ANN, previousAssigneeId: null, by: `user:${ANN}`, at: T } };
const closed: ConversationEvent = { type: 'AiSessionClosed', data: { sessionId: S1, reason: 'api', action: 'session_close', by: `user:${ANN}`, at: T2 } };
/** Asked, answered, the customer wrote back, a teammate owns it, closed. */
const resolved = [started, opened(), received(M1), replied, received(M2, 'thanks!'), assigned, closed];
/** Asked, answered, closed: the customer never wrote after the answer. */
const quiet = [started, opened(), received(M1), replied, closed];

const request = (via: 'platform' | 'webchat', skipWithoutCustomerReply = false): ConversationCommand => ({
  type: 'RequestCsat',
  surveyId: SURVEY,
  sessionId: S1,
  via,
  messageId: Q1,
  ...(via === 'platform' ? { question: QUESTION } : {}),
  skipWithoutCustomerReply,
  now: T3,
});
const requested = (via: 'platform' | 'webchat'): ConversationEvent => ({
  type: 'CsatRequested',
  data: { surveyId: SURVEY, sessionId: S1, via, messageId: Q1, ...(via === 'platform' ? { text: QUESTION } : {}), agentId: AGENT, teammateId: ANN, at: T3 },
});
const customerWrites = (messageId: string, text: string): ConversationCommand => ({
  type: 'ReceiveCustomerMessage',
  start,
  sessionId: S2,
  messageId,
  dedupeKey: `msg:${messageId}`,
  dedupeUntil: null,
  text,
  platform: {},
  now: T3,
});
const submitted = (rating: number, comment: string | null, via: 'platform' | 'webchat', dedupe?: string): ConversationEvent => ({
  type: 'CsatSubmitted',
  data: { surveyId: SURVEY, rating, comment, via, agentId: AGENT, teammateId: ANN, ...(dedupe ? { dedupeKey: dedupe, dedupeUntil: null } : {}), at: T3 },
});

describe('conversation decider: the satisfaction survey (CSAT)', () => {
  it('given the answer was written by agent version 3, then the survey and its answer name that version (CSAT per agent version)', () => {
    const v3: ConversationEvent = { ...replied, data: { ...(replied.data as object), agentVersion: 3 } } as ConversationEvent;
    const history = [started, opened(), received(M1), v3, received(M2, 'thanks!'), assigned, closed];
    const asked: ConversationEvent = { type: 'CsatRequested', data: { ...(requested('webchat').data as object), agentVersion: 3 } } as ConversationEvent;
    spec.given(history).when(request('webchat')).then([asked]);
    const answer: ConversationEvent = { type: 'CsatSubmitted', data: { ...(submitted(5, null, 'webchat').data as object), agentVersion: 3 } } as ConversationEvent;
    spec.given([...history, asked]).when({ type: 'SubmitCsat', surveyId: SURVEY, rating: 5, comment: null, now: T3 }).then([answer]);
    // Replies stored before versions name none: the survey names none either.
    spec.given(resolved).when(request('webchat')).then([requested('webchat')]);
  });

  it('given a closed session, when the survey is requested, then it names the agent that answered and the teammate who owned it; on the platform it is a message to send', () => {
    spec.given(resolved).when(request('platform')).then([requested('platform')]);
    spec.given(resolved).when(request('webchat')).then([requested('webchat')]);
  });

  it('given the survey already requested, or the session reopened or written to since, then nothing is requested', () => {
    spec.given([...resolved, requested('platform')]).when(request('platform')).then([]);
    spec.given([...resolved, { type: 'ConversationReopened', data: { sessionId: S2, previousSessionId: S1, by: null, at: T2 } }]).when(request('webchat')).then([]);
    spec.given([started, opened(), received(M1)]).when(request('webchat')).then([]);
  });

  it('given the company skips conversations resolved without a customer reply, then one where the customer never wrote after the answer gets none', () => {
    spec.given(quiet).when(request('platform', true)).then([]);
    spec.given(quiet).when(request('platform', false)).then([{ ...requested('platform'), data: { ...requested('platform').data, teammateId: null } } as ConversationEvent]);
    spec.given(resolved).when(request('platform', true)).then([requested('platform')]);
  });

  it('given a platform survey waiting, when the customer replies "4 thanks", then that is the answer, not a new question', () => {
    spec.given([...resolved, requested('platform')]).when(customerWrites(M1.replace('1111', '9999'), '4 thanks')).then([submitted(4, 'thanks', 'platform', `msg:${M1.replace('1111', '9999')}`)]);
  });

  it('given a platform answer recorded, when the same delivery comes again, then nothing is recorded', () => {
    const id = M1.replace('1111', '9999');
    spec.given([...resolved, requested('platform'), submitted(5, null, 'platform', `msg:${id}`)]).when(customerWrites(id, '5')).then([]);
  });

  it('given a platform survey waiting, when the customer writes something that is no rating, then it is an ordinary message opening a new session', () => {
    const id = M1.replace('1111', '8888');
    spec.given([...resolved, requested('platform')]).when(customerWrites(id, 'I have another question')).then([
      { type: 'AiSessionOpened', data: { sessionId: S2, at: T3 } },
      { type: 'MessageReceived', data: { messageId: id, dedupeKey: `msg:${id}`, dedupeUntil: null, text: 'I have another question', platform: {}, at: T3 } },
    ]);
  });

  it('given a web-chat survey waiting, when the visitor answers, then the rating is recorded once; a second answer records nothing', () => {
    const submit: ConversationCommand = { type: 'SubmitCsat', surveyId: SURVEY, rating: 5, comment: '  Quick and kind ', now: T3 };
    spec.given([...resolved, requested('webchat')]).when(submit).then([submitted(5, 'Quick and kind', 'webchat')]);
    spec.given([...resolved, requested('webchat'), submitted(5, 'Quick and kind', 'webchat')]).when(submit).then([]);
  });

  it('refuses an answer when no survey waits (none asked, another survey, the session reopened), and a rating outside 1–5', () => {
    const submit = (rating = 4, surveyId = SURVEY): ConversationCommand => ({ type: 'SubmitCsat', surveyId, rating, comment: null, now: T3 });
    spec.given(resolved).when(submit()).thenThrows('NOT_FOUND');
    spec.given([...resolved, requested('webchat')]).when(submit(4, Q1)).thenThrows('NOT_FOUND');
    spec.given([...resolved, requested('webchat'), opened(S2), received(M2)]).when(submit()).thenThrows('NOT_FOUND');
    spec.given([...resolved, requested('webchat')]).when(submit(6)).thenThrows('VALIDATION_ERROR');
    spec.given([]).when(request('webchat')).thenThrows('NOT_FOUND');
  });
});
