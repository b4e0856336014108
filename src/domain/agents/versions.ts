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
 * Edits (removed and added lines) a diff searches before it gives up on a minimal one. Myers' algorithm costs
 * O((N+M)·D) time and O(D²) memory for D edits, so this bounds both: a maximal prompt (20,000 characters, up to
 * 10,001 lines) diffs in milliseconds whatever it holds. The longest-common-subsequence table this replaced
 * took N·M: 400 MB and most of a second for two maximal prompts.
 */
export const DIFF_MAX_EDITS = 1_000;

/**
 * A line diff: the lines both prompts share at their start and end, and between them a minimal diff (Myers) of
 * at most DIFF_MAX_EDITS edits; past that, what lies between is shown removed and added whole (a true diff, not
 * a minimal one). Removals are listed before the additions that replace them.
 */
export function diffLines(a: string, b: string): LineDiff[] {
  const x = a.split('\n');
  const y = b.split('\n');
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start++;
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && x[endX - 1] === y[endY - 1]) {
    endX--;
    endY--;
  }
  const middle = myersDiff(x.slice(start, endX), y.slice(start, endY)) ?? [...x.slice(start, endX).map(removed), ...y.slice(start, endY).map(added)];
  return [...x.slice(0, start).map(equal), ...removalsFirst(middle), ...x.slice(endX).map(equal)];
}

const equal = (line: string): LineDiff => ({ op: 'equal', line });
const removed = (line: string): LineDiff => ({ op: 'removed', line });
const added = (line: string): LineDiff => ({ op: 'added', line });

/** Myers' shortest edit script, or null when it needs more than DIFF_MAX_EDITS edits. */
function myersDiff(x: string[], y: string[]): LineDiff[] | null {
  const ids = new Map<string, number>();
  const intern = (line: string) => ids.get(line) ?? (ids.set(line, ids.size), ids.size - 1);
  const xs = Int32Array.from(x, intern);
  const ys = Int32Array.from(y, intern);
  const n = xs.length;
  const m = ys.length;
  const offset = DIFF_MAX_EDITS + 1;
  const v = new Int32Array(2 * offset + 1);
  // trace[d] holds v for diagonals -d-1..d+1 as it was when step d began: what backtracking step d reads.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= Math.min(DIFF_MAX_EDITS, n + m); d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let i = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let j = i - k;
      while (i < n && j < m && xs[i] === ys[j]) {
        i++;
        j++;
      }
      v[offset + k] = i;
      if (i >= n && j >= m) return backtrack(x, y, trace, d);
    }
  }
  return null;
}

function backtrack(x: string[], y: string[], trace: Int32Array[], edits: number): LineDiff[] {
  const out: LineDiff[] = [];
  let i = x.length;
  let j = y.length;
  for (let d = edits; d > 0; d--) {
    const at = (k: number) => trace[d]![k + d + 1]!;
    const k = i - j;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevI = at(prevK);
    const prevJ = prevI - prevK;
    while (i > prevI + (down ? 0 : 1) && j > prevJ + (down ? 1 : 0)) {
      out.push(equal(x[--i]!));
      j--;
    }
    if (down) out.push(added(y[--j]!));
    else out.push(removed(x[--i]!));
  }
  while (i > 0 && j > 0) {
    out.push(equal(x[--i]!));
    j--;
  }
  return out.reverse();
}

/** Within each run of changed lines, the removed ones first: a replaced line reads as "was", then "is". */
function removalsFirst(diff: LineDiff[]): LineDiff[] {
  const out: LineDiff[] = [];
  let run: LineDiff[] = [];
  const flush = () => {
    out.push(...run.filter((d) => d.op === 'removed'), ...run.filter((d) => d.op === 'added'));
    run = [];
  };
  for (const d of diff) {
    if (d.op === 'equal') {
      flush();
      out.push(d);
    } else run.push(d);
  }
  flush();
  return out;
}
