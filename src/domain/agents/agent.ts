import { z } from 'zod';
import type { Decider } from '../decider.js';
import type { Lifecycle } from '../lifecycle.js';
import { DomainError } from '../errors.js';

export const DEFAULT_AGENT_SYSTEM_PROMPT =
  'You are a helpful customer support agent. Answer politely and concisely, using the knowledge base when it is relevant. ' +
  'If you are not sure of the answer, say so rather than guessing.';
export const DEFAULT_AGENT_TEMPERATURE = 0.3;
export const DEFAULT_AGENT_HANDOFF_MESSAGE = 'Thanks for your message — a member of our team will get back to you shortly.';

export const AGENT_LIMITS = { name: 200, systemPrompt: 20_000, model: 200, handoffMessage: 2_000 } as const;

const settings = z.object({
  name: z.string().min(1).max(AGENT_LIMITS.name),
  systemPrompt: z.string().min(1).max(AGENT_LIMITS.systemPrompt),
  /** null: the model of the company's LLM configuration. */
  model: z.string().min(1).max(AGENT_LIMITS.model).nullable(),
  temperature: z.number().min(0).max(2),
  useKnowledgeBase: z.boolean(),
  active: z.boolean(),
  handoffMessage: z.string().min(1).max(AGENT_LIMITS.handoffMessage),
});
export type AgentSettings = z.infer<typeof settings>;

/** What a new agent gets for every setting the client leaves out. */
export const agentDefaults: Omit<AgentSettings, 'name'> = {
  systemPrompt: DEFAULT_AGENT_SYSTEM_PROMPT,
  model: null,
  temperature: DEFAULT_AGENT_TEMPERATURE,
  useKnowledgeBase: true,
  active: true,
  handoffMessage: DEFAULT_AGENT_HANDOFF_MESSAGE,
};

export const agentEvents = {
  AgentCreated: settings.extend({ agentId: z.uuid(), companyId: z.uuid(), at: z.iso.datetime() }),
  AgentUpdated: z.object({ changes: settings.partial(), at: z.iso.datetime() }),
  AgentDeleted: z.object({ at: z.iso.datetime() }),
};
type Events = typeof agentEvents;
export type AgentEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

export type LiveAgent = { status: 'active'; agentId: string; companyId: string; createdAt: string; updatedAt: string } & AgentSettings;
export type AgentState = { status: 'none' } | (Omit<LiveAgent, 'status'> & { status: Exclude<Lifecycle, 'none'> });

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
  initialState: { status: 'none' },
  evolve(state, event) {
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
  },
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
