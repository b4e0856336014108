import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { customerEvents } from '../../domain/customers/events.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { companyIdOfCreditsStream } from '../../domain/credits/decider.js';
import { creditEvents } from '../../domain/credits/events.js';
import type { PublicEvent } from '../../domain/publicEvents/catalog.js';
import {
  derivePublicEvents,
  initialCompanyFeedState,
  publicSourceEventTypes,
  type CompanyFeedState,
  type ConversationFeedState,
  type SourceEvent,
} from './derive.js';
import { companyIdOfWebhookEndpointsStream } from '../../domain/webhookEndpoints/decider.js';
import { webhookEndpointEvents } from '../../domain/webhookEndpoints/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection, type ProjectionContext } from '../projection.js';

/**
 * Every public event of a company, numbered 1, 2, 3 … per company (`n`) in the order of the event log, for the
 * events feed and the outbound webhook deliveries. Documents are grouped in buckets of PUBLIC_EVENT_BUCKET
 * consecutive numbers, so a page after any `n` is one indexed equality query per bucket, whatever the company's
 * history holds; `get` by `publicEventDocId` reaches any number directly (a binary search by time costs
 * log₂(n) point reads). Rebuildable: the numbering follows the log, so a rebuild gives the same numbers.
 */
export interface PublicEventDoc extends Doc {
  companyId: string;
  n: number;
  bucket: number;
  type: PublicEvent['type'];
  conversationId: string | null;
  timestamp: string;
  event: PublicEvent;
}
/** Per company: the last number given and the fold's memory (balance, threshold). */
export interface PublicEventFeedDoc extends Doc, CompanyFeedState {
  lastN: number;
}
interface ConversationFeedDoc extends Doc {
  companyId: string | null;
  track: ConversationFeedState;
}

export const PUBLIC_EVENTS = 'public_events';
export const PUBLIC_EVENT_FEEDS = 'public_event_feeds';
const PUBLIC_EVENT_CONVERSATIONS = 'public_event_conversations';
export const PUBLIC_EVENT_BUCKET = 100;
export const publicEventDocId = (companyId: string, n: number) => `${companyId}:${n}`;
export const bucketOf = (n: number) => Math.floor(n / PUBLIC_EVENT_BUCKET);

const sourceSchemas = { ...conversationEvents, ...creditEvents, ...webhookEndpointEvents, ...customerEvents };

export const publicEventsProjection = defineProjection(sourceSchemas, {
  name: 'publicEvents',
  collections: [
    { name: PUBLIC_EVENTS, indexes: [['companyId', 'bucket', 'n']] },
    { name: PUBLIC_EVENT_FEEDS, indexes: [] },
    { name: PUBLIC_EVENT_CONVERSATIONS, indexes: [] },
  ],
  eventTypes: [...publicSourceEventTypes],
  async apply(event, ctx) {
    const inConversation = event.type in conversationEvents;
    const conversationId = inConversation ? conversationIdOfStream(event.stream) : null;
    const conversation = conversationId ? await ctx.get<ConversationFeedDoc>(PUBLIC_EVENT_CONVERSATIONS, conversationId) : null;
    const companyId =
      (event.type === 'ConversationStarted' ? event.data.companyId : null) ??
      (event.type === 'CreditsLowThresholdSet' ? event.data.companyId : null) ??
      (event.type === 'CustomerErased' ? event.data.companyId : null) ??
      conversation?.companyId ??
      event.metadata.companyId ??
      (event.type === 'CreditsGranted' || event.type === 'CreditsConsumed' ? companyIdOfCreditsStream(event.stream) : null) ??
      (event.type === 'WebhookEndpointDisabled' ? companyIdOfWebhookEndpointsStream(event.stream) : null);
    if (!companyId) return;
    const feed = (await ctx.get<PublicEventFeedDoc>(PUBLIC_EVENT_FEEDS, companyId)) ?? { id: companyId, lastN: 0, ...initialCompanyFeedState };
    const source = { id: event.id, conversationId, event: { type: event.type, data: event.data } } as SourceEvent;
    const derived = derivePublicEvents(source, feed, conversation?.track ?? null);
    if (conversationId && derived.conversation) ctx.put(PUBLIC_EVENT_CONVERSATIONS, { id: conversationId, companyId, track: derived.conversation } satisfies ConversationFeedDoc);
    const lastN = append(ctx, companyId, feed.lastN, derived.events, conversationId);
    ctx.put(PUBLIC_EVENT_FEEDS, { id: companyId, lastN, balanceMicros: derived.company.balanceMicros, lowThresholdMicros: derived.company.lowThresholdMicros } satisfies PublicEventFeedDoc);
  },
});

function append(ctx: ProjectionContext, companyId: string, lastN: number, events: PublicEvent[], conversationId: string | null): number {
  let n = lastN;
  for (const event of events) {
    n += 1;
    ctx.put(PUBLIC_EVENTS, { id: publicEventDocId(companyId, n), companyId, n, bucket: bucketOf(n), type: event.type, conversationId, timestamp: event.timestamp, event } satisfies PublicEventDoc);
  }
  return n;
}
