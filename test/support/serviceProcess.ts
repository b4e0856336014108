import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { embeddedEnv } from './embeddedEnv.js';

/** The service as `npm start` runs it (src/main.ts in a child process), for crash and restart tests. */
export interface ServiceProcess {
  base: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** Starts src/main.ts on `port` and resolves once /healthz answers 200. */
export async function startServiceProcess(env: Record<string, string>, port: number): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: embeddedEnv({ NODE_ENV: 'test', PROCESSOR_THREAD: 'true', LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output = (output + String(d)).slice(-20_000)));
  child.stderr!.on('data', (d) => (output = (output + String(d)).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode} before it was healthy:\n${output}`);
    const status = await fetch(`${base}/healthz`).then((r) => r.status, () => 0);
    if (status === 200) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service not healthy within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    child,
    output: () => output,
    exited,
    async kill(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    },
  };
}
