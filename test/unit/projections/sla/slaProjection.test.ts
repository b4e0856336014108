import { describe, expect, it } from 'vitest';
import { slaProjection } from '../../../../src/projections/sla/slaProjection.js';
import { conversationEvents, m } from '../../../support/conversationEvents.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const session = '1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c0001';
const events = conversationEvents();
const { company, conversation, stream, started } = events;
/** Minutes after 10:00 on 2025-01-01 (a Wednesday). */
const t = (min: number) => new Date(Date.parse('2025-01-01T10:00:00.000Z') + min * 60_000).toISOString();
const opened = recorded(stream, 'AiSessionOpened', { sessionId: session, at: t(0) });
const received = (n: number, min: number) => recorded(stream, 'MessageReceived', { messageId: m(n), dedupeKey: `k${n}`, dedupeUntil: null, text: 'hi', platform: {}, at: t(min) });
const handoff = [
  recorded(stream, 'AgentReplied', { messageId: m(9), sessionId: session, agentId: null, text: 'A colleague will answer.', inReplyTo: [m(1)], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: true, at: t(1) }),
  recorded(stream, 'AiSessionPaused', { sessionId: session, reason: 'handoff', by: null, at: t(1) }),
];
const operator = (n: number, min: number) => recorded(stream, 'OperatorMessageSent', { messageId: m(n), text: 'On it', by: 'user:ann', at: t(min) });
const none = { firstResponseMinutes: null, nextResponseMinutes: null, resolutionMinutes: null };
const policy = recorded(`sla-policy-${company}`, 'SlaPolicySet', {
  enabled: true,
  targets: { urgent: { firstResponseMinutes: 5, nextResponseMinutes: 5, resolutionMinutes: 60 }, high: none, normal: { firstResponseMinutes: 30, nextResponseMinutes: 30, resolutionMinutes: 120 }, low: none },
  by: 'user:ann',
  at: t(0),
});
const urgent = recorded(stream, 'ConversationPrioritized', { priority: 'urgent', previousPriority: 'normal', by: 'user:ann', at: t(2) });
const day = (firstResponse: { met: number; breached: number }) => ({
  id: `${company}:2025-01-01`, companyId: company, date: '2025-01-01', firstResponse, nextResponse: { met: 0, breached: 0 }, resolution: { met: 0, breached: 0 },
});

describe('SLA projection', () => {
  const spec = projectionSpec(slaProjection);

  it('a handed-off conversation shows its first-response and resolution due times, by its priority', async () => {
    await spec.given([policy, started, opened, received(1, 0), ...handoff]).then({
      slaConversations: [expect.objectContaining({ id: conversation, response: { kind: 'firstResponse', dueAt: t(30) }, resolution: { dueAt: t(120) } })],
    });
    await spec.given([policy, started, opened, received(1, 0), ...handoff, urgent]).then({
      slaConversations: [expect.objectContaining({ response: { kind: 'firstResponse', dueAt: t(5) }, resolution: { dueAt: t(60) } })],
    });
  });

  it('a teammate answering in time counts as met, late as breached, on the day it stopped', async () => {
    await spec.given([policy, started, opened, received(1, 0), ...handoff, operator(2, 20)]).then({ slaDays: [day({ met: 1, breached: 0 })] });
    await spec.given([policy, started, opened, received(1, 0), ...handoff, urgent, operator(2, 20)]).then({ slaDays: [day({ met: 0, breached: 1 })] });
  });

  it('a policy set while a clock runs moves its due time at the conversation\'s next event', async () => {
    await spec.given([started, opened, received(1, 0), ...handoff, policy, received(2, 3)]).then({
      slaConversations: [expect.objectContaining({ response: { kind: 'firstResponse', dueAt: t(30) }, resolution: { dueAt: t(120) } })],
    });
  });

  it('without a policy no clock is due and nothing is counted', async () => {
    await spec.given([started, opened, received(1, 0), ...handoff, operator(2, 20)]).then({
      slaConversations: [expect.objectContaining({ response: null })],
      slaDays: [],
    });
  });
});
