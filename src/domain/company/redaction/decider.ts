import type { Decider } from '../../decider.js';
import { DomainError } from '../../errors.js';
import { MAX_REDACTION_AGENT_OVERRIDES, type RedactionEvent } from './events.js';
import { evolveRedaction, initialRedactionState, type RedactionState } from './state.js';

export type RedactionCommand = { type: 'ConfigureRedaction'; enabled: boolean; agents: Record<string, boolean>; by: string; now: string };

const PREFIX = 'redaction-';
export const redactionStream = (companyId: string) => `${PREFIX}${companyId}`;
export const companyIdOfRedactionStream = (stream: string) => stream.slice(PREFIX.length);

const sameAgents = (a: Record<string, boolean>, b: Record<string, boolean>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([id, on]) => b[id] === on);

export const redactionDecider: Decider<RedactionCommand, RedactionEvent, RedactionState> = {
  initialState: initialRedactionState,
  evolve: evolveRedaction,
  decide(command, state) {
    if (Object.keys(command.agents).length > MAX_REDACTION_AGENT_OVERRIDES) {
      throw new DomainError('VALIDATION_ERROR', `at most ${MAX_REDACTION_AGENT_OVERRIDES} agents may have their own setting`);
    }
    if (command.enabled === state.enabled && sameAgents(command.agents, state.agents)) return [];
    return [{ type: 'RedactionConfigured', data: { enabled: command.enabled, agents: { ...command.agents }, by: command.by, at: command.now } }];
  },
};
