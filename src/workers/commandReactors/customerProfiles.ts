import { conversationEvents } from '../../domain/conversations/events.js';
import type { ChannelProfile } from '../../domain/customers/events.js';
import { updateCustomerFromChannel } from '../../commands/customers/customers.js';
import type { CommandDeps } from '../../commands/deps.js';
import type { RecordedEvent } from '../../ports/eventStore.js';
import { defineReactor } from '../../processing/reactor.js';

type Origin = { companyId: string; integrationId: number; clientId: string | number };

/** Conversations whose origin this process knows; bounded, oldest out. */
const MAX_ORIGINS = 10_000;

/**
 * Keeps each customer's profile in step with what the channel says: a new conversation (name, transport,
 * channel) and every customer message that carries client details (name, phone, email). Off the webhook's
 * path, so a webhook costs no extra write; an unchanged profile appends nothing (the customer's cached state
 * is compared, no growing stream is read).
 */
export const customerProfilesReactor = defineReactor(conversationEvents, {
  name: 'customer-profiles',
  eventTypes: ['ConversationStarted', 'MessageReceived'],
  start: ({ commands }) => {
    const origins = conversationOrigins(commands);
    return async (event) => {
      if (event.type === 'ConversationStarted') {
        const { companyId, integrationId, customer } = event.data;
        origins.remember(event.stream, { companyId, integrationId, clientId: customer.clientId });
        const profile: ChannelProfile = { transport: customer.transport, channelId: customer.channelId, ...(customer.name ? { name: customer.name } : {}) };
        await updateCustomerFromChannel(commands, { companyId, integrationId, clientId: customer.clientId, profile, ...correlation(event) });
        return;
      }
      if (!event.data.client) return;
      const profile = profileOf(event.data.client);
      if (Object.keys(profile).length === 0) return;
      const origin = await origins.of(event.stream);
      if (!origin) return;
      await updateCustomerFromChannel(commands, { ...origin, profile, ...correlation(event) });
    };
  },
});

/** Which customer each conversation is with, cached for the conversations this process has seen lately. */
function conversationOrigins(commands: CommandDeps) {
  const origins = new Map<string, Origin>();
  const remember = (stream: string, origin: Origin) => {
    origins.delete(stream);
    origins.set(stream, origin);
    if (origins.size > MAX_ORIGINS) origins.delete(origins.keys().next().value!);
  };
  return {
    remember,
    /** A conversation's first event names its customer: one bounded read when this process has not seen it. */
    async of(stream: string): Promise<Origin | null> {
      const known = origins.get(stream);
      if (known) return known;
      const [first] = await commands.eventStore.readStream(stream, { fromRevision: 0n, maxCount: 1 });
      if (first?.type !== 'ConversationStarted') return null;
      const started = conversationEvents.ConversationStarted.parse(first.data);
      const origin = { companyId: started.companyId, integrationId: started.integrationId, clientId: started.customer.clientId };
      remember(stream, origin);
      return origin;
    },
  };
}

const correlation = (event: RecordedEvent) => (event.metadata.correlationId ? { correlationId: event.metadata.correlationId } : {});

/** The client details a platform message carried (client.name / phone / email), strings only. */
export function profileOf(client: Record<string, unknown>): ChannelProfile {
  const profile: ChannelProfile = {};
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : undefined);
  const name = text(client.name);
  const phone = text(client.phone);
  const email = text(client.email);
  if (name) profile.name = name;
  if (phone) profile.phone = phone;
  if (email) profile.email = email;
  return profile;
}
