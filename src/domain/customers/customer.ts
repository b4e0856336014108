import { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import { platformIdSchema } from '../platformId.js';

/**
 * A customer of one company: who is behind a (integration, platform client id), with what the channel told us
 * (name, phone, email, platform ids) and what teammates wrote (a note, tags). Its own small stream
 * (`customer-<id>`): the profile changes only when the channel says something new, so the stream stays short
 * however many messages the customer sends.
 */

export const CUSTOMER_LIMITS = { name: 200, phone: 64, email: 320, transport: 64, note: 4000, tags: 20, tag: 40 } as const;

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
};
type Events = typeof customerEvents;
export type CustomerEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];

export interface KnownCustomer {
  status: 'known';
  customerId: string;
  companyId: string;
  integrationId: number;
  clientId: string | number;
  profile: ChannelProfile;
  note: string;
  noteUpdatedBy: string | null;
  noteUpdatedAt: string | null;
  tags: string[];
  createdAt: string;
  updatedAt: string;
}
export type CustomerState = { status: 'none' } | KnownCustomer;

export type CustomerCommand =
  | {
      type: 'UpdateProfileFromChannel';
      customerId: string;
      companyId: string;
      integrationId: number;
      clientId: string | number;
      profile: ChannelProfile;
      now: string;
    }
  | { type: 'SetCustomerNote'; companyId: string; note: string; by: string; now: string }
  | { type: 'SetCustomerTags'; companyId: string; tags: string[]; by: string; now: string };

/** Tags as stored: trimmed, lower-case, inner whitespace collapsed, empty ones dropped, duplicates once, in the order given. */
export function normaliseTags(tags: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of tags) {
    const tag = raw.trim().toLowerCase().replace(/\s+/g, ' ');
    if (tag && !out.includes(tag)) out.push(tag);
  }
  return out;
}

/** Channel values trimmed; blank ones dropped (a channel that sends "" has said nothing). */
export function cleanChannelProfile(profile: ChannelProfile): ChannelProfile {
  const out: ChannelProfile = {};
  for (const key of ['name', 'phone', 'email', 'transport'] as const) {
    const value = profile[key]?.trim();
    if (value) out[key] = value;
  }
  if (profile.channelId !== undefined) out.channelId = profile.channelId;
  return out;
}

const notFound = () => new DomainError('NOT_FOUND', 'Customer not found');

export const customerDecider: Decider<CustomerCommand, CustomerEvent, CustomerState> = {
  initialState: { status: 'none' },
  evolve(state, event) {
    switch (event.type) {
      case 'CustomerProfileUpdated': {
        const d = event.data;
        if (state.status === 'none') {
          return {
            status: 'known',
            customerId: d.customerId,
            companyId: d.companyId,
            integrationId: d.integrationId,
            clientId: d.clientId,
            profile: { ...d.changes },
            note: '',
            noteUpdatedBy: null,
            noteUpdatedAt: null,
            tags: [],
            createdAt: d.at,
            updatedAt: d.at,
          };
        }
        return { ...state, profile: { ...state.profile, ...d.changes }, updatedAt: d.at };
      }
      case 'CustomerNoteSet':
        return state.status === 'none' ? state : { ...state, note: event.data.note, noteUpdatedBy: event.data.by, noteUpdatedAt: event.data.at, updatedAt: event.data.at };
      case 'CustomerTagsSet':
        return state.status === 'none' ? state : { ...state, tags: event.data.tags, updatedAt: event.data.at };
    }
  },
  decide(command, state) {
    if (command.type === 'UpdateProfileFromChannel') {
      // Values too long for the profile are cut rather than refused: the channel's message is already accepted.
      const given = cleanChannelProfile(truncateProfile(command.profile));
      if (state.status === 'none') {
        const { customerId, companyId, integrationId, clientId, now } = command;
        return [{ type: 'CustomerProfileUpdated', data: { customerId, companyId, integrationId, clientId, changes: given, at: now } }];
      }
      if (state.companyId !== command.companyId) throw notFound();
      const changes = Object.fromEntries(Object.entries(given).filter(([k, v]) => state.profile[k as keyof ChannelProfile] !== v)) as ChannelProfile;
      if (Object.keys(changes).length === 0) return [];
      return [
        {
          type: 'CustomerProfileUpdated',
          data: { customerId: state.customerId, companyId: state.companyId, integrationId: state.integrationId, clientId: state.clientId, changes, at: command.now },
        },
      ];
    }
    // Another company's customer is indistinguishable from a missing one.
    if (state.status !== 'known' || state.companyId !== command.companyId) throw notFound();
    switch (command.type) {
      case 'SetCustomerNote': {
        const note = command.note.trim();
        if (note.length > CUSTOMER_LIMITS.note) throw new DomainError('VALIDATION_ERROR', `note: at most ${CUSTOMER_LIMITS.note} characters`);
        return note === state.note ? [] : [{ type: 'CustomerNoteSet', data: { note, by: command.by, at: command.now } }];
      }
      case 'SetCustomerTags': {
        const tags = normaliseTags(command.tags);
        if (tags.length > CUSTOMER_LIMITS.tags) throw new DomainError('VALIDATION_ERROR', `tags: at most ${CUSTOMER_LIMITS.tags} tags`);
        const long = tags.find((t) => t.length > CUSTOMER_LIMITS.tag);
        if (long !== undefined) throw new DomainError('VALIDATION_ERROR', `tags: a tag has at most ${CUSTOMER_LIMITS.tag} characters`);
        const same = tags.length === state.tags.length && tags.every((t, i) => t === state.tags[i]);
        return same ? [] : [{ type: 'CustomerTagsSet', data: { tags, by: command.by, at: command.now } }];
      }
    }
  },
};

function truncateProfile(profile: ChannelProfile): ChannelProfile {
  const cut = (v: string | undefined, max: number) => (v === undefined ? undefined : v.slice(0, max));
  const out: ChannelProfile = {};
  const name = cut(profile.name, CUSTOMER_LIMITS.name);
  const phone = cut(profile.phone, CUSTOMER_LIMITS.phone);
  const email = cut(profile.email, CUSTOMER_LIMITS.email);
  const transport = cut(profile.transport, CUSTOMER_LIMITS.transport);
  if (name !== undefined) out.name = name;
  if (phone !== undefined) out.phone = phone;
  if (email !== undefined) out.email = email;
  if (transport !== undefined) out.transport = transport;
  if (profile.channelId !== undefined) out.channelId = profile.channelId;
  return out;
}

export const customerStream = (customerId: string) => `customer-${customerId}`;
