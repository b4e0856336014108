import type { RedactionEvent } from './events.js';

/** Off until a company turns it on (its model then sees its customers' words as they wrote them). */
export type RedactionState = { enabled: boolean; agents: Record<string, boolean> };

export const initialRedactionState: RedactionState = { enabled: false, agents: {} };

export function evolveRedaction(_state: RedactionState, event: RedactionEvent): RedactionState {
  return { enabled: event.data.enabled, agents: event.data.agents };
}

/** Whether an agent's prompts are redacted: its own override, else the company's choice. */
export const redactsFor = (state: RedactionState, agentId: string | null | undefined): boolean =>
  (agentId ? state.agents[agentId] : undefined) ?? state.enabled;
