import { createHash } from 'node:crypto';
import type { CreditEvent } from '../../domain/credits/events.js';
import type { CustomerEvent } from '../../domain/customers/events.js';
import type { ConversationEvent } from '../../domain/conversations/events.js';
import { evolveHandoff, noHandoff, type HandoffTrack } from '../../domain/conversations/state.js';
import { DEFAULT_CREDITS_LOW_THRESHOLD_MICROS, type WebhookEndpointEvent } from '../../domain/webhookEndpoints/events.js';
import { CATALOG_VERSION, type PublicEvent, type PublicEventType } from '../../domain/publicEvents/catalog.js';

/**
 * Public events from domain events: a pure fold. Most public events map one domain event; two need a little
 * memory, kept per company and per conversation by whoever folds (the public-events read model):
 * - `conversation.handed_off` fires when the conversation joins the "Needs human" queue, by the same rule as the
 *   inbox (`evolveHandoff`), so a handoff reply followed by its pause is one handoff, not two;
 * - `credits.low` and `credits.exhausted` fire when the balance crosses the threshold or zero going down.
 */

export interface CompanyFeedState {
  balanceMicros: number;
  lowThresholdMicros: number;
}
export const initialCompanyFeedState: CompanyFeedState = { balanceMicros: 0, lowThresholdMicros: DEFAULT_CREDITS_LOW_THRESHOLD_MICROS };
export type ConversationFeedState = HandoffTrack;
export const initialConversationFeedState: ConversationFeedState = noHandoff;

/** A stored domain event, with where it belongs: its id (for stable public ids) and its conversation, if any. */
export type SourceEvent = { id: string } & (
  | { conversationId: string; event: ConversationEvent }
  | { conversationId: null; event: CreditEvent | WebhookEndpointEvent | CustomerEvent }
);

export interface Derived {
  events: PublicEvent[];
  company: CompanyFeedState;
  conversation: ConversationFeedState | null;
}

/** The domain event types that can give a public event or change the fold's memory. */
export const publicSourceEventTypes = [
  'ConversationStarted',
  'MessageReceived',
  'OperatorMessageRecorded',
  'OperatorMessageSent',
  'AgentReplied',
  'MessageDeliveryFailed',
  'MessagesUnanswered',
  'AiSessionPaused',
  'AiSessionResumed',
  'AiSessionClosed',
  'HumanRequested',
  'DialogTransferred',
  'ConversationAssigned',
  'CreditsGranted',
  'CreditsConsumed',
  'WebhookEndpointDisabled',
  'CreditsLowThresholdSet',
  'CustomerErased',
] as const;

/** Stable per domain event and public type: every retry, replay and rebuild gives the same id. */
export const publicEventId = (sourceEventId: string, type: PublicEventType) =>
  `evt_${createHash('sha256').update(`${sourceEventId}:${type}`).digest('hex').slice(0, 32)}`;

function make<K extends PublicEventType>(source: SourceEvent, type: K, timestamp: string, data: Extract<PublicEvent, { type: K }>['data']): PublicEvent {
  return { id: publicEventId(source.id, type), type, catalogVersion: CATALOG_VERSION, timestamp, data } as PublicEvent;
}

export function derivePublicEvents(source: SourceEvent, company: CompanyFeedState, conversation: ConversationFeedState | null): Derived {
  if (source.conversationId === null) return { ...deriveCompanyEvents(source, company), conversation: null };
  const track = conversation ?? initialConversationFeedState;
  const next = evolveHandoff(track, source.event);
  const events = conversationEvents(source, source.conversationId, source.event);
  if (!track.handoff && next.handoff) {
    const { reason, detail } = next.handoff;
    events.push(make(source, 'conversation.handed_off', source.event.data.at, { conversationId: source.conversationId, reason, detail, handedOffAt: source.event.data.at }));
  }
  return { events, company, conversation: next };
}

function conversationEvents(source: SourceEvent, conversationId: string, event: ConversationEvent): PublicEvent[] {
  switch (event.type) {
    case 'ConversationStarted': {
      const { customer, integrationId, connectorType, at } = event.data;
      return [make(source, 'conversation.started', at, { conversationId, integrationId, connectorType, customer: { clientId: customer.clientId, name: customer.name ?? null, transport: customer.transport }, startedAt: at })];
    }
    case 'MessageReceived': {
      const { messageId, text, attachments, at } = event.data;
      return [make(source, 'message.received', at, { conversationId, messageId, text, attachmentCount: attachments?.length ?? 0, receivedAt: at })];
    }
    case 'AgentReplied': {
      const d = event.data;
      const sources = (d.provenance?.sources ?? []).map((s) => ({ documentId: s.documentId, title: s.title, chunkIndex: s.chunkIndex }));
      return [
        make(source, 'message.answered', d.at, {
          conversationId,
          messageId: d.messageId,
          inReplyTo: d.inReplyTo,
          answer: d.text,
          model: d.model,
          agentId: d.agentId,
          agentVersion: d.agentVersion ?? null,
          sources,
          handoff: d.handoff,
          answeredAt: d.at,
        }),
      ];
    }
    case 'MessageDeliveryFailed': {
      const { messageId, reason, attempts, at } = event.data;
      return [make(source, 'message.delivery_failed', at, { conversationId, messageId, reason, attempts, failedAt: at })];
    }
    case 'ConversationAssigned': {
      const { assigneeId, previousAssigneeId, by, at } = event.data;
      return [make(source, 'conversation.assigned', at, { conversationId, assigneeId, previousAssigneeId, assignedBy: by, assignedAt: at })];
    }
    case 'AiSessionClosed': {
      const { reason, resolution, by, at } = event.data;
      return [make(source, 'conversation.closed', at, { conversationId, reason, resolution: resolution ?? null, closedBy: by, closedAt: at })];
    }
    case 'DialogTransferred':
      return [make(source, 'conversation.transferred', event.data.at, { conversationId, dialogId: event.data.dialogId, transferredAt: event.data.at })];
    default:
      return [];
  }
}

function deriveCompanyEvents(source: SourceEvent & { conversationId: null }, company: CompanyFeedState): Omit<Derived, 'conversation'> {
  const event = source.event;
  switch (event.type) {
    case 'CreditsGranted':
      return { events: [], company: { ...company, balanceMicros: company.balanceMicros + event.data.amountMicros } };
    case 'CreditsConsumed': {
      const before = company.balanceMicros;
      const after = before - event.data.amountMicros;
      const events: PublicEvent[] = [];
      const threshold = company.lowThresholdMicros;
      if (before >= threshold && after < threshold && after > 0) events.push(make(source, 'credits.low', event.data.at, { balanceMicros: after, thresholdMicros: threshold, at: event.data.at }));
      if (before > 0 && after <= 0) events.push(make(source, 'credits.exhausted', event.data.at, { balanceMicros: after, at: event.data.at }));
      return { events, company: { ...company, balanceMicros: after } };
    }
    case 'CreditsLowThresholdSet':
      return { events: [], company: { ...company, lowThresholdMicros: event.data.thresholdMicros } };
    case 'WebhookEndpointDisabled': {
      const { endpointId, reason, at } = event.data;
      return { events: [make(source, 'endpoint.disabled', at, { endpointId, reason, disabledAt: at })], company };
    }
    case 'CustomerErased': {
      const { customerId, conversationIds, at } = event.data;
      return { events: [make(source, 'customer.erased', at, { customerId, conversationIds, erasedAt: at })], company };
    }
    default:
      return { events: [], company };
  }
}
