/** One row of a bench's table: a figure and, when it has one, its target and whether it was met. */
export interface Row {
  metric: string;
  value: string;
  goal?: string;
  /** undefined: no target (information). */
  ok?: boolean;
}

/** JSON without losing ∞/NaN (JSON.stringify would turn them into null). */
const finite = (_key: string, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v);

/**
 * Prints the compact table, then one JSON line `{"bench", "pass", "checks", "figures"}` for scripts; a missed
 * target sets the exit code to 1.
 */
export function report(bench: string, rows: Row[], figures: Record<string, unknown>) {
  console.table(rows.map((r) => ({ metric: r.metric, value: r.value, goal: r.goal ?? '', met: r.ok === undefined ? '' : r.ok ? 'yes' : 'NO' })));
  jsonLine(bench, rows.filter((r) => r.ok !== undefined).map((r) => ({ metric: r.metric, value: r.value, goal: r.goal ?? '', ok: r.ok! })), figures);
}

/** The final line alone (for a bench that prints its own table): pass = every check met; else exit code 1. */
export function jsonLine(bench: string, checks: { metric: string; value: string; goal: string; ok: boolean }[], figures: Record<string, unknown>) {
  const pass = checks.every((c) => c.ok);
  console.log(JSON.stringify({ bench, pass, checks, figures }, finite));
  if (!pass) process.exitCode = 1;
}
