import { z } from 'zod';
import { platformIdSchema } from '../platformId.js';

/**
 * A customer of one company: who is behind a (integration, platform client id), with what the channel told us
 * (name, phone, email, platform ids) and what teammates wrote (a note, tags). Its own small stream
 * (`customer-<id>`): the profile changes only when the channel says something new, so the stream stays short
 * however many messages the customer sends.
 */

/** What an erased personal text reads as, everywhere (domain/personalData.ts). */
export const ERASED_TEXT = '[erased]';

export const CUSTOMER_LIMITS = { name: 200, phone: 64, email: 320, transport: 64, note: 4000, tags: 20, tag: 40, erasureReason: 200 } as const;

const at = z.iso.datetime();
const by = z.string().max(100);

/** What a channel may say about a customer; each field optional (only what it sent). */
export const channelProfileSchema = z.object({
  name: z.string().min(1).max(CUSTOMER_LIMITS.name).optional(),
  phone: z.string().min(1).max(CUSTOMER_LIMITS.phone).optional(),
  email: z.string().min(1).max(CUSTOMER_LIMITS.email).optional(),
  transport: z.string().min(1).max(CUSTOMER_LIMITS.transport).optional(),
  channelId: platformIdSchema.nullable().optional(),
});
export type ChannelProfile = z.infer<typeof channelProfileSchema>;

export const customerEvents = {
  /** The channel told something new about the customer; the first one also names who it is. */
  CustomerProfileUpdated: z.object({
    customerId: z.uuid(),
    companyId: z.uuid(),
    integrationId: z.number().int().positive(),
    clientId: platformIdSchema,
    changes: channelProfileSchema,
    at,
  }),
  CustomerNoteSet: z.object({ note: z.string().max(CUSTOMER_LIMITS.note), by, at }),
  CustomerTagsSet: z.object({ tags: z.array(z.string().min(1).max(CUSTOMER_LIMITS.tag)).max(CUSTOMER_LIMITS.tags), by, at }),
  /**
   * The customer's personal data was erased (GDPR art. 17; docs/erasure.md): the keys that encrypt it are gone,
   * so every earlier event of theirs reads with its personal fields erased. Says who and why, and which
   * conversations the read models must purge (ids only): never the data itself. `reason` is the operator's
   * reference for the request (a ticket number), not a description of the person; `by: system:retention`
   * marks an erasure the company's retention period made (workers/retention).
   */
  CustomerErased: z.object({
    customerId: z.uuid(),
    companyId: z.uuid(),
    conversationIds: z.array(z.uuid()).max(10),
    by: z.string().max(100),
    reason: z.string().min(1).max(CUSTOMER_LIMITS.erasureReason),
    at,
  }),
  /**
   * Someone exported everything held about the customer (GDPR art. 15 access request; docs/erasure.md): the
   * audit of who read it out and when. Never the data itself, so it needs no key and survives an erasure.
   */
  CustomerExported: z.object({ by: z.string().max(100), at }),
};
type Events = typeof customerEvents;
export type CustomerEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];

