import { describe, expect, it } from 'vitest';
import { conversationsProjection } from '../../../../src/projections/conversations/conversationsProjection.js';
import { at, conversationEvents, m } from '../../../support/conversationEvents.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const stage = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b0001';
const nextStage = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b0002';
const session = '1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c0001';
const customer = { clientId: 'client-7', channelId: 3, transport: 'telegram', name: 'Ada' };
const { company, conversation, stream, started, received } = conversationEvents({ stageId: stage, customer });

describe('conversations projection', () => {
  const spec = projectionSpec(conversationsProjection);

  it('a started conversation with a customer message awaiting an answer', async () => {
    await spec.given([started, received(1, 1)]).then({
      conversations: [
        {
          id: conversation,
          companyId: company,
          integrationId: 12,
          connectorType: 'msgplatform',
          customer,
          customerName: 'Ada',
          session: null,
          sessionState: 'none',
          stageId: stage,
          lastMessageAt: at(1),
          messageCount: 1,
          createdAt: at(0),
          unansweredReason: null,
          awaitingReplyTo: m(1),
          // No AI session (the test starts none): nothing will answer it, so it is not in the AI backlog.
          awaitingAi: false,
          awaitingAiSince: null,
          context: { transfers: [], notes: [] },
          assigneeId: null,
          teamId: null,
          openAssignee: '',
          handoff: null,
          handoffTrack: { handoff: null, waitingSince: at(1), lastUnansweredReason: null },
          needsHuman: false,
          handoffSince: null,
          customerMessageCount: 1,
          resolution: null,
          lastMessage: { author: 'customer', text: 'hello 1' },
          handoffSummary: null,
          priority: 'normal',
          snoozedUntil: null,
          snoozed: false,
        },
      ],
      messages: [
        { id: m(1), conversationId: conversation, companyId: company, seq: 1, author: 'customer', text: 'hello 1', createdAt: at(1), delivery: 'received', deliveryError: null, clientMessageId: null, attachments: [] },
      ],
    });
  });

  it('an AI answer clears the wait, its delivery shows on the message; an operator message that fails shows why', async () => {
    await spec
      .given([
        started,
        received(1, 1),
        recorded(stream, 'AiSessionOpened', { sessionId: session, at: at(1) }),
        recorded(stream, 'AgentReplied', { messageId: m(2), sessionId: session, agentId: null, text: 'hi!', inReplyTo: [m(1)], model: 'builtin', inputTokens: 3, outputTokens: 2, handoff: false, at: at(2) }),
        recorded(stream, 'MessageDelivered', { messageId: m(2), platformMessageId: 99, at: at(3) }),
        recorded(stream, 'AiSessionPaused', { sessionId: session, reason: 'operator_message', by: 'op@example.com', at: at(4) }),
        recorded(stream, 'OperatorMessageSent', { messageId: m(3), text: 'a human here', by: 'op@example.com', at: at(5) }),
        recorded(stream, 'MessageDeliveryFailed', { messageId: m(3), reason: 'platform said 500', attempts: 3, at: at(6) }),
        recorded(stream, 'StageChanged', { stageId: nextStage, by: 'op@example.com', at: at(7) }),
        recorded(stream, 'DialogTransferred', { action: 'session_transfer_external', dialogId: 'd-1', requestId: null, at: at(8) }),
      ])
      .then({
        conversations: [
          {
            id: conversation,
            companyId: company,
            integrationId: 12,
            connectorType: 'msgplatform',
            customer,
            customerName: 'Ada',
            session: { id: session, state: 'paused', pausedReason: 'operator_message' },
            sessionState: 'paused',
            stageId: nextStage,
            lastMessageAt: at(5),
            messageCount: 3,
            createdAt: at(0),
            unansweredReason: null,
            awaitingReplyTo: null,
            awaitingAi: false,
            awaitingAiSince: null,
            context: { transfers: [{ dialogId: 'd-1', requestId: null, at: at(8) }], notes: [] },
            assigneeId: null,
            teamId: null,
            openAssignee: '',
            // The platform's transfer puts it in "Needs human", waiting since the transfer (the operator had answered).
            handoff: { reason: 'dialog_transferred', detail: null, since: at(8) },
            handoffTrack: { handoff: { reason: 'dialog_transferred', detail: null, since: at(8) }, waitingSince: null, lastUnansweredReason: null },
            needsHuman: true,
            handoffSince: at(8),
            customerMessageCount: 1,
            resolution: null,
            // The list's preview: the newest message people or the AI wrote (a system note is not one).
            lastMessage: { author: 'operator', text: 'a human here' },
            handoffSummary: null,
            priority: 'normal',
            snoozedUntil: null,
            snoozed: false,
          },
        ],
        messages: [
          { id: m(1), conversationId: conversation, companyId: company, seq: 1, author: 'customer', text: 'hello 1', createdAt: at(1), delivery: 'received', deliveryError: null, clientMessageId: null, attachments: [] },
          {
            id: m(2),
            conversationId: conversation,
            companyId: company,
            seq: 3,
            author: 'agent',
            text: 'hi!',
            createdAt: at(2),
            delivery: 'sent',
            deliveryError: null,
            clientMessageId: null,
            attachments: [],
            // What produced the answer; a reply stored before provenance was recorded has none.
            answer: { model: 'builtin', inputTokens: 3, outputTokens: 2, provenance: null },
          },
          { id: m(3), conversationId: conversation, companyId: company, seq: 6, author: 'operator', text: 'a human here', createdAt: at(5), delivery: 'failed', deliveryError: 'platform said 500', clientMessageId: null, attachments: [] },
        ],
      });
  });

  it("the row's preview is the newest message on one line, cut to 160 characters; a system note leaves it as it was", async () => {
    const long = `Where is my parcel?\n\nI ordered   it ${'very '.repeat(40)}long ago`;
    await spec
      .given([started, received(1, 1), recorded(stream, 'OperatorMessageSent', { messageId: m(2), text: long, by: 'op@example.com', at: at(2) }), recorded(stream, 'MessagesUnanswered', { messageIds: [m(1)], reason: 'no agent assigned', at: at(3) })])
      .then({
        conversations: [expect.objectContaining({ lastMessage: { author: 'operator', text: `Where is my parcel? I ordered it ${'very '.repeat(40)}`.slice(0, 159) + '…' } })],
      });
    await spec.given([started]).then({ conversations: [expect.objectContaining({ lastMessage: null })] });
  });

  it('messages left unanswered get a system note with the reason; closing the session ends the wait', async () => {
    const note = 'bbbbbbbb-0000-4000-8000-000000000001';
    await spec
      .given([
        started,
        received(1, 1),
        recorded(stream, 'MessagesUnanswered', { messageIds: [m(1)], reason: 'no agent assigned', at: at(2) }, { id: note }),
        received(2, 3),
        recorded(stream, 'AiSessionClosed', { sessionId: session, reason: 'close_dialog', action: 'session_close', by: null, at: at(4) }),
      ])
      .then({
        conversations: [
          expect.objectContaining({ id: conversation, messageCount: 2, unansweredReason: 'no agent assigned', awaitingReplyTo: null, sessionState: 'closed', session: { id: session, state: 'closed' } }),
        ],
        messages: [
          expect.objectContaining({ id: m(1), author: 'customer' }),
          { id: note, conversationId: conversation, companyId: company, seq: 2, author: 'system', text: 'Not answered by the AI agent: no agent assigned', createdAt: at(2), delivery: 'received', deliveryError: null, clientMessageId: null, attachments: [] },
          expect.objectContaining({ id: m(2), author: 'customer', seq: 3 }),
        ],
      });
  });

  it('events of a conversation whose start it never saw change nothing', async () => {
    await spec.given([received(1, 1)]).then({ conversations: [], messages: [] });
  });
});
