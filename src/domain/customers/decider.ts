import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import { CUSTOMER_LIMITS, type ChannelProfile, type CustomerEvent } from './events.js';
import { evolveCustomer, initialCustomerState, type CustomerState } from './state.js';
import { createHash } from 'node:crypto';

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
  | { type: 'SetCustomerTags'; companyId: string; tags: string[]; by: string; now: string }
  /** `conversationIds`: the customer's conversations (derived from the same integration and client id). */
  | {
      type: 'EraseCustomer';
      companyId: string;
      conversationIds: string[];
      by: string;
      reason: string;
      now: string;
      /** The customer, already erased, wrote again since (a key of theirs is live again): their new data needs purging. */
      writtenSinceErasure?: boolean;
    }
  /** An export of everything held about the customer was made (the audit; an erased customer's too). */
  | { type: 'RecordExport'; companyId: string; by: string; now: string };

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
  initialState: initialCustomerState,
  evolve: evolveCustomer,
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
      // An erased customer who writes again is known again: the event names them afresh (their old events read erased).
      if (Object.keys(changes).length === 0 && !state.erased) return [];
      return [
        {
          type: 'CustomerProfileUpdated',
          data: { customerId: state.customerId, companyId: state.companyId, integrationId: state.integrationId, clientId: command.clientId, changes, at: command.now },
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
      case 'EraseCustomer': {
        // Idempotent, unless the erased customer wrote again: that new data is erased (and purged) like the old.
        if (state.erased && !command.writtenSinceErasure) return [];
        const reason = command.reason.trim();
        if (!reason) throw new DomainError('VALIDATION_ERROR', 'reason: required');
        if (reason.length > CUSTOMER_LIMITS.erasureReason) throw new DomainError('VALIDATION_ERROR', `reason: at most ${CUSTOMER_LIMITS.erasureReason} characters`);
        const conversationIds = state.erased ? [...new Set([...state.erasedConversationIds, ...command.conversationIds])] : command.conversationIds;
        const data = { customerId: state.customerId, companyId: state.companyId, conversationIds, by: command.by, reason, at: command.now };
        return [{ type: 'CustomerErased', data }];
      }
      case 'RecordExport':
        return [{ type: 'CustomerExported', data: { by: command.by, at: command.now } }];
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

const CUSTOMER_PREFIX = 'customer-';
export const customerStream = (customerId: string) => `${CUSTOMER_PREFIX}${customerId}`;
export const customerIdOfStream = (stream: string) => (stream.startsWith(CUSTOMER_PREFIX) ? stream.slice(CUSTOMER_PREFIX.length) : null);

/**
 * A customer is identified per company by (integration, platform client id), like its conversation, so the
 * channel side and the read models find the customer's stream without a lookup. UUID-shaped (version 5 bits),
 * the same derivation as the command side's deterministic ids.
 */
export function customerIdFor(integrationId: number, clientId: string | number): string {
  const h = createHash('sha256').update(`customer:${integrationId}:${String(clientId)}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}
