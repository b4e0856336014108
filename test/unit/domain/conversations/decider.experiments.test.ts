import { describe, expect, it } from 'vitest';
import { conversationDecider, NO_MODEL, type ConversationCommand } from '../../../../src/domain/conversations/decider.js';
import type { ConversationEvent } from '../../../../src/domain/conversations/events.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(conversationDecider);
const CONV = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const AGENT = 'a9a9a9a9-a9a9-49a9-89a9-a9a9a9a9a9a9';
const X1 = 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee';
const X2 = 'ffffffff-ffff-4fff-8fff-ffffffffffff';
const S1 = '51515151-5151-4515-8515-515151515151';
const M1 = '11111111-1111-4111-8111-111111111111';
const M2 = '22222222-2222-4222-8222-222222222222';
const R1 = '33333333-3333-4333-8333-333333333333';
const R2 = '44444444-4444-4444-8444-444444444444';
const T = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-01T00:00:03.000Z';
const T3 = '2026-01-01T00:01:00.000Z';

const customer = { clientId: 42, channelId: 1, transport: 'telegram' };
const active: ConversationEvent[] = [
  { type: 'ConversationStarted', data: { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform', customer, stageId: null, at: T } },
  { type: 'AiSessionOpened', data: { sessionId: S1, at: T } },
  { type: 'MessageReceived', data: { messageId: M1, dedupeKey: 'msg:1', dedupeUntil: null, text: 'where is my parcel?', platform: {}, at: T } },
];
const reply = (messageId: string, inReplyTo: string, experiment: { experimentId: string; arm: 'a' | 'b' | 'holdout'; version: number | null }, over: Partial<Extract<ConversationCommand, { type: 'AppendAgentReply' }>> = {}): ConversationCommand => ({
  type: 'AppendAgentReply',
  messageId,
  sessionId: S1,
  agentId: AGENT,
  text: 'It ships in 5 days.',
  inReplyTo: [inReplyTo],
  model: 'builtin',
  inputTokens: 0,
  outputTokens: 0,
  handoff: false,
  agentVersion: experiment.version ?? undefined,
  experiment: { ...experiment, agentId: AGENT },
  now: T2,
  ...over,
});
const joinedB: ConversationEvent = { type: 'ExperimentArmAssigned', data: { experimentId: X1, agentId: AGENT, arm: 'b', version: 2, waitingSince: T, at: T2 } };
const repliedB: ConversationEvent = {
  type: 'AgentReplied',
  data: { messageId: R1, sessionId: S1, agentId: AGENT, text: 'It ships in 5 days.', inReplyTo: [M1], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: false, agentVersion: 2, experiment: { experimentId: X1, arm: 'b' }, at: T2 },
};

describe('a conversation in an experiment', () => {
  it('given a waiting message, when the first answer is written in arm B, then the conversation joins arm B (with since when the customer waited) and the reply names the arm', () => {
    const state = spec.given(active).when(reply(R1, M1, { experimentId: X1, arm: 'b', version: 2 })).then([joinedB, repliedB]);
    expect(state.experiment).toEqual({ experimentId: X1, arm: 'b', version: 2 });
  });

  it('given it joined, when it is answered again in the same experiment, then it does not join again', () => {
    const next: ConversationEvent = { type: 'MessageReceived', data: { messageId: M2, dedupeKey: 'msg:2', dedupeUntil: null, text: 'thanks, and returns?', platform: {}, at: T3 } };
    const events = spec.given([...active, joinedB, repliedB, next]).when(reply(R2, M2, { experimentId: X1, arm: 'b', version: 2 }, { now: T3 })).then([
      { ...repliedB, data: { ...repliedB.data, messageId: R2, inReplyTo: [M2], at: T3 } } as ConversationEvent,
    ]);
    expect(events.experiment?.arm).toBe('b');
  });

  it('given it joined an experiment that ended, when a later experiment answers it, then it joins that one', () => {
    const next: ConversationEvent = { type: 'MessageReceived', data: { messageId: M2, dedupeKey: 'msg:2', dedupeUntil: null, text: 'and returns?', platform: {}, at: T3 } };
    const state = spec
      .given([...active, joinedB, repliedB, next])
      .when(reply(R2, M2, { experimentId: X2, arm: 'a', version: 3 }, { now: T3 }))
      .then([
        { type: 'ExperimentArmAssigned', data: { experimentId: X2, agentId: AGENT, arm: 'a', version: 3, waitingSince: T3, at: T3 } },
        { ...repliedB, data: { ...repliedB.data, messageId: R2, inReplyTo: [M2], agentVersion: 3, experiment: { experimentId: X2, arm: 'a' }, at: T3 } } as ConversationEvent,
      ]);
    expect(state.experiment).toEqual({ experimentId: X2, arm: 'a', version: 3 });
  });

  it('given the holdout, when its handoff is written, then it waits in "Needs human" for the experiment holdout and nothing is charged', () => {
    const state = spec
      .given(active)
      .when(
        reply(R1, M1, { experimentId: X1, arm: 'holdout', version: null }, { text: 'A colleague will reply.', model: NO_MODEL, handoff: true, handoffCause: 'experiment_holdout', handoffReason: 'experiment holdout' }),
      )
      .then([
        { type: 'ExperimentArmAssigned', data: { experimentId: X1, agentId: AGENT, arm: 'holdout', version: null, waitingSince: T, at: T2 } },
        {
          type: 'AgentReplied',
          data: {
            messageId: R1,
            sessionId: S1,
            agentId: AGENT,
            text: 'A colleague will reply.',
            inReplyTo: [M1],
            model: NO_MODEL,
            inputTokens: 0,
            outputTokens: 0,
            handoff: true,
            handoffReason: 'experiment holdout',
            handoffCause: 'experiment_holdout',
            experiment: { experimentId: X1, arm: 'holdout' },
            at: T2,
          },
        },
        { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'handoff', by: null, at: T2 } },
      ]);
    expect(state.handoff.handoff).toMatchObject({ reason: 'experiment_holdout', since: T });
  });

  it('given a reply already stored, when the same job writes it again, then nothing is recorded (no second join)', () => {
    spec.given([...active, joinedB, repliedB]).when(reply(R1, M1, { experimentId: X1, arm: 'b', version: 2 })).then([]);
  });
});
