import { describe, it, expect } from 'vitest';
import { conversationsProjection } from '../../../../src/projections/conversations/conversationsProjection.js';
import { at, conversationEvents, m } from '../../../support/conversationEvents.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const session = '1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c0001';
const ann = 'a0a0a0a0-a0a0-40a0-80a0-a0a0a0a0a0a0';
const events = conversationEvents();
const { stream, started, received } = events;
const opened = events.opened(session);
const handoffReply = recorded(stream, 'AgentReplied', {
  messageId: m(9), sessionId: session, agentId: null, text: 'A colleague will answer.', inReplyTo: [m(1)], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: true, at: at(3),
});
const handoffPause = recorded(stream, 'AiSessionPaused', { sessionId: session, reason: 'handoff', by: null, at: at(3) });
/** Later than every `at(s)` the events use. */
const LATER = '2025-01-01T12:00:00.000Z';
const snoozed = recorded(stream, 'ConversationSnoozed', { until: LATER, by: `user:${ann}`, at: at(4) });
const woke = (reason: 'time' | 'customer_message' | 'teammate', s: number) => recorded(stream, 'ConversationWoke', { reason, snoozedUntil: LATER, by: null, at: at(s) });
const assigned = recorded(stream, 'ConversationAssigned', { assigneeId: ann, previousAssigneeId: null, by: `user:${ann}`, at: at(2) });

describe('conversations projection: priority and snooze', () => {
  const spec = projectionSpec(conversationsProjection);

  it('a conversation starts normal and not snoozed; ConversationPrioritized sets the priority', async () => {
    await spec.given([started, opened, received(1, 1)]).then({ conversations: [expect.objectContaining({ priority: 'normal', snoozedUntil: null, snoozed: false })] });
    await spec
      .given([started, opened, received(1, 1), recorded(stream, 'ConversationPrioritized', { priority: 'urgent', previousPriority: 'normal', by: `user:${ann}`, at: at(2) })])
      .then({ conversations: [expect.objectContaining({ priority: 'urgent' })] });
  });

  it('snoozed: out of Unassigned and Needs human, in Snoozed; woken: back where it was', async () => {
    await spec.given([started, opened, received(1, 1), handoffReply, handoffPause, snoozed]).then({
      conversations: [expect.objectContaining({ snoozed: true, snoozedUntil: LATER, openAssignee: null, needsHuman: false, handoff: expect.objectContaining({ reason: 'agent_handoff' }) })],
    });
    await spec.given([started, opened, received(1, 1), handoffReply, handoffPause, snoozed, woke('time', 6)]).then({
      conversations: [expect.objectContaining({ snoozed: false, snoozedUntil: null, openAssignee: '', needsHuman: true, handoffSince: at(1) })],
    });
  });

  it('an assigned conversation snoozed leaves its owner\'s Mine; the customer writing brings it back', async () => {
    await spec.given([started, opened, received(1, 1), assigned, snoozed]).then({ conversations: [expect.objectContaining({ assigneeId: ann, openAssignee: null })] });
    await spec.given([started, opened, received(1, 1), assigned, snoozed, received(2, 5), woke('customer_message', 5)]).then({
      conversations: [expect.objectContaining({ assigneeId: ann, openAssignee: ann, snoozed: false })],
    });
  });

  it('resolving a snoozed conversation takes it out of Snoozed too; reopened, it is snoozed until its time', async () => {
    const closed = recorded(stream, 'AiSessionClosed', { sessionId: session, reason: 'api', action: 'session_close', by: `user:${ann}`, at: at(5) });
    await spec.given([started, opened, received(1, 1), snoozed, closed]).then({ conversations: [expect.objectContaining({ snoozed: false, openAssignee: null, sessionState: 'closed' })] });
    const reopened = recorded(stream, 'ConversationReopened', { sessionId: '1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c0002', previousSessionId: session, by: `user:${ann}`, at: at(6) });
    await spec.given([started, opened, received(1, 1), snoozed, closed, reopened]).then({ conversations: [expect.objectContaining({ snoozed: true, snoozedUntil: LATER, openAssignee: null })] });
  });

  it('the conversation document carries the triage fields the list indexes need', () => {
    const indexes = conversationsProjection.collections.find((c) => c.name === 'conversations')!.indexes.map((i) => (Array.isArray(i) ? i.join(',') : i));
    expect(indexes).toContain('companyId,snoozed,snoozedUntil');
    expect(indexes).toContain('snoozed,snoozedUntil');
  });
});
