import { customerDecider, customerStream, customerIdFor } from '../../domain/customers/decider.js';
import { type ChannelProfile } from '../../domain/customers/events.js';
import { type KnownCustomer } from '../../domain/customers/state.js';
import type { EventStore } from '../../ports/eventStore.js';
import { handleCommand, loadState } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';

export { customerIdFor };

/**
 * Records what the channel said about the customer; appends only when something changed. The customer's
 * state is cached by handleCommand, so a message costs a read of the (usually empty) tail of a short stream.
 */
export async function updateCustomerFromChannel(
  deps: CommandDeps,
  input: { companyId: string; integrationId: number; clientId: string | number; profile: ChannelProfile; correlationId?: string },
) {
  const customerId = customerIdFor(input.integrationId, input.clientId);
  return handleCommand(
    deps.eventStore,
    customerStream(customerId),
    customerDecider,
    {
      type: 'UpdateProfileFromChannel',
      customerId,
      companyId: input.companyId,
      integrationId: input.integrationId,
      clientId: input.clientId,
      profile: input.profile,
      now: deps.clock.now().toISOString(),
    },
    { metadata: { companyId: input.companyId, actor: 'channel', ...(input.correlationId ? { correlationId: input.correlationId } : {}) }, maxRetries: 10 },
  );
}

type Teammate = { companyId: string; userId: string; customerId: string };
const metadataOf = (input: Teammate) => ({ companyId: input.companyId, actor: `user:${input.userId}` });

export async function setCustomerNote(deps: CommandDeps, input: Teammate & { note: string }) {
  return handleCommand(
    deps.eventStore,
    customerStream(input.customerId),
    customerDecider,
    { type: 'SetCustomerNote', companyId: input.companyId, note: input.note, by: `user:${input.userId}`, now: deps.clock.now().toISOString() },
    { metadata: metadataOf(input) },
  );
}

export async function setCustomerTags(deps: CommandDeps, input: Teammate & { tags: string[] }) {
  return handleCommand(
    deps.eventStore,
    customerStream(input.customerId),
    customerDecider,
    { type: 'SetCustomerTags', companyId: input.companyId, tags: input.tags, by: `user:${input.userId}`, now: deps.clock.now().toISOString() },
    { metadata: metadataOf(input) },
  );
}

/** The customer as stored now (strongly consistent), or null when unknown or another company's. */
export async function loadCustomer(eventStore: EventStore, companyId: string, customerId: string): Promise<KnownCustomer | null> {
  const { state } = await loadState(eventStore, customerStream(customerId), customerDecider);
  return state.status === 'known' && state.companyId === companyId ? state : null;
}
