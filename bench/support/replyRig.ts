import { startNatsServer } from '../../test/support/natsServer.js';
import { createTestDatabase } from '../../test/support/postgres.js';
import { removeDataDir, startChild, tempDir, type Child } from './processes.js';

/** What the reply benchmarks share: how the service is deployed and where its processing side's figures are. */
export interface Deployment {
  /** Where webhooks and API calls go. */
  url: string;
  /** Where the processing side's /metrics are (the service itself, or each processor). */
  metricsUrls: string[];
  /** Processes whose memory is reported. */
  children: Child[];
  stop(): Promise<void>;
}

export type DeploymentMode = 'all' | 'nats' | 'postgres';

/** BENCH_MODE: `nats`, `postgres`, else `all`. */
export const benchMode = (): DeploymentMode => (process.env.BENCH_MODE === 'nats' || process.env.BENCH_MODE === 'postgres' ? process.env.BENCH_MODE : 'all');

/**
 * The service on embedded defaults (`all`: one process, ROLE=all), or ROLE=api plus two ROLE=processor instances
 * on a real nats-server, sharing one DATA_DIR (`nats`: SQLite files; `postgres`: events and read models in a fresh
 * database on the local PostgreSQL, the processors' duties under their leases); each in its own process on a
 * free loopback port.
 */
export async function deploy(mode: DeploymentMode, tag: string): Promise<Deployment> {
  const dataDir = tempDir(tag);
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'development', ALLOW_PRIVATE_PLATFORM_URLS: 'true', AUTH_RATE_LIMIT_PER_MINUTE: '1000' };
  if (mode === 'all') {
    const service = await startChild({ name: 'service', script: 'src/main.ts', env, readyPath: '/readyz' });
    return { url: service.url, metricsUrls: [service.url], children: [service], stop: async () => void (await service.stop(), removeDataDir(dataDir)) };
  }
  const nats = await startNatsServer();
  const db = mode === 'postgres' ? await createTestDatabase(`bench_${tag}`) : null;
  const shared = { ...env, NATS_URL: nats.url, ...(db ? { DATABASE_URL: db.url } : {}) };
  const api = await startChild({ name: 'api', script: 'src/main.ts', env: { ...shared, ROLE: 'api' }, readyPath: '/readyz' });
  const processors = await Promise.all([1, 2].map((i) => startChild({ name: `processor-${i}`, script: 'src/main.ts', env: { ...shared, ROLE: 'processor' }, readyPath: '/readyz' })));
  const children = [api, ...processors];
  return {
    url: api.url,
    metricsUrls: processors.map((p) => p.url),
    children,
    async stop() {
      for (const child of children) await child.stop();
      await nats.stop();
      await db?.drop();
      removeDataDir(dataDir);
    },
  };
}

export async function metricValue(url: string, name: string): Promise<string[]> {
  const text = await fetch(`${url}/metrics`).then((r) => r.text());
  return text.split('\n').filter((l) => l.startsWith(name));
}

/** One line of where the work is, from /metrics: jobs held by the workers, projection lag, event-loop delay. */
export async function progressLine(urls: string[]): Promise<string> {
  const texts = await Promise.all(urls.map((url) => fetch(`${url}/metrics`).then((r) => r.text())));
  const lines = texts.flatMap((t) => t.split('\n')).filter((l) => l.startsWith('mas_'));
  const sum = (prefix: string, filter: (l: string) => boolean = () => true) =>
    lines.filter((l) => l.startsWith(prefix) && filter(l)).reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  const max = (prefix: string) => Math.max(0, ...lines.filter((l) => l.startsWith(prefix)).map((l) => Number(l.slice(l.lastIndexOf(' ') + 1))));
  const jobs = (queue: string, state: string) => sum('mas_worker_jobs{', (l) => l.includes(`queue="${queue}"`) && l.includes(`state="${state}"`));
  return `reply jobs waiting ${jobs('reply', 'waiting')} running ${jobs('reply', 'running')}; send waiting ${jobs('send', 'waiting')} running ${jobs('send', 'running')}; max projection lag ${max('mas_projection_lag_positions')}`;
}

