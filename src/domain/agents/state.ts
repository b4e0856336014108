import type { Lifecycle } from '../lifecycle.js';
import { AGENT_CONFIG_FIELDS, type AgentConfig, type AgentEvent, type AgentSettings } from './events.js';

/**
 * The settings at the top level are the published version's (what customers are answered with) with the
 * agent's name and switch. The draft is the version the next saved edit builds on; publishing a version
 * makes it the draft too, so editing after a rollback starts from what is live.
 */
export type AgentVersions = {
  latestVersion: number;
  publishedVersion: number;
  draftVersion: number;
  draft: AgentConfig;
  /**
   * Every version customers were answered with (published at some time), ascending: only these are rolled back
   * to without the release gate. One number per version published, a rare and deliberate act.
   */
  releasedVersions: number[];
};
/** The experiment that answers the agent's conversations instead of the published version while it runs. */
export type RunningExperiment = Omit<AgentExperimentStartedData, 'by' | 'at'> & { startedAt: string };
type AgentExperimentStartedData = Extract<AgentEvent, { type: 'AgentExperimentStarted' }>['data'];
export type LiveAgent = { status: 'active'; agentId: string; companyId: string; createdAt: string; updatedAt: string } & AgentSettings & AgentVersions & {
    experiment?: RunningExperiment;
    /** The experiment ended last, so ending it again records nothing. */
    lastExperimentId?: string;
  };
export type AgentState = { status: 'none' } | (Omit<LiveAgent, 'status'> & { status: Exclude<Lifecycle, 'none'> });

export const initialAgentState: AgentState = { status: 'none' };

/** The behaviour part of a set of settings (without name and switch). */
export function configOf(settings: Partial<AgentSettings>): Partial<AgentConfig> {
  return Object.fromEntries(AGENT_CONFIG_FIELDS.filter((f) => settings[f] !== undefined).map((f) => [f, settings[f]])) as Partial<AgentConfig>;
}

export function evolveAgent(state: AgentState, event: AgentEvent): AgentState {
  if (event.type === 'AgentCreated') {
    const { at, ...rest } = event.data;
    return { status: 'active', ...rest, createdAt: at, updatedAt: at, latestVersion: 1, publishedVersion: 1, draftVersion: 1, draft: configOf(rest) as AgentConfig, releasedVersions: [1] };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'AgentUpdated': {
      // Behaviour settings appear here only on events stored before versions: they amend version 1.
      const draft = { ...state.draft, ...configOf(event.data.changes) };
      return { ...state, ...event.data.changes, draft, updatedAt: event.data.at };
    }
    case 'AgentDeleted':
      return { ...state, status: 'deleted', updatedAt: event.data.at };
    case 'AgentVersionSaved':
      return { ...state, latestVersion: event.data.version, draftVersion: event.data.version, draft: event.data.config, updatedAt: event.data.at };
    case 'AgentVersionPublished': {
      const { version, config, at } = event.data;
      const releasedVersions = state.releasedVersions.includes(version) ? state.releasedVersions : [...state.releasedVersions, version].sort((a, b) => a - b);
      return { ...withoutConfig(state), ...config, publishedVersion: version, draftVersion: version, draft: config, releasedVersions, updatedAt: at };
    }
    case 'AgentExperimentStarted': {
      const { by: _by, at, ...experiment } = event.data;
      return { ...state, experiment: { ...experiment, startedAt: at }, updatedAt: at };
    }
    case 'AgentExperimentEnded': {
      const { experiment: _ended, ...rest } = state;
      return { ...rest, lastExperimentId: event.data.experimentId, updatedAt: event.data.at };
    }
  }
}

/** A published configuration replaces the previous one whole: a setting it lacks (an older agent's) is not kept. */
function withoutConfig<S extends object>(state: S): S {
  const copy = { ...state } as Record<string, unknown>;
  for (const field of AGENT_CONFIG_FIELDS) delete copy[field];
  return copy as S;
}
