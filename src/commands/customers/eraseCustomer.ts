import { conversationStream } from '../../domain/conversations/decider.js';
import { customerDecider, customerStream } from '../../domain/customers/decider.js';
import type { KnownCustomer } from '../../domain/customers/state.js';
import type { PersonalDataKeys } from '../../ports/personalDataKeys.js';
import { handleCommand } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';
import { conversationIdFor } from '../conversations/conversationIds.js';

export interface ErasureDeps extends CommandDeps {
  personalKeys: PersonalDataKeys;
}

/**
 * Erases a customer (docs/erasure.md): records CustomerErased (who, why, which conversations; no personal
 * data), then deletes the customer's keys, after which every event of theirs reads with its personal fields
 * erased. Idempotent: an erased customer records nothing again (unless they wrote again since), and deleting keys twice deletes nothing. If the
 * process dies between the two steps, the erasure sweep (processing/erasures.ts) deletes the keys on start-up.
 * Read models are purged by that sweep too (a rebuild), after this returns.
 */
export async function eraseCustomer(
  deps: ErasureDeps,
  /** `by`: who erases when it is not a teammate (`system:retention`); otherwise `user:<userId>`. */
  input: { companyId: string; userId?: string; by?: string; customer: KnownCustomer; reason: string },
) {
  const by = input.by ?? `user:${input.userId}`;
  const { customer } = input;
  // An erased customer who wrote again into their conversation has a live key there again (a tombstone keyed
  // anew): that is new data to erase, and the read models' copies of it to purge, so the erasure is recorded again.
  const writtenSinceErasure = customer.erased && (await liveKeyOf(deps.personalKeys, customer));
  const result = await handleCommand(
    deps.eventStore,
    customerStream(customer.customerId),
    customerDecider,
    {
      type: 'EraseCustomer',
      companyId: input.companyId,
      // A customer is one (integration, client id), and so is a conversation: the customer's one conversation.
      conversationIds: customer.erased ? [] : [conversationIdFor(customer.integrationId, customer.clientId)],
      by,
      reason: input.reason,
      now: deps.clock.now().toISOString(),
      ...(writtenSinceErasure ? { writtenSinceErasure } : {}),
    },
    { metadata: { companyId: input.companyId, actor: by } },
  );
  const keysDeleted = await deps.personalKeys.eraseSubject(customer.customerId);
  return { position: result.position, erasedNow: result.events.length > 0, keysDeleted };
}

/** One lookup per scope the customer has (their own stream and the conversations their erasures named). */
async function liveKeyOf(keys: PersonalDataKeys, customer: KnownCustomer): Promise<boolean> {
  for (const scope of [customerStream(customer.customerId), ...customer.erasedConversationIds.map(conversationStream)]) {
    if (await keys.currentKey(scope)) return true;
  }
  return false;
}
