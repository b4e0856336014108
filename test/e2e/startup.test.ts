import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { embeddedEnv } from '../support/embeddedEnv.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: embeddedEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += String(d)));
  child.stderr.on('data', (d) => (output += String(d)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe('the service process (src/main.ts, what npm start runs)', () => {
  it('starts on embedded defaults with no key, serves /healthz, /readyz and /docs, and shuts down cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mas-main-'));
    const port = await freePort();
    const proc = startMain({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', NODE_ENV: 'development' });
    try {
      const base = `http://127.0.0.1:${port}`;
      await expect.poll(async () => (await fetch(`${base}/healthz`).catch(() => null))?.status, { timeout: 30_000, interval: 200 }).toBe(200);
      expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ ok: true });
      // The processing side runs on its own thread, which may still be starting when the server listens;
      // /readyz is 503 until it runs, then reports each thread's event-loop delay.
      const readyz = async () => {
        const res = await fetch(`${base}/readyz`);
        return { status: res.status, body: await res.json() };
      };
      await expect.poll(async () => (await readyz()).status, { timeout: 10_000, interval: 50 }).toBe(200);
      const ready = (await readyz()).body;
      expect(ready.checks).toEqual({ eventStore: true, readStore: true, bus: true, processor: true });
      expect(ready.metrics.eventLoop.api).toMatchObject({ p99Ms: expect.any(Number), maxMs: expect.any(Number) });
      expect(ready.metrics.eventLoop.projections).toMatchObject({ p99Ms: expect.any(Number), maxMs: expect.any(Number) });
      expect(ready.metrics.eventLoop.replies).toMatchObject({ p99Ms: expect.any(Number), maxMs: expect.any(Number) });
      expect(proc.output()).toMatch(/"role":"all","processorThread":true/);
      expect(proc.output()).toContain(`open the dashboard at http://localhost:${port}/ and sign up`);
      const docs = await (await fetch(`${base}/docs/json`)).json();
      expect(Object.keys(docs.paths)).toEqual(expect.arrayContaining(['/api/auth/register', '/api/webhook/{connectorType}/{integrationId}', '/api/conversations']));
      // A request in flight when SIGTERM arrives is still answered.
      const inflight = fetch(`${base}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'term@example.com', password: 'correct horse', companyName: 'Term' }),
      });
      await new Promise((r) => setTimeout(r, 20));
      proc.child.kill('SIGTERM');
      expect((await inflight).status).toBe(201);
      const code = await proc.exited;
      expect(proc.output()).toContain('shutdown complete');
      expect(code).toBe(0);
    } finally {
      proc.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('stops at start-up with one line naming a bad variable', async () => {
    const proc = startMain({ PORT: 'eighty' });
    expect(await proc.exited).toBe(1);
    expect(proc.output().trim().split('\n')).toEqual([expect.stringMatching(/^invalid environment variable PORT: /)]);
  }, 30_000);
});
