import { spawn } from 'node:child_process';
import { embeddedEnv } from './embeddedEnv.js';

/** What `npm start` runs: the compiled server (npm run build -> dist/server), with plain node. */
export const COMPILED_MAIN = 'dist/server/main.js';

export type CompiledServer = ReturnType<typeof startCompiled>;

/** Spawns the compiled server with the embedded engines; its output is kept for failure messages. */
export function startCompiled(env: Record<string, string>) {
  const spawnedAt = performance.now();
  // NODE_OPTIONS could smuggle a loader in (vitest's own is not wanted either).
  const child = spawn(process.execPath, [COMPILED_MAIN], { env: embeddedEnv({ NODE_OPTIONS: undefined, ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += String(d)));
  child.stderr.on('data', (d) => (output += String(d)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, spawnedAt, exited, output: () => output };
}

/** Milliseconds from spawn until /healthz answers 200. */
export async function healthyAfter(proc: CompiledServer, base: string, limitMs: number): Promise<number> {
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`the compiled server exited with ${proc.child.exitCode}:\n${proc.output()}`);
    const status = await fetch(`${base}/healthz`).then((r) => r.status, () => 0);
    if (status === 200) return performance.now() - proc.spawnedAt;
    if (performance.now() - proc.spawnedAt > limitMs) throw new Error(`no /healthz within ${limitMs} ms:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The server's JSON log lines (pino), skipping anything else it printed. */
export const logLines = (output: string) =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string; [k: string]: unknown });
