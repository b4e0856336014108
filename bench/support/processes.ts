import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from './stats.js';

/** A port that was free a moment ago on 127.0.0.1 (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface Child {
  name: string;
  pid: number;
  url: string;
  /** Output lines kept for the report (pino JSON for the service). */
  lines: string[];
  /** SIGTERM, then waits for the exit; returns the exit code. */
  stop(): Promise<number | null>;
}

const repoRoot = new URL('../../', import.meta.url).pathname;

/**
 * Starts `node --import tsx <script>` in its own process (so the load generator in this process does not
 * share its event loop), on a free loopback port, and waits until `readyPath` answers 200.
 */
export async function startChild(options: {
  name: string;
  script: string;
  env: Record<string, string>;
  readyPath: string;
  timeoutMs?: number;
}): Promise<Child> {
  const port = await freePort();
  // BENCH_NODE_ARGS: extra node flags for the servers, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...extra, '--import', 'tsx', options.script], {
    cwd: repoRoot,
    env: { ...process.env, ...options.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '' && lines.length < 10_000) lines.push(line);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (exitCode !== undefined) throw new Error(`${options.name} exited with ${exitCode} before it was ready:\n${lines.slice(-20).join('\n')}`);
    try {
      const res = await fetch(url + options.readyPath);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.name} not ready after ${options.timeoutMs ?? 60_000} ms:\n${lines.slice(-20).join('\n')}`);
    }
    await sleep(100);
  }
  return {
    name: options.name,
    pid: child.pid!,
    url,
    lines,
    async stop() {
      if (exitCode !== undefined) return exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Deletes a service's DATA_DIR; BENCH_KEEP_DATA=1 keeps it (and prints where) for a look at what the run wrote. */
export function removeDataDir(dataDir: string): void {
  if (process.env.BENCH_KEEP_DATA) console.log(`kept the service's DATA_DIR: ${dataDir}`);
  else rmSync(dataDir, { recursive: true, force: true });
}

export const tempDir = (tag: string) => mkdtempSync(join(tmpdir(), `bench-${tag}-`));

/** Pino lines at warn (40) or above, for the report. */
export function warnings(lines: string[]): string[] {
  return lines.filter((line) => {
    try {
      return (JSON.parse(line) as { level?: number }).level! >= 40;
    } catch {
      return true; // not JSON: stderr text, worth showing
    }
  });
}

export interface Service extends Child {
  dataDir: string;
  /** Stops the service (if still running) and deletes its DATA_DIR (unless BENCH_KEEP_DATA is set). */
  dispose(): Promise<void>;
}

/**
 * The service (`src/main.ts`) in its own process on embedded defaults: a fresh DATA_DIR (SQLite event store and
 * read models), in-process bus, LOG_LEVEL=warn, NODE_ENV=development; `env` adds or overrides variables.
 */
export async function startService(tag: string, env: Record<string, string> = {}): Promise<Service> {
  const dataDir = tempDir(tag);
  const child = await startChild({
    name: 'service',
    script: 'src/main.ts',
    env: { DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'development', ...env },
    readyPath: '/readyz',
  });
  return Object.assign(child, {
    dataDir,
    async dispose() {
      await child.stop();
      removeDataDir(dataDir);
    },
  });
}

/** Warnings and errors of a pino log, counted by message (and error type): one short line for a report. */
export function warningSummary(lines: string[]): string {
  const counts = new Map<string, number>();
  for (const line of warnings(lines)) {
    let key = line.slice(0, 120);
    try {
      const entry = JSON.parse(line) as { msg?: string; err?: { type?: string; message?: string } };
      key = entry.err ? `${entry.msg} (${entry.err.type}: ${String(entry.err.message).slice(0, 100)})` : String(entry.msg);
    } catch {
      // stderr text: its first characters
    }
    key = key.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>').replace(/\d+/g, 'N');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (counts.size === 0) return 'service logged no warning';
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  return `service logged ${total} warning(s)/error(s): ${[...counts.entries()]
    .sort((x, y) => y[1] - x[1])
    .slice(0, 5)
    .map(([k, n]) => `${n}× ${k}`)
    .join('; ')}`;
}
