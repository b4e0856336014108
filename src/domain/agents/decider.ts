import type { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import { agentSettings as settings, type AgentEvent, type AgentSettings } from './events.js';
import { evolveAgent, initialAgentState, type AgentState } from './state.js';

export type AgentCommand =
  | ({ type: 'CreateAgent'; agentId: string; companyId: string; now: string } & AgentSettings)
  | { type: 'UpdateAgent'; companyId: string; changes: Partial<AgentSettings>; now: string }
  | { type: 'DeleteAgent'; companyId: string; now: string };

const notFound = () => new DomainError('NOT_FOUND', 'Agent not found');

function checkSettings<T>(schema: z.ZodType<T>, value: unknown): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DomainError('VALIDATION_ERROR', `${issue?.path.map(String).join('.') || 'agent'}: ${issue?.message ?? 'invalid'}`);
  }
}

export const agentDecider: Decider<AgentCommand, AgentEvent, AgentState> = {
  initialState: initialAgentState,
  evolve: evolveAgent,
  decide(command, state) {
    if (command.type === 'CreateAgent') {
      if (state.status !== 'none') throw new DomainError('CONFLICT', 'Agent already exists');
      const { type: _t, now, ...data } = command;
      checkSettings(settings, data);
      return [{ type: 'AgentCreated', data: { ...data, at: now } }];
    }
    // Another company's agent is indistinguishable from a missing one.
    if (state.status !== 'active' || state.companyId !== command.companyId) throw notFound();
    switch (command.type) {
      case 'UpdateAgent': {
        const changes = Object.fromEntries(
          Object.entries(command.changes).filter(([k, v]) => v !== undefined && v !== state[k as keyof AgentSettings]),
        ) as Partial<AgentSettings>;
        checkSettings(settings.partial(), changes);
        return Object.keys(changes).length === 0 ? [] : [{ type: 'AgentUpdated', data: { changes, at: command.now } }];
      }
      case 'DeleteAgent':
        return [{ type: 'AgentDeleted', data: { at: command.now } }];
    }
  },
};

export const agentStream = (agentId: string) => `agent-${agentId}`;
