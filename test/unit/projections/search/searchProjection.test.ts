import { describe, it } from 'vitest';
import { searchProjection } from '../../../../src/projections/search/searchProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const conversation = '6f1c7d2e-8a1b-4c3d-9e4f-5a6b7c8d0001';
const stream = `conversation-${conversation}`;
const session = '1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c0001';
const m = (n: number) => `aaaaaaaa-0000-4000-8000-00000000000${n}`;
const at = (s: number) => `2025-01-01T10:00:0${s}.000Z`;

const started = (name?: string) =>
  recorded(stream, 'ConversationStarted', {
    conversationId: conversation,
    companyId: company,
    integrationId: 12,
    connectorType: 'msgplatform',
    customer: { clientId: 'client-7', channelId: 3, transport: 'telegram', ...(name !== undefined ? { name } : {}) },
    stageId: null,
    at: at(0),
  });
const received = (n: number, text: string) =>
  recorded(stream, 'MessageReceived', { messageId: m(n), dedupeKey: `k${n}`, dedupeUntil: null, text, platform: {}, at: at(n) });
const entry = (over: { id: string } & Record<string, unknown>) => ({ companyId: company, conversationId: conversation, integrationId: 12, ...over });

describe('search projection', () => {
  const spec = projectionSpec(searchProjection);

  it('indexes the customer name, customer messages, AI replies and human replies, each once with its event position', async () => {
    await spec
      .given([
        started('Ada Lovelace'),
        received(1, 'Do you ship to Norway?'),
        recorded(stream, 'AiSessionOpened', { sessionId: session, at: at(1) }),
        recorded(stream, 'AgentReplied', { messageId: m(2), sessionId: session, agentId: null, text: 'Yes, within 3 days.', inReplyTo: [m(1)], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: false, at: at(2) }),
        recorded(stream, 'OperatorMessageSent', { messageId: m(3), text: 'A human: tracking follows.', by: 'op@example.com', at: at(3) }),
        recorded(stream, 'OperatorMessageRecorded', { messageId: m(4), dedupeKey: 'k4', dedupeUntil: null, text: 'Sent from the platform', platform: {}, at: at(4) }),
        recorded(stream, 'MessageDelivered', { messageId: m(2), platformMessageId: 99, at: at(5) }),
      ])
      .then({
        search_entries: [
          entry({ id: `customer-${conversation}`, kind: 'customer', author: null, direction: null, messageId: null, text: 'Ada Lovelace', at: at(0), seq: 0 }),
          entry({ id: m(1), kind: 'message', author: 'customer', direction: 'inbound', messageId: m(1), text: 'Do you ship to Norway?', at: at(1), seq: 1 }),
          entry({ id: m(2), kind: 'message', author: 'agent', direction: 'outbound', messageId: m(2), text: 'Yes, within 3 days.', at: at(2), seq: 3 }),
          entry({ id: m(3), kind: 'message', author: 'operator', direction: 'outbound', messageId: m(3), text: 'A human: tracking follows.', at: at(3), seq: 4 }),
          entry({ id: m(4), kind: 'message', author: 'operator', direction: 'outbound', messageId: m(4), text: 'Sent from the platform', at: at(4), seq: 5 }),
        ],
      });
  });

  it('a conversation without a customer name and a message without words leave no entry for them', async () => {
    await spec.given([started(), received(1, '   '), received(2, 'hello')]).then({
      search_entries: [entry({ id: m(2), kind: 'message', author: 'customer', direction: 'inbound', messageId: m(2), text: 'hello', at: at(2), seq: 2 })],
    });
  });

  it('messages of a conversation whose start it never saw are skipped, not guessed', async () => {
    await spec.given([received(1, 'orphan')]).then({ search_entries: [] });
  });
});
