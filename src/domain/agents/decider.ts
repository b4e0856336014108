import type { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import { AGENT_CONFIG_FIELDS, AGENT_LIMITS, agentConfig, agentSettings as settings, type AgentConfig, type AgentEvent, type AgentSettings } from './events.js';
import { decideReleaseGate, type ReleaseGateInput } from './releaseGate.js';
import { configOf, evolveAgent, initialAgentState, type AgentState } from './state.js';

export type AgentCommand =
  | ({ type: 'CreateAgent'; agentId: string; companyId: string; now: string } & AgentSettings)
  /** Name and switch change in place; a behaviour change is a new version, published at once (the edit goes live). */
  | { type: 'UpdateAgent'; companyId: string; changes: Partial<AgentSettings>; by?: string | null; now: string }
  /** A new version from the draft and the changes, not published: customers keep the published one. */
  | { type: 'SaveAgentDraft'; companyId: string; changes: Partial<AgentConfig>; by: string | null; now: string }
  /**
   * `config` is the version's configuration as recorded in the agent's history (agentVersionConfigs). A
   * version older than the published one is a rollback, and says why.
   */
  | {
      type: 'PublishAgentVersion';
      companyId: string;
      version: number;
      config: AgentConfig;
      reason: string | null;
      /** Asked for as a rollback: the version must be older than the published one. */
      rollback?: boolean;
      /** The release gate's facts (releaseGate.ts): a newer version is published only through it when given. */
      gate?: ReleaseGateInput;
      by: string | null;
      now: string;
    }
  | { type: 'DeleteAgent'; companyId: string; now: string };

type Live = Exclude<AgentState, { status: 'none' }>;
type Saved = Extract<AgentEvent, { type: 'AgentVersionSaved' }>;

const notFound = () => new DomainError('NOT_FOUND', 'Agent not found');

function checkSettings<T>(schema: z.ZodType<T>, value: unknown): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DomainError('VALIDATION_ERROR', `${issue?.path.map(String).join('.') || 'agent'}: ${issue?.message ?? 'invalid'}`);
  }
}

/** The given settings that differ from `current` (undefined means "not given"). */
function changedOf<T extends object>(changes: Partial<T>, current: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([k, v]) => v !== undefined && v !== current[k as keyof T])) as Partial<T>;
}

function saveVersion(state: Live, base: AgentConfig, basedOn: number, changes: Partial<AgentConfig>, by: string | null, now: string): Saved {
  const config = { ...base, ...changes };
  checkSettings(agentConfig, config);
  return { type: 'AgentVersionSaved', data: { version: state.latestVersion + 1, basedOn, config, changed: Object.keys(changes), by, at: now } };
}

function published(state: Live): AgentConfig {
  return configOf(state) as AgentConfig;
}

function decideUpdate(command: Extract<AgentCommand, { type: 'UpdateAgent' }>, state: Live): AgentEvent[] {
  const changes = changedOf(command.changes, state);
  checkSettings(settings.partial(), changes);
  const identity = Object.fromEntries(Object.entries(changes).filter(([k]) => !(AGENT_CONFIG_FIELDS as string[]).includes(k)));
  const behaviour = configOf(changes);
  const by = command.by ?? null;
  const events: AgentEvent[] = [];
  if (Object.keys(identity).length > 0) events.push({ type: 'AgentUpdated', data: { changes: identity, at: command.now } });
  if (Object.keys(behaviour).length > 0) {
    const saved = saveVersion(state, published(state), state.publishedVersion, behaviour, by, command.now);
    const { version, config } = saved.data;
    events.push(saved, {
      type: 'AgentVersionPublished',
      data: { version, previousVersion: state.publishedVersion, config, rollback: false, reason: null, by, at: command.now },
    });
  }
  return events;
}

function decidePublish(command: Extract<AgentCommand, { type: 'PublishAgentVersion' }>, state: Live): AgentEvent[] {
  const { version, config, by, now } = command;
  if (!Number.isInteger(version) || version < 1 || version > state.latestVersion) throw new DomainError('NOT_FOUND', 'Version not found');
  const rollback = version < state.publishedVersion;
  if (command.rollback && !rollback) throw new DomainError('CONFLICT', `Version ${version} is not older than the published version ${state.publishedVersion}`);
  if (version === state.publishedVersion) return [];
  const reason = command.reason?.trim() || null;
  if (rollback && !reason) throw new DomainError('VALIDATION_ERROR', 'reason: a rollback says why');
  if (reason && reason.length > AGENT_LIMITS.reason) throw new DomainError('VALIDATION_ERROR', `reason: at most ${AGENT_LIMITS.reason} characters`);
  checkSettings(agentConfig, config);
  const checks = !rollback && command.gate ? decideReleaseGate(version, command.gate) : null;
  return [{ type: 'AgentVersionPublished', data: { version, previousVersion: state.publishedVersion, config, rollback, reason, ...(checks ? { checks } : {}), by, at: now } }];
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
      case 'UpdateAgent':
        return decideUpdate(command, state);
      case 'SaveAgentDraft': {
        const changes = changedOf(configOf(command.changes), state.draft);
        checkSettings(agentConfig.partial(), changes);
        return Object.keys(changes).length === 0 ? [] : [saveVersion(state, state.draft, state.draftVersion, changes, command.by, command.now)];
      }
      case 'PublishAgentVersion':
        return decidePublish(command, state);
      case 'DeleteAgent':
        return [{ type: 'AgentDeleted', data: { at: command.now } }];
    }
  },
};

export const agentStream = (agentId: string) => `agent-${agentId}`;
export const agentIdOfStream = (stream: string) => stream.slice('agent-'.length);
