import type { ConversationEvent } from '../domain/conversations/events.js';
import type { ChannelProfile } from '../domain/customers/customer.js';
import { updateCustomerFromChannel } from '../commands/customers/customers.js';
import type { CommandDeps } from '../commands/deps.js';
import type { RecordedEvent } from '../ports/eventStore.js';
import type { ReadStore } from '../ports/readStore.js';
import type { EventConsumer } from '../processing/eventConsumer.js';
import { startReactor } from './reactor.js';

type Origin = { companyId: string; integrationId: number; clientId: string | number };

/** Conversations whose origin this process knows; bounded, oldest out. */
const MAX_ORIGINS = 10_000;

/**
 * Keeps each customer's profile in step with what the channel says: a new conversation (name, transport,
 * channel) and every customer message that carries client details (name, phone, email). Off the webhook's
 * path, so a webhook costs no extra write; an unchanged profile appends nothing (the customer's cached state
 * is compared, no growing stream is read).
 */
export async function startCustomerProfileReactor(options: { commands: CommandDeps; readStore: ReadStore; consumer: EventConsumer }) {
  const { commands } = options;
  const origins = new Map<string, Origin>();
  const remember = (stream: string, origin: Origin) => {
    origins.delete(stream);
    origins.set(stream, origin);
    if (origins.size > MAX_ORIGINS) origins.delete(origins.keys().next().value!);
  };
  // A conversation's first event names its customer: one bounded read when this process has not seen it.
  const originOf = async (stream: string): Promise<Origin | null> => {
    const known = origins.get(stream);
    if (known) return known;
    const [first] = await commands.eventStore.readStream(stream, { fromRevision: 0n, maxCount: 1 });
    if (first?.type !== 'ConversationStarted') return null;
    const started = first.data as Extract<ConversationEvent, { type: 'ConversationStarted' }>['data'];
    const origin = { companyId: started.companyId, integrationId: started.integrationId, clientId: started.customer.clientId };
    remember(stream, origin);
    return origin;
  };

  const react = async (event: RecordedEvent) => {
    const e = { type: event.type, data: event.data } as ConversationEvent;
    if (e.type === 'ConversationStarted') {
      const { companyId, integrationId, customer } = e.data;
      remember(event.stream, { companyId, integrationId, clientId: customer.clientId });
      const profile: ChannelProfile = { transport: customer.transport, channelId: customer.channelId, ...(customer.name ? { name: customer.name } : {}) };
      await updateCustomerFromChannel(commands, { companyId, integrationId, clientId: customer.clientId, profile, ...correlation(event) });
      return;
    }
    if (e.type !== 'MessageReceived' || !e.data.client) return;
    const profile = profileOf(e.data.client);
    if (Object.keys(profile).length === 0) return;
    const origin = await originOf(event.stream);
    if (!origin) return;
    await updateCustomerFromChannel(commands, { ...origin, profile, ...correlation(event) });
  };

  return startReactor({
    name: 'customer-profiles',
    eventStore: commands.eventStore,
    readStore: options.readStore,
    eventTypes: ['ConversationStarted', 'MessageReceived'],
    logger: commands.logger,
    consumer: options.consumer,
    react,
  });
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
