import { z } from 'zod';
import { handoffReason } from '../conversations/state.js';
import { platformIdSchema } from '../platformId.js';

/**
 * The public event catalog: what the service tells a company's own systems (outbound webhooks and the events
 * feed). It is a contract of its own, versioned apart from the domain events it is derived from: a domain event
 * may change or split without a receiver noticing, and no internal field (dedupe keys, token counts, sealed
 * secrets, platform plumbing) reaches it. Adding a type or an optional field keeps the version; removing or
 * renaming one raises it.
 */
export const CATALOG_VERSION = 1 as const;

const at = z.iso.datetime();
const conversationId = z.uuid();

export const publicEventSchemas = {
  'conversation.started': z.object({
    conversationId,
    integrationId: z.number().int().positive(),
    connectorType: z.enum(['msgplatform', 'webchat']),
    customer: z.object({ clientId: platformIdSchema, name: z.string().nullable(), transport: z.string() }),
    startedAt: at,
  }),
  'message.received': z.object({ conversationId, messageId: z.uuid(), text: z.string(), attachmentCount: z.number().int().min(0), receivedAt: at }),
  'message.answered': z.object({
    conversationId,
    messageId: z.uuid(),
    /** The customer messages this answer replies to. */
    inReplyTo: z.array(z.uuid()),
    answer: z.string(),
    model: z.string(),
    agentId: z.uuid().nullable(),
    /** The agent's version, once agents are versioned; null until then. */
    agentVersion: z.number().int().positive().nullable(),
    sources: z.array(z.object({ documentId: z.string(), title: z.string(), chunkIndex: z.number().int().min(0) })),
    /** The answer was the agent's handoff message: `conversation.handed_off` follows. */
    handoff: z.boolean(),
    answeredAt: at,
  }),
  'message.delivery_failed': z.object({ conversationId, messageId: z.uuid(), reason: z.string(), attempts: z.number().int().min(1), failedAt: at }),
  'conversation.handed_off': z.object({ conversationId, reason: handoffReason, detail: z.string().nullable(), handedOffAt: at }),
  'conversation.assigned': z.object({ conversationId, assigneeId: z.uuid(), previousAssigneeId: z.uuid().nullable(), assignedBy: z.string(), assignedAt: at }),
  'conversation.closed': z.object({
    conversationId,
    /** close_dialog / close_request: the messaging platform closed it; api: a teammate or an API client. */
    reason: z.enum(['close_dialog', 'close_request', 'api']),
    resolution: z.string().nullable(),
    closedBy: z.string().nullable(),
    closedAt: at,
  }),
  'conversation.transferred': z.object({ conversationId, dialogId: platformIdSchema.nullable(), transferredAt: at }),
  'credits.low': z.object({ balanceMicros: z.number().int(), thresholdMicros: z.number().int().min(0), at }),
  'credits.exhausted': z.object({ balanceMicros: z.number().int(), at }),
  'endpoint.disabled': z.object({ endpointId: z.uuid(), reason: z.string(), disabledAt: at }),
  /** A customer's personal data was erased (docs/erasure.md): a receiver erases its own copies. Ids only. */
  'customer.erased': z.object({ customerId: z.uuid(), conversationIds: z.array(z.uuid()), erasedAt: at }),
} as const;

export type PublicEventType = keyof typeof publicEventSchemas;
export const publicEventTypes = Object.keys(publicEventSchemas) as PublicEventType[];
export const isPublicEventType = (type: string): type is PublicEventType => type in publicEventSchemas;

/** One public event, as the feed lists it and a webhook delivery's body carries it. */
export type PublicEvent = {
  [K in PublicEventType]: {
    /** Stable: the same on every delivery, retry and replay of it (the Standard Webhooks `webhook-id`). */
    id: string;
    type: K;
    catalogVersion: typeof CATALOG_VERSION;
    /** When it happened (ISO 8601 UTC). */
    timestamp: string;
    data: z.infer<(typeof publicEventSchemas)[K]>;
  };
}[PublicEventType];

/** The envelope's schema (the data's per type), for the API documentation and receivers. */
export const publicEventSchema = z.object({
  id: z.string(),
  type: z.enum(publicEventTypes as [PublicEventType, ...PublicEventType[]]),
  catalogVersion: z.literal(CATALOG_VERSION),
  timestamp: at,
  data: z.record(z.string(), z.unknown()),
});
