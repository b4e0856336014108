import { actionsStream } from '../../domain/actions/events.js';
import { evolveActions, initialActionsState, type ActionsState } from '../../domain/actions/state.js';
import type { EventStore } from '../../ports/eventStore.js';
import { loadState } from '../handleCommand.js';

const actionsFold = { initialState: initialActionsState, evolve: evolveActions };

/**
 * A company's actions as its one stream folds them. loadState keeps the fold per stream and reads only the events
 * appended since, so a reply that offers actions costs no more as the company edits them over the years.
 */
export async function loadCompanyActions(eventStore: EventStore, companyId: string): Promise<ActionsState> {
  const { state } = await loadState(eventStore, actionsStream(companyId), actionsFold);
  // A stream is only ever the company's own; the check keeps a wrong id from reading another's.
  return state.companyId === null || state.companyId === companyId ? state : initialActionsState;
}
