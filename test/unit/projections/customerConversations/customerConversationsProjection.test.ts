import { describe, it } from 'vitest';
import { customerIdFor } from '../../../../src/domain/customers/decider.js';
import { customerConversationsProjection } from '../../../../src/projections/customerConversations/customerConversationsProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const conversation = '6f1c7d2e-8a1b-4c3d-9e4f-5a6b7c8d0001';
const stream = `conversation-${conversation}`;
const session = '1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c0001';
const m = (n: number) => `aaaaaaaa-0000-4000-8000-00000000000${n}`;
const at = (s: number) => `2025-01-01T10:00:0${s}.000Z`;

describe('customerConversations projection', () => {
  const spec = projectionSpec(customerConversationsProjection);
  const started = recorded(stream, 'ConversationStarted', {
    conversationId: conversation,
    companyId: company,
    integrationId: 12,
    connectorType: 'msgplatform',
    customer: { clientId: 'client-7', channelId: 3, transport: 'telegram', name: 'Ada' },
    stageId: null,
    at: at(0),
  });

  it("files the conversation under its customer, with activity and session state", async () => {
    await spec
      .given([
        started,
        recorded(stream, 'MessageReceived', { messageId: m(1), dedupeKey: 'msg:1', dedupeUntil: null, text: 'hi', platform: {}, at: at(1) }),
        recorded(stream, 'AiSessionOpened', { sessionId: session, at: at(1) }),
        recorded(stream, 'OperatorMessageSent', { messageId: m(2), text: 'Hello!', by: 'user:u1', at: at(2) }),
        recorded(stream, 'AiSessionClosed', { sessionId: session, reason: 'api', action: 'session_close', by: 'user:u1', at: at(3) }),
      ])
      .then({
        customer_conversations: [
          {
            id: conversation,
            customerId: customerIdFor(12, 'client-7'),
            companyId: company,
            integrationId: 12,
            connectorType: 'msgplatform',
            transport: 'telegram',
            sessionState: 'closed',
            messageCount: 2,
            lastMessageAt: at(2),
            createdAt: at(0),
          },
        ],
      });
  });
});
