import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConversationEvent } from '../../../../src/domain/conversations/events.js';
import type { CreditEvent } from '../../../../src/domain/credits/events.js';
import type { CustomerEvent } from '../../../../src/domain/customers/events.js';
import { publicEventSchemas, type PublicEvent } from '../../../../src/domain/publicEvents/catalog.js';
import {
  derivePublicEvents,
  initialCompanyFeedState,
  publicEventId,
  type CompanyFeedState,
  type ConversationFeedState,
  type SourceEvent,
} from '../../../../src/projections/publicEvents/derive.js';
import type { WebhookEndpointEvent } from '../../../../src/domain/webhookEndpoints/events.js';

const conversationId = randomUUID();
const at = '2026-11-26T10:00:00.000Z';
const messageId = randomUUID();
const sessionId = randomUUID();

/** given(domain events) → the public events they give, folded in order as the read model folds them. */
function given(events: (ConversationEvent | CreditEvent | WebhookEndpointEvent | CustomerEvent)[], company: CompanyFeedState = initialCompanyFeedState) {
  let conversation: ConversationFeedState | null = null;
  const out: PublicEvent[] = [];
  for (const [i, event] of events.entries()) {
    const inConversation = !['CreditsGranted', 'CreditsConsumed', 'WebhookEndpointDisabled', 'CreditsLowThresholdSet', 'CustomerErased'].includes(event.type);
    const source = (inConversation ? { id: `e${i}`, conversationId, event } : { id: `e${i}`, conversationId: null, event }) as SourceEvent;
    const derived = derivePublicEvents(source, company, conversation);
    company = derived.company;
    conversation = derived.conversation ?? conversation;
    out.push(...derived.events);
  }
  // Every public event matches its published schema, and only that.
  for (const e of out) expect(publicEventSchemas[e.type].strict().parse(e.data)).toEqual(e.data);
  return out;
}
const types = (events: PublicEvent[]) => events.map((e) => e.type);

const reply = (handoff: boolean): ConversationEvent => ({
  type: 'AgentReplied',
  data: {
    messageId: randomUUID(), sessionId, agentId: null, text: 'Our opening hours are 9 to 5.', inReplyTo: [messageId], model: 'builtin', inputTokens: 120, outputTokens: 12, handoff,
    ...(handoff ? { handoffReason: 'asked for a refund' } : {}),
    provenance: { sources: [{ documentId: 'doc-1', title: 'Opening hours', chunkIndex: 2, score: 0.8 }], latencyMs: 40, costMicros: 31, usageEstimated: false },
    at,
  },
});

describe('the public event catalog', () => {
  it('given a conversation start and a message, then conversation.started and message.received, without dedupe keys or platform refs', () => {
    const events = given([
      { type: 'ConversationStarted', data: { conversationId, companyId: randomUUID(), integrationId: 3, connectorType: 'msgplatform', customer: { clientId: 42, channelId: 7, transport: 'telegram', name: 'Ann' }, stageId: null, at } },
      { type: 'MessageReceived', data: { messageId, dedupeKey: 'msg:abc', dedupeUntil: null, text: 'Hi', platform: { messageId: 'abc' }, client: { phone: '+4700000000' }, at } },
    ]);
    expect(events).toEqual([
      { id: publicEventId('e0', 'conversation.started'), type: 'conversation.started', catalogVersion: 1, timestamp: at, data: { conversationId, integrationId: 3, connectorType: 'msgplatform', customer: { clientId: 42, name: 'Ann', transport: 'telegram' }, startedAt: at } },
      { id: publicEventId('e1', 'message.received'), type: 'message.received', catalogVersion: 1, timestamp: at, data: { conversationId, messageId, text: 'Hi', attachmentCount: 0, receivedAt: at } },
    ]);
    expect(JSON.stringify(events)).not.toMatch(/msg:abc|phone|\+47/);
  });

  it('given an AI answer, then message.answered with the answer, model and sources, never the token counts or cost', () => {
    const [answered] = given([reply(false)]);
    expect(answered).toMatchObject({ type: 'message.answered', data: { conversationId, inReplyTo: [messageId], answer: 'Our opening hours are 9 to 5.', model: 'builtin', agentVersion: null, handoff: false, sources: [{ documentId: 'doc-1', title: 'Opening hours', chunkIndex: 2 }] } });
    expect(JSON.stringify(answered)).not.toMatch(/Tokens|costMicros|latencyMs|sessionId/);
  });

  it('given an AI answer written by agent version 3, then message.answered names that version', () => {
    const answer = reply(false);
    const [answered] = given([{ ...answer, data: { ...answer.data, agentVersion: 3 } } as typeof answer]);
    expect(answered).toMatchObject({ type: 'message.answered', data: { agentVersion: 3 } });
  });

  it('given a handoff answer and its pause, then one conversation.handed_off with the model\'s reason', () => {
    const events = given([reply(true), { type: 'AiSessionPaused', data: { sessionId, reason: 'handoff', by: null, at } }]);
    expect(types(events)).toEqual(['message.answered', 'conversation.handed_off']);
    expect(events[1]!.data).toEqual({ conversationId, reason: 'agent_handoff', detail: 'asked for a refund', handedOffAt: at });
  });

  it('given an unanswered message and the pause, then conversation.handed_off ai_unanswered; a human reply ends it so the next request hands off again', () => {
    const events = given([
      { type: 'MessagesUnanswered', data: { messageIds: [messageId], reason: 'the model failed', at } },
      { type: 'AiSessionPaused', data: { sessionId, reason: 'handoff', by: null, at } },
      { type: 'HumanRequested', data: { messageId, at } },
      { type: 'OperatorMessageSent', data: { messageId: randomUUID(), text: 'Here I am', by: 'user:x', at } },
      { type: 'HumanRequested', data: { messageId, at } },
    ]);
    expect(events.map((e) => e.type === 'conversation.handed_off' && e.data.reason)).toEqual(['ai_unanswered', 'customer_request']);
    expect(events[0]!.data).toMatchObject({ detail: 'the model failed' });
  });

  it('given delivery failure, assignment, transfer and close, then one public event each', () => {
    const assignee = randomUUID();
    const events = given([
      { type: 'MessageDeliveryFailed', data: { messageId, reason: 'platform answered 500', attempts: 5, at } },
      { type: 'ConversationAssigned', data: { assigneeId: assignee, previousAssigneeId: null, by: 'user:u1', at } },
      { type: 'AiSessionClosed', data: { sessionId, reason: 'api', action: 'session_close', by: 'user:u1', resolution: 'refunded', at } },
    ]);
    expect(types(events)).toEqual(['message.delivery_failed', 'conversation.assigned', 'conversation.closed']);
    expect(events[2]!.data).toEqual({ conversationId, reason: 'api', resolution: 'refunded', closedBy: 'user:u1', closedAt: at });
    // A platform transfer is a transfer and a handoff (the platform's operators have it now).
    const transferred = given([{ type: 'DialogTransferred', data: { action: 'session_transfer_external', dialogId: 9, requestId: null, at } }]);
    expect(types(transferred)).toEqual(['conversation.transferred', 'conversation.handed_off']);
  });

  it('given charges crossing the company\'s threshold and then zero, then credits.low once and credits.exhausted once', () => {
    const charge = (amountMicros: number): CreditEvent => ({ type: 'CreditsConsumed', data: { amountMicros, model: 'm', inputTokens: 1, outputTokens: 1, conversationId: '', replyId: randomUUID(), at } });
    const events = given([
      { type: 'CreditsGranted', data: { amountMicros: 5_000_000, reason: 'signup', grantedBy: null, at } },
      { type: 'CreditsLowThresholdSet', data: { companyId: randomUUID(), thresholdMicros: 2_000_000, by: 'user:u1', at } },
      charge(2_000_000),
      charge(1_500_000),
      charge(1_000_000),
      charge(600_000),
      charge(100_000),
    ]);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['credits.low', { balanceMicros: 1_500_000, thresholdMicros: 2_000_000, at }],
      ['credits.exhausted', { balanceMicros: -100_000, at }],
    ]);
  });

  it('given an endpoint disabled after failing, then endpoint.disabled naming it but not its URL', () => {
    const endpointId = randomUUID();
    const events = given([{ type: 'WebhookEndpointDisabled', data: { endpointId, reason: 'failed for 24 hours', at } }]);
    expect(events.map((e) => e.data)).toEqual([{ endpointId, reason: 'failed for 24 hours', disabledAt: at }]);
  });

  it('given a customer erased, then customer.erased with ids only: not who asked, not why', () => {
    const customerId = randomUUID();
    const events = given([{ type: 'CustomerErased', data: { customerId, companyId: randomUUID(), conversationIds: [conversationId], by: 'user:u1', reason: 'ticket 7', at } }]);
    expect(events.map((e) => [e.type, e.data])).toEqual([['customer.erased', { customerId, conversationIds: [conversationId], erasedAt: at }]]);
  });

  it('gives nothing for internal events (send attempts, stage changes, read markers)', () => {
    expect(given([{ type: 'MessageSendAttempted', data: { messageId, attempt: 1, idempotencyKey: 'k', at } }, { type: 'StageChanged', data: { stageId: randomUUID(), by: null, at } }])).toEqual([]);
  });
});
