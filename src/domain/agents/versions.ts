import { AGENT_CONFIG_FIELDS, type AgentConfig, type AgentEvent } from './events.js';
import { configOf } from './state.js';

/**
 * Every version's configuration, from the agent's whole history: version 1 is what AgentCreated set, amended
 * by the behaviour changes of AgentUpdated events stored before versions existed (so an agent from before has
 * one version, its current configuration, with no migration). Read when a version is published, never per
 * message: the agent's state carries only the published and draft configurations.
 */
export function agentVersionConfigs(events: readonly AgentEvent[]): Map<number, AgentConfig> {
  const versions = new Map<number, AgentConfig>();
  for (const event of events) {
    if (event.type === 'AgentCreated') versions.set(1, configOf(event.data) as AgentConfig);
    else if (event.type === 'AgentUpdated' && versions.size === 1) {
      const amended = configOf(event.data.changes);
      if (Object.keys(amended).length > 0) versions.set(1, { ...versions.get(1)!, ...amended });
    } else if (event.type === 'AgentVersionSaved') versions.set(event.data.version, event.data.config);
  }
  return versions;
}

export type FieldDiff = { field: keyof AgentConfig; from: unknown; to: unknown; changed: boolean };
export type LineDiff = { op: 'equal' | 'added' | 'removed'; line: string };

/** Two versions compared field by field (every versioned field, changed or not), and the prompts line by line. */
export function diffConfigs(from: AgentConfig, to: AgentConfig): { fields: FieldDiff[]; systemPrompt: LineDiff[] } {
  const fields = AGENT_CONFIG_FIELDS.map((field) => {
    const a = from[field] ?? null;
    const b = to[field] ?? null;
    return { field, from: a, to: b, changed: a !== b };
  });
  return { fields, systemPrompt: diffLines(from.systemPrompt, to.systemPrompt) };
}

/**
 * A line diff by longest common subsequence. Prompts are bounded (AGENT_LIMITS.systemPrompt characters), so
 * the quadratic table stays small; removals are listed before the additions that replace them.
 */
export function diffLines(a: string, b: string): LineDiff[] {
  const x = a.split('\n');
  const y = b.split('\n');
  const n = x.length;
  const m = y.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const out: LineDiff[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      out.push({ op: 'equal', line: x[i]! });
      i++;
      j++;
    } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) out.push({ op: 'removed', line: x[i++]! });
    else out.push({ op: 'added', line: y[j++]! });
  }
  return out;
}
