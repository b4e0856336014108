import type { ActionDefinition } from './definition.js';
import type { ActionEvent } from './events.js';

export interface StoredAction extends ActionDefinition {
  createdAt: string;
  updatedAt: string;
}

/** A company's actions, as its one stream (`actions-<companyId>`) holds them; header values stay sealed. */
export interface ActionsState {
  companyId: string | null;
  actions: Map<string, StoredAction>;
}

export const initialActionsState: ActionsState = { companyId: null, actions: new Map() };

export function evolveActions(state: ActionsState, event: ActionEvent): ActionsState {
  const actions = new Map(state.actions);
  switch (event.type) {
    case 'ActionCreated': {
      const { companyId, by: _by, at, ...definition } = event.data;
      actions.set(definition.actionId, { ...definition, createdAt: at, updatedAt: at });
      return { companyId, actions };
    }
    case 'ActionUpdated': {
      const known = actions.get(event.data.actionId);
      if (known) actions.set(known.actionId, { ...known, ...event.data.changes, updatedAt: event.data.at });
      return { ...state, actions };
    }
    case 'ActionDeleted':
      actions.delete(event.data.actionId);
      return { ...state, actions };
  }
}

/** The actions an agent may call, in its order, leaving out deleted and inactive ones. */
export function actionsOfAgent(state: ActionsState, actionIds: readonly string[] | undefined): StoredAction[] {
  return (actionIds ?? []).flatMap((id) => {
    const action = state.actions.get(id);
    return action?.active ? [action] : [];
  });
}
