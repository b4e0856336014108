import type { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import { AGENT_CONFIG_FIELDS, AGENT_LIMITS, agentConfig, agentSettings as settings, type AgentConfig, type AgentEvent, type AgentSettings } from './events.js';
import { agentEvents } from './events.js';
import { decideReleaseGate, type ReleaseGateInput } from './releaseGate.js';
import { configOf, evolveAgent, initialAgentState, type AgentState } from './state.js';

export type AgentCommand =
  | ({ type: 'CreateAgent'; agentId: string; companyId: string; now: string } & AgentSettings)
  /**
   * Name and switch change in place; a behaviour change is a new version, published at once (the edit goes live),
   * unless `releaseGated` (the agent has a required test case): then it goes through a draft and the gate.
   */
  | { type: 'UpdateAgent'; companyId: string; changes: Partial<AgentSettings>; releaseGated?: boolean; by?: string | null; now: string }
  /** A new version from the draft and the changes, not published: customers keep the published one. */
  | { type: 'SaveAgentDraft'; companyId: string; changes: Partial<AgentConfig>; by: string | null; now: string }
  /**
   * `config` is the version's configuration as recorded in the agent's history (agentVersionConfigs). A
   * version older than the published one that was published before is a rollback, and says why; any other
   * version is a release, through the gate when one is given.
   */
  | {
      type: 'PublishAgentVersion';
      companyId: string;
      version: number;
      config: AgentConfig;
      reason: string | null;
      /** Asked for as a rollback: the version must be older than the published one, and published before. */
      rollback?: boolean;
      /** The release gate's facts (releaseGate.ts): a newer version is published only through it when given. */
      gate?: ReleaseGateInput;
      by: string | null;
      now: string;
    }
  /**
   * `arms[i].config`: each version's configuration from the agent's history, as for a publish. An arm newer
   * than the published version, or older but never published, passes the release gate (`gate`, as a publish),
   * so ending never publishes it unchecked.
   */
  | {
      type: 'StartAgentExperiment';
      companyId: string;
      experimentId: string;
      arms: [ExperimentArmInput, ExperimentArmInput];
      gate?: ReleaseGateInput;
      holdout: number;
      confidenceLevel: number;
      by: string | null;
      now: string;
    }
  /** Ends the running experiment and publishes `winner` (one of its two versions, whose configuration its arm carries). */
  | { type: 'EndAgentExperiment'; companyId: string; experimentId: string; winner: number; reason: string; by: string | null; now: string }
  | { type: 'DeleteAgent'; companyId: string; now: string };

export type ExperimentArmInput = { version: number; share: number; config: AgentConfig };

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
  return Object.fromEntries(Object.entries(changes).filter(([k, v]) => v !== undefined && !sameSetting(v, current[k as keyof T]))) as Partial<T>;
}

/** A list setting (actionIds) is the same when it lists the same items in the same order; never set is an empty list. */
function sameSetting(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a)) return a === b;
  const other: unknown[] = Array.isArray(b) ? b : b === undefined ? [] : [b];
  return a.length === other.length && a.every((x, i) => x === other[i]);
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
    refuseDuringExperiment(state);
    if (command.releaseGated) {
      throw new DomainError(
        'RELEASE_CHECKS_REQUIRED',
        'This agent has required test cases: save a draft (POST /api/agents/:id/versions) and publish it through the release gate; only the name and the switch change here',
      );
    }
    const saved = saveVersion(state, published(state), state.publishedVersion, behaviour, by, command.now);
    const { version, config } = saved.data;
    events.push(saved, {
      type: 'AgentVersionPublished',
      data: { version, previousVersion: state.publishedVersion, config, rollback: false, reason: null, by, at: command.now },
    });
  }
  return events;
}

/** While an experiment runs its arms answer, so what goes live changes only by ending it (with a winner). */
function refuseDuringExperiment(state: Live): void {
  if (state.experiment) throw new DomainError('CONFLICT', 'An experiment is running on this agent: end it with a winner to publish');
}

function decideStartExperiment(command: Extract<AgentCommand, { type: 'StartAgentExperiment' }>, state: Live): AgentEvent[] {
  if (state.experiment) throw new DomainError('CONFLICT', 'An experiment is already running on this agent');
  const [a, b] = command.arms;
  for (const arm of command.arms) {
    if (!Number.isInteger(arm.version) || arm.version < 1 || arm.version > state.latestVersion) throw new DomainError('NOT_FOUND', 'Version not found');
  }
  if (a.version === b.version) throw new DomainError('VALIDATION_ERROR', 'versions: an experiment compares two different versions');
  if (a.share + b.share !== 100) throw new DomainError('VALIDATION_ERROR', 'split: the two shares add up to 100');
  // An arm passes the gate as its publish would: a newer version, or an older one customers were never answered with.
  const gated = (version: number) => version > state.publishedVersion || !state.releasedVersions.includes(version);
  const checksOf = (arm: ExperimentArmInput) => {
    const checks = gated(arm.version) && command.gate ? decideReleaseGate(arm.version, command.gate) : null;
    return checks ? { checks } : {};
  };
  const data = {
    experimentId: command.experimentId,
    arms: [
      { arm: 'a' as const, version: a.version, share: a.share, config: a.config, ...checksOf(a) },
      { arm: 'b' as const, version: b.version, share: b.share, config: b.config, ...checksOf(b) },
    ] as [{ arm: 'a'; version: number; share: number; config: AgentConfig }, { arm: 'b'; version: number; share: number; config: AgentConfig }],
    holdout: command.holdout,
    confidenceLevel: command.confidenceLevel as 0.95,
    by: command.by,
    at: command.now,
  };
  checkSettings(agentEvents.AgentExperimentStarted, data);
  return [{ type: 'AgentExperimentStarted', data }];
}

function decideEndExperiment(command: Extract<AgentCommand, { type: 'EndAgentExperiment' }>, state: Live): AgentEvent[] {
  const running = state.experiment;
  if (!running || running.experimentId !== command.experimentId) {
    if (state.lastExperimentId === command.experimentId) return [];
    throw new DomainError('NOT_FOUND', 'Experiment not found');
  }
  const winner = running.arms.find((arm) => arm.version === command.winner);
  if (!winner) throw new DomainError('VALIDATION_ERROR', 'winner: one of the experiment’s two versions');
  const reason = command.reason.trim();
  if (!reason || reason.length > AGENT_LIMITS.reason) throw new DomainError('VALIDATION_ERROR', `reason: 1 to ${AGENT_LIMITS.reason} characters`);
  const { by, now } = command;
  const events: AgentEvent[] = [{ type: 'AgentExperimentEnded', data: { experimentId: running.experimentId, winner: winner.version, winnerArm: winner.arm, reason, by, at: now } }];
  // Published like any publish: who, when and why; an older winner is no rollback, the experiment chose it.
  if (winner.version !== state.publishedVersion) {
    const checks = winner.checks ? { checks: winner.checks } : {};
    events.push({ type: 'AgentVersionPublished', data: { version: winner.version, previousVersion: state.publishedVersion, config: winner.config, rollback: false, reason, ...checks, by, at: now } });
  }
  return events;
}

function decidePublish(command: Extract<AgentCommand, { type: 'PublishAgentVersion' }>, state: Live): AgentEvent[] {
  refuseDuringExperiment(state);
  const { version, config, by, now } = command;
  if (!Number.isInteger(version) || version < 1 || version > state.latestVersion) throw new DomainError('NOT_FOUND', 'Version not found');
  // A rollback goes back to a version customers were answered with; an older version that never went live (its
  // check failed, or none was run) is a release like a newer one, through the gate.
  const rollback = version < state.publishedVersion && state.releasedVersions.includes(version);
  if (command.rollback && !rollback) {
    if (version < state.publishedVersion) {
      throw new DomainError('CONFLICT', `Version ${version} was never published, so there is nothing to roll back to: publish it through the release gate (POST /api/agents/:id/versions/${version}/publish)`);
    }
    throw new DomainError('CONFLICT', `Version ${version} is not older than the published version ${state.publishedVersion}`);
  }
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
      case 'StartAgentExperiment':
        return decideStartExperiment(command, state);
      case 'EndAgentExperiment':
        return decideEndExperiment(command, state);
      case 'DeleteAgent':
        return [{ type: 'AgentDeleted', data: { at: command.now } }];
    }
  },
};

export const agentStream = (agentId: string) => `agent-${agentId}`;
export const agentIdOfStream = (stream: string) => stream.slice('agent-'.length);
