/**
 * Starts a throwaway `nats-server -js` (Debian's /usr/sbin/nats-server) on a free loopback port with a fresh
 * store directory, for the NATS bus contract suite. The suite is never skipped: when the binary is missing,
 * startNatsServer() throws and says how to install it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export interface NatsServerHandle {
  /** e.g. `nats://127.0.0.1:41234` */
  url: string;
  port: number;
  storeDir: string;
  /**
   * Kills the server (SIGKILL, like a crash) and starts it again on the same port and store directory,
   * after `downForMs` (default 0) without a server.
   */
  restart(options?: { downForMs?: number }): Promise<void>;
  /** Kills the server and removes its store directory. */
  stop(): Promise<void>;
}

/** Debian's package installs /usr/sbin/nats-server; other installs use /usr/bin or /usr/local/bin. */
const CANDIDATES = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];
const READY_TIMEOUT_MS = 15_000;

/** NATS_SERVER_BIN, else the usual install paths, else `nats-server` on PATH; undefined when none exists. */
export function natsServerBinary(): string | undefined {
  if (process.env.NATS_SERVER_BIN) return existsSync(process.env.NATS_SERVER_BIN) ? process.env.NATS_SERVER_BIN : undefined;
  const onPath = (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'nats-server'));
  return [...CANDIDATES, ...onPath].find((candidate) => existsSync(candidate));
}

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      if (address === null || typeof address === 'string') {
        srv.close();
        reject(new Error('could not determine a free port'));
        return;
      }
      const { port } = address;
      srv.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

interface Running {
  child: ChildProcess;
  exited: Promise<void>;
}

async function launch(binary: string, port: number, storeDir: string): Promise<Running> {
  const child = spawn(binary, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let ready = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const onData = (chunk: Buffer) => {
    // keep only the tail for diagnostics
    output = (output + chunk.toString('utf8')).slice(-8_000);
    if (output.includes('Server is ready')) ready = true;
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  let spawnError: Error | undefined;
  child.once('error', (err) => {
    spawnError = err;
  });
  let exitCode: number | null | undefined;
  child.once('exit', (code) => {
    exitCode = code;
  });

  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (spawnError) throw new Error(`could not start ${binary}: ${spawnError.message}`);
    if (exitCode !== undefined) throw new Error(`nats-server exited with code ${String(exitCode)} before it was ready:\n${output}`);
    if (ready && (await canConnect(port))) return { child, exited };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  await exited;
  throw new Error(`nats-server did not become ready within ${READY_TIMEOUT_MS} ms:\n${output}`);
}

async function kill(running: Running): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  running.child.kill('SIGKILL');
  await running.exited;
}

export async function startNatsServer(): Promise<NatsServerHandle> {
  const binary = natsServerBinary();
  if (!binary) {
    throw new Error(
      `nats-server not found (looked at NATS_SERVER_BIN, ${CANDIDATES.join(', ')} and PATH). ` +
        "Install Debian's nats-server (`sudo apt-get install nats-server`) or set NATS_SERVER_BIN; " +
        'the NATS bus contract suite does not skip itself.',
    );
  }
  const storeDir = await mkdtemp(join(tmpdir(), 'mas-nats-'));
  const port = await freeLoopbackPort();
  let running: Running;
  try {
    running = await launch(binary, port, storeDir);
  } catch (err) {
    await rm(storeDir, { recursive: true, force: true });
    throw err;
  }
  let stopped = false;
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    async restart(options = {}) {
      if (stopped) throw new Error('nats-server already stopped');
      await kill(running);
      if (options.downForMs) await new Promise((r) => setTimeout(r, options.downForMs));
      running = await launch(binary, port, storeDir);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await kill(running);
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}
