import { z } from 'zod';
import { CUSTOMER_LIMITS } from '../../domain/customers/events.js';
import { customerDisplayNameOf } from '../../domain/customers/displayName.js';
import { type KnownCustomer } from '../../domain/customers/state.js';
import { platformIdSchema } from '../../domain/platformId.js';
import type { CustomerConversationDoc } from '../../projections/customerConversations/customerConversationsProjection.js';
import { bearerSecurity as security, errorResponses, listQuery } from './schemas.js';

export const customerSchema = z.object({
  id: z.uuid(),
  integrationId: z.number().int(),
  clientId: platformIdSchema,
  channelId: platformIdSchema.nullable(),
  transport: z.string().nullable(),
  name: z.string().nullable(),
  /** The one name the dashboard shows for this customer: `name` when the channel gave one, else a generated one ("Amber Otter"). */
  displayName: z.string(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  note: z.string(),
  noteUpdatedBy: z.string().nullable(),
  noteUpdatedAt: z.string().nullable(),
  tags: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const customerView = (c: KnownCustomer): z.infer<typeof customerSchema> => ({
  id: c.customerId,
  integrationId: c.integrationId,
  clientId: c.clientId,
  channelId: c.profile.channelId ?? null,
  transport: c.profile.transport ?? null,
  name: c.profile.name ?? null,
  displayName: customerDisplayNameOf(c.customerId, c.profile.name),
  phone: c.profile.phone ?? null,
  email: c.profile.email ?? null,
  note: c.note,
  noteUpdatedBy: c.noteUpdatedBy,
  noteUpdatedAt: c.noteUpdatedAt,
  tags: c.tags,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

const customerConversationSchema = z.object({
  id: z.uuid(),
  integrationId: z.number().int(),
  connectorType: z.enum(['msgplatform', 'webchat']),
  transport: z.string(),
  sessionState: z.enum(['active', 'paused', 'closed', 'none']),
  messageCount: z.number().int(),
  lastMessageAt: z.string(),
  createdAt: z.string(),
});

export const customerConversationView = (d: CustomerConversationDoc): z.infer<typeof customerConversationSchema> => ({
  id: d.id,
  integrationId: d.integrationId,
  connectorType: d.connectorType,
  transport: d.transport,
  sessionState: d.sessionState,
  messageCount: d.messageCount,
  lastMessageAt: d.lastMessageAt,
  createdAt: d.createdAt,
});

const tags = ['customers'];
const params = z.object({ id: z.string().max(64) });
const one = z.object({ customer: customerSchema });

export const getCustomerSchema = {
  tags,
  security,
  description: "A customer's profile: what the channel said (name, phone, email, platform ids) and the teammates' note and tags. Another company's customer: 404.",
  params,
  response: { 200: one, ...errorResponses },
};

export const setNoteSchema = {
  tags,
  security,
  description: `Replaces the note (trimmed; at most ${CUSTOMER_LIMITS.note} characters; "" clears it). Records who set it and when.`,
  params,
  body: z.strictObject({ note: z.string().max(CUSTOMER_LIMITS.note * 2) }),
  response: { 200: one, ...errorResponses },
};

export const setTagsSchema = {
  tags,
  security,
  description: `Replaces the tags: trimmed, lower-cased, duplicates once; at most ${CUSTOMER_LIMITS.tags} tags of at most ${CUSTOMER_LIMITS.tag} characters.`,
  params,
  body: z.strictObject({ tags: z.array(z.string().max(CUSTOMER_LIMITS.tag * 4)).max(CUSTOMER_LIMITS.tags * 4) }),
  response: { 200: one, ...errorResponses },
};

export const customerConversationsSchema = {
  tags,
  security,
  description: "The customer's conversations, newest activity first (paginated).",
  params,
  querystring: listQuery,
  response: { 200: z.object({ conversations: z.array(customerConversationSchema), nextCursor: z.string().nullable() }), ...errorResponses },
};

export const eraseCustomerSchema = {
  tags,
  security,
  description:
    "Erases the customer's personal data (GDPR right to erasure; owners and admins). Their keys are deleted, so every message, name, email, phone, platform id, CSAT comment and action argument of theirs reads as `[erased]` from then on; the read models (lists, search, logs, outbound events not yet delivered) are rebuilt without it in the background. Records who and why (`reason`: a reference such as a ticket number, not a description of the person). Idempotent: erasing again answers 202 and deletes nothing more. Another company's customer: 404; the agent role: 403.",
  params,
  body: z.strictObject({ reason: z.string().max(CUSTOMER_LIMITS.erasureReason * 2) }),
  response: {
    202: z.object({
      erasure: z.object({
        customerId: z.uuid(),
        /** False when the customer was already erased (nothing new recorded). */
        recorded: z.boolean(),
        /** Keys deleted by this call (0 on a repeat). */
        keysDeleted: z.number().int().min(0),
      }),
    }),
    ...errorResponses,
  },
};

const exportAuthorSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('customer') }),
  z.object({ kind: z.literal('ai_agent'), agentId: z.string().nullable() }),
  z.object({ kind: z.literal('teammate'), by: z.string().nullable() }),
  z.object({ kind: z.literal('system') }),
]);

const conversationExportSchema = z.object({
  conversationId: z.uuid(),
  startedAt: z.string().nullable(),
  customer: z.record(z.string(), z.unknown()).nullable(),
  messages: z.array(
    z.object({
      messageId: z.string(),
      kind: z.enum(['message', 'internal_note']),
      direction: z.enum(['inbound', 'outbound', 'internal']),
      author: exportAuthorSchema,
      text: z.string(),
      attachments: z.array(z.unknown()).optional(),
      at: z.string(),
    }),
  ),
  ratings: z.array(z.object({ surveyId: z.string(), rating: z.number().int(), comment: z.string().nullable(), via: z.string(), at: z.string() })),
  actionCalls: z.array(
    z.object({
      callId: z.string(),
      actionName: z.string(),
      mode: z.string(),
      arguments: z.record(z.string(), z.unknown()),
      prompt: z.string().nullable(),
      outcome: z.enum(['pending', 'succeeded', 'failed', 'rejected', 'declined', 'refused', 'expired']),
      result: z.string().nullable(),
      status: z.number().int().nullable(),
      requestedAt: z.string(),
      finishedAt: z.string().nullable(),
    }),
  ),
  handoffSummaries: z.array(z.object({ wants: z.string(), tried: z.string(), why: z.string(), at: z.string() })),
  verifiedIdentities: z.array(z.object({ userId: z.string(), email: z.string().nullable(), at: z.string() })),
  resolutions: z.array(z.object({ resolution: z.string(), by: z.string().nullable(), at: z.string() })),
});

export const exportCustomerSchema = {
  tags,
  security,
  description:
    "Everything held about the customer, as one JSON document (GDPR right of access; owners and admins): the profile with the teammates' note and tags, and their conversation with every message both ways (author and time; teammates' internal notes marked `internal_note`), CSAT ratings and comments, action calls (arguments and results as stored), handoff summaries, verified identities and closing notes. Bounded: at most 10,000 events of a conversation are read; past that `truncated` is true. Records `CustomerExported` (who and when, no personal data) on the customer's stream. An erased customer: 200 with `erased: true`, `profile: null` and no conversations. Another company's or an unknown customer: 404; the agent role: 403.",
  params,
  response: {
    200: z.object({
      export: z.object({
        customerId: z.uuid(),
        exportedAt: z.string(),
        erased: z.boolean(),
        profile: customerSchema.nullable(),
        conversations: z.array(conversationExportSchema),
        truncated: z.boolean(),
      }),
    }),
    ...errorResponses,
  },
};
