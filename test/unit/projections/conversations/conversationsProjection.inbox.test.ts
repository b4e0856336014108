import { describe, expect, it } from 'vitest';
import { conversationReadsProjection, unreadFor } from '../../../../src/projections/conversations/conversationReadsProjection.js';
import { conversationsProjection } from '../../../../src/projections/conversations/conversationsProjection.js';
import { at, conversationEvents, m } from '../../../support/conversationEvents.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const session = '1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c0001';
const ann = 'a0a0a0a0-a0a0-40a0-80a0-a0a0a0a0a0a0';
const bob = 'b0b0b0b0-b0b0-40b0-80b0-b0b0b0b0b0b0';
const events = conversationEvents();
const { company, conversation, stream, started, received } = events;
const opened = events.opened(session);
const handoffReply = recorded(stream, 'AgentReplied', {
  messageId: m(9), sessionId: session, agentId: null, text: 'A colleague will answer.', inReplyTo: [m(1)], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: true, at: at(3),
});
const handoffPause = recorded(stream, 'AiSessionPaused', { sessionId: session, reason: 'handoff', by: null, at: at(3) });

describe('conversations projection: the inbox views', () => {
  const spec = projectionSpec(conversationsProjection);

  it('an open unassigned conversation is in "Unassigned" (openAssignee ""), not in "Needs human"', async () => {
    await spec.given([started, opened, received(1, 1)]).then({
      conversations: [expect.objectContaining({ assigneeId: null, openAssignee: '', needsHuman: false, handoff: null, handoffSince: null, customerMessageCount: 1 })],
    });
  });

  it('a handoff by the model puts it in "Needs human" with the reason and since when the customer waits', async () => {
    await spec.given([started, opened, received(1, 1), received(2, 2), handoffReply, handoffPause]).then({
      conversations: [
        expect.objectContaining({ needsHuman: true, handoffSince: at(1), handoff: { reason: 'agent_handoff', detail: null, since: at(1) }, sessionState: 'paused', customerMessageCount: 2 }),
      ],
    });
  });

  it('assigned: in the owner\'s "Mine" (openAssignee = owner); reassigned and unassigned move it', async () => {
    const assigned = (to: string, from: string | null, s: number) => recorded(stream, 'ConversationAssigned', { assigneeId: to, previousAssigneeId: from, by: `user:${ann}`, at: at(s) });
    const team = 'e0e0e0e0-e0e0-40e0-80e0-e0e0e0e0e0e0';
    await spec.given([started, opened, received(1, 1)]).then({ conversations: [expect.objectContaining({ teamId: null })] });
    await spec
      .given([started, opened, received(1, 1), recorded(stream, 'ConversationRoutedToTeam', { teamId: team, previousTeamId: null, by: 'routing', at: at(2) })])
      .then({ conversations: [expect.objectContaining({ teamId: team })] });
    await spec.given([started, opened, received(1, 1), assigned(ann, null, 2)]).then({ conversations: [expect.objectContaining({ assigneeId: ann, openAssignee: ann })] });
    await spec.given([started, opened, received(1, 1), assigned(ann, null, 2), assigned(bob, ann, 3)]).then({ conversations: [expect.objectContaining({ assigneeId: bob, openAssignee: bob })] });
    await spec
      .given([started, opened, received(1, 1), assigned(ann, null, 2), recorded(stream, 'ConversationUnassigned', { previousAssigneeId: ann, by: `user:${ann}`, at: at(3) })])
      .then({ conversations: [expect.objectContaining({ assigneeId: null, openAssignee: '' })] });
  });

  it('a human reply takes it out of "Needs human"; still mine', async () => {
    await spec
      .given([
        started, opened, received(1, 1), handoffReply, handoffPause,
        recorded(stream, 'ConversationAssigned', { assigneeId: bob, previousAssigneeId: null, by: `user:${bob}`, at: at(4) }),
        recorded(stream, 'OperatorMessageSent', { messageId: m(5), text: 'Bob here', by: `user:${bob}`, at: at(5) }),
      ])
      .then({ conversations: [expect.objectContaining({ needsHuman: false, handoff: null, handoffSince: null, openAssignee: bob })] });
  });

  it('resolved (closed with a resolution): out of every view, the resolution shown; reopened: back in the owner\'s view', async () => {
    const assigned = recorded(stream, 'ConversationAssigned', { assigneeId: bob, previousAssigneeId: null, by: `user:${bob}`, at: at(4) });
    const resolved = recorded(stream, 'AiSessionClosed', { sessionId: session, reason: 'api', action: 'session_close', by: `user:${bob}`, resolution: 'Refund issued', at: at(5) });
    await spec.given([started, opened, received(1, 1), handoffReply, handoffPause, assigned, resolved]).then({
      conversations: [expect.objectContaining({ needsHuman: false, openAssignee: null, assigneeId: bob, resolution: 'Refund issued', sessionState: 'closed' })],
    });
    const reopened = recorded(stream, 'ConversationReopened', { sessionId: m(7), previousSessionId: session, by: `user:${bob}`, at: at(6) });
    await spec.given([started, opened, received(1, 1), assigned, resolved, reopened]).then({
      conversations: [expect.objectContaining({ openAssignee: bob, resolution: null, sessionState: 'active' })],
    });
  });

  it('a customer asking for a human, and the platform transferring the dialog, each put it in "Needs human"', async () => {
    await spec.given([started, opened, received(1, 1), recorded(stream, 'HumanRequested', { messageId: m(1), at: at(1) })]).then({
      conversations: [expect.objectContaining({ needsHuman: true, handoff: { reason: 'customer_request', detail: null, since: at(1) } })],
    });
    await spec.given([started, opened, received(1, 2), recorded(stream, 'DialogTransferred', { action: 'session_transfer_external', dialogId: 5, requestId: null, at: at(4) })]).then({
      conversations: [expect.objectContaining({ needsHuman: true, handoffSince: at(2), handoff: { reason: 'dialog_transferred', detail: null, since: at(2) } })],
    });
  });

  it('resuming the AI takes it out of "Needs human"; a manual pause never puts it there', async () => {
    await spec.given([started, opened, received(1, 1), handoffReply, handoffPause, recorded(stream, 'AiSessionResumed', { sessionId: session, by: `user:${ann}`, at: at(5) })]).then({
      conversations: [expect.objectContaining({ needsHuman: false, handoff: null })],
    });
    await spec.given([started, opened, received(1, 1), recorded(stream, 'AiSessionPaused', { sessionId: session, reason: 'api', by: `user:${ann}`, at: at(2) })]).then({
      conversations: [expect.objectContaining({ needsHuman: false, sessionState: 'paused' })],
    });
  });
});

describe('conversation reads projection: unread counts per teammate', () => {
  const spec = projectionSpec(conversationReadsProjection);
  const read = (userId: string, customerMessages: number, s: number) =>
    recorded(`conversationread-${conversation}-${userId}`, 'ConversationRead', { conversationId: conversation, companyId: company, userId, customerMessages, at: at(s) });

  it('one marker per teammate and conversation, moved forward only', async () => {
    await spec.given([read(ann, 2, 1), read(bob, 1, 2), read(ann, 3, 3), read(ann, 1, 4)]).then({
      conversation_reads: [
        { id: `${conversation}:${ann}`, conversationId: conversation, companyId: company, userId: ann, customerMessages: 3, readAt: at(3) },
        { id: `${conversation}:${bob}`, conversationId: conversation, companyId: company, userId: bob, customerMessages: 1, readAt: at(2) },
      ],
    });
  });

  it('unread = customer messages since the teammate last read it (all, when never opened)', () => {
    expect(unreadFor({ customerMessageCount: 5 }, null)).toBe(5);
    expect(unreadFor({ customerMessageCount: 5 }, { customerMessages: 3 })).toBe(2);
    expect(unreadFor({ customerMessageCount: 5 }, { customerMessages: 5 })).toBe(0);
  });
});
