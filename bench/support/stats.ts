import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

/** Nearest-rank percentile of an ascending array (same rule as bench/store.ts). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const sortedCopy = (xs: number[]) => [...xs].sort((a, b) => a - b);
/** Middle value; the mean of the two middle values for an even count. */
export function median(xs: number[]): number {
  const s = sortedCopy(xs);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
}
export function summarize(xs: number[]): Summary {
  const s = sortedCopy(xs);
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: s.at(-1) ?? Number.NaN };
}

/** Infinity prints as ∞ (used for "never happened within the wait"). */
export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : n === Infinity ? '∞' : String(n);

export const loadAverage = () => loadavg().map((l) => l.toFixed(2)).join(' ');
export const machine = () => `load average ${loadAverage()} on ${cpus().length} cores, node ${process.version}`;

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds per thread of a process (keyed "<tid> <name>"), from /proc (Linux): which thread a change saved. */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(`${tid} ${name}`, (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

/** What each thread used between two `threadCpuSeconds` readings, in seconds, busiest first. */
export function threadCpuSpent(before: Map<string, number>, after: Map<string, number>): [string, number][] {
  return [...after].map(([thread, s]) => [thread, s - (before.get(thread) ?? 0)] as [string, number]).sort((a, b) => b[1] - a[1]);
}

/** CPU use of some processes over an interval, as a percentage of one core. */
export function cpuMeter(pids: Record<string, number>) {
  const start = performance.now();
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuSeconds(pid)]));
  return () => {
    const seconds = (performance.now() - start) / 1000;
    return Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => [name, (100 * (processCpuSeconds(pid) - before[name]!)) / seconds]),
    ) as Record<string, number>;
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Waits until a process uses less than `maxPercent` of a core over `windowMs` (its background work, e.g.
 * the reply pipeline catching up, is done), at most `timeoutMs`. Returns how long it took, in ms.
 */
export async function waitUntilIdle(pid: number, { maxPercent = 10, windowMs = 1000, timeoutMs = 60_000 } = {}): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    const meter = cpuMeter({ p: pid });
    await sleep(windowMs);
    const used = meter().p!;
    if (!(used >= maxPercent)) return performance.now() - t0; // NaN (no /proc) counts as idle
  }
  return performance.now() - t0;
}

/** Resident set size of a process in bytes (VmRSS in /proc/<pid>/status, Linux); NaN elsewhere. */
export function rssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

export const mib = (bytes: number) => `${fmt(bytes / 1024 / 1024, 1)} MiB`;

/** How many of these HTTP statuses are 5xx. */
export const count5xx = (statusCounts: Record<string, number>) =>
  Object.entries(statusCounts).reduce((n, [code, c]) => (Number(code) >= 500 ? n + c : n), 0);
