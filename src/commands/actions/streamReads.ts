import { actionsDecider, actionsStream } from '../../domain/actions/decider.js';
import type { ActionsState, StoredAction } from '../../domain/actions/state.js';
import { DomainError } from '../../domain/errors.js';
import type { EventStore } from '../../ports/eventStore.js';
import { loadState } from '../handleCommand.js';

/**
 * The company's actions as its stream (`actions-<companyId>`) holds them now, header values sealed. The fold is
 * cached per process (loadState): a call reads only the events after the revision it already folded, usually
 * none, so the reply worker may call it on every answer at a constant cost, and an edit applies to the next one.
 */
export async function loadCompanyActions(eventStore: EventStore, companyId: string): Promise<ActionsState> {
  return (await loadState(eventStore, actionsStream(companyId), actionsDecider)).state;
}

/** One action of the company's, or null (the stream is the company's own: no other company's action is reachable). */
export async function loadCompanyAction(eventStore: EventStore, companyId: string, actionId: string): Promise<StoredAction | null> {
  return (await loadCompanyActions(eventStore, companyId)).actions.get(actionId) ?? null;
}

/** The ids among `actionIds` that are not actions of the company (an agent may list only its company's actions). */
export async function unknownActionIds(eventStore: EventStore, companyId: string, actionIds: readonly string[]): Promise<string[]> {
  if (actionIds.length === 0) return [];
  const { actions } = await loadCompanyActions(eventStore, companyId);
  return actionIds.filter((id) => !actions.has(id));
}

/** An agent lists only its own company's actions: another company's id, or one deleted, is refused like a typo. */
export async function expectCompanyActions(eventStore: EventStore, companyId: string, actionIds: readonly string[] | undefined): Promise<void> {
  const unknown = await unknownActionIds(eventStore, companyId, actionIds ?? []);
  if (unknown.length > 0) throw new DomainError('VALIDATION_ERROR', `actionIds: ${unknown.join(', ')} is not one of the company's actions`);
}
