import type { Lifecycle } from '../lifecycle.js';
import type { AgentEvent, AgentSettings } from './events.js';

export type LiveAgent = { status: 'active'; agentId: string; companyId: string; createdAt: string; updatedAt: string } & AgentSettings;
export type AgentState = { status: 'none' } | (Omit<LiveAgent, 'status'> & { status: Exclude<Lifecycle, 'none'> });

export const initialAgentState: AgentState = { status: 'none' };

export function evolveAgent(state: AgentState, event: AgentEvent): AgentState {
  switch (event.type) {
    case 'AgentCreated': {
      const { at, ...rest } = event.data;
      return { status: 'active', ...rest, createdAt: at, updatedAt: at };
    }
    case 'AgentUpdated':
      return state.status === 'none' ? state : { ...state, ...event.data.changes, updatedAt: event.data.at };
    case 'AgentDeleted':
      return state.status === 'none' ? state : { ...state, status: 'deleted', updatedAt: event.data.at };
  }
}
