import { ConnectionString } from 'mongodb-connection-string-url';
import { z } from 'zod';
import { loadPricing, type Pricing } from './domain/credits/decider.js';

/**
 * The HTTP thread runs level with the processing threads: an acknowledgement never waits for answers. At 3 (the
 * default until issue 38) a flood was acknowledged at the pace it was answered, but on a shared or saturated machine
 * acknowledgements waited behind the processing side and every other process (p99 6.8 s at half rate), and a
 * platform that waits that long sends the webhook again. When answering cannot keep up, the reply queue's backlog
 * policy ("AI backlog" handoffs) gives way instead (docs/fair-processing.md, bench/README.md).
 */
export const DEFAULT_HTTP_THREAD_NICE = 0;
/**
 * Outbound webhook deliveries yield on saturated cores to the replies (nice 0), which customers wait for, and to the
 * acknowledgements (HTTP_THREAD_NICE): level with the HTTP thread, 100 busy endpoints kept webhook acknowledgements
 * waiting seconds (p99 8-10 s, requests timing out); at 12 p99 1.3 s, for ~10 % more delivery lag (bench/README.md).
 */
export const DEFAULT_WEBHOOK_THREAD_NICE = 12;
/**
 * The projections thread applies and writes what arrived in this window together: a message's steps (received,
 * answered, sent, delivered) then change its conversation's documents once instead of once each (bench/README.md).
 */
export const DEFAULT_PROJECTIONS_GATHER_MS = 100;

const bool = z
  .enum(['true', 'false', '1', '0', ''])
  .transform((v) => v === 'true' || v === '1');
const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .string()
        .refine((v) => {
          try {
            return protocols.includes(new URL(v).protocol);
          } catch {
            return false;
          }
        }, `must be a URL starting with ${protocols.join(' or ')}`)
        .optional(),
    )
    .optional();

/**
 * A driver connection string, checked by `problem` (null when fine). Not a WHATWG URL: a replica set, a cluster
 * or a seed list names several hosts (`mongodb://h1:27017,h2:27017/?replicaSet=rs0`, `esdb://n1:2113,n2:2113`),
 * which `new URL()` refuses. The message says what is wrong and never repeats the string (it may hold a password).
 */
const connectionString = (problem: (value: string) => string | null) =>
  z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .string()
        .superRefine((value, ctx) => {
          const found = problem(value);
          if (found) ctx.addIssue({ code: 'custom', message: found });
        })
        .optional(),
    )
    .optional();

/** One URL or a comma-separated list of them (the servers of a cluster, as the NATS client takes them). */
const optionalUrlList = (protocols: string[]) =>
  z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .string()
        .refine(
          (v) =>
            v.split(',').every((member) => {
              try {
                return protocols.includes(new URL(member.trim()).protocol);
              } catch {
                return false;
              }
            }),
          `must be a URL starting with ${protocols.join(' or ')}, or a comma-separated list of them`,
        )
        .optional(),
    )
    .optional();

/** `host`, `host:port`, `[ipv6]:port` or a percent-encoded Unix socket path, as the MongoDB driver takes them. */
const MONGO_HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[^\s:[\]/]+)(?::(\d{1,5}))?$/;

/** What the MongoDB driver would refuse in a connection string, checked with its own parser (mongodb-connection-string-url). */
export function mongoUriProblem(uri: string): string | null {
  const expected = 'must be a MongoDB connection string: mongodb://host[:port][,host[:port]...][/db][?options] or mongodb+srv://name[/db][?options]';
  let parsed: ConnectionString;
  try {
    parsed = new ConnectionString(uri);
  } catch (err) {
    return `${expected} (${withoutSecret((err as Error).message, uri)})`;
  }
  for (const host of parsed.hosts) {
    const port = MONGO_HOST.exec(host)?.[1];
    if (!MONGO_HOST.test(host) || (port !== undefined && (Number(port) < 1 || Number(port) > 65535))) {
      return `${expected} (host ${withoutSecret(host, uri)} is not host[:port] with a port from 1 to 65535)`;
    }
  }
  if (parsed.hosts.length > 1 && parsed.searchParams.get('directConnection') === 'true') {
    return `${expected} (directConnection=true takes exactly one host)`;
  }
  return null;
}

/** EventStoreDB connection-string options (the client compares them case-insensitively, ignoring - and _). */
const ESDB_OPTIONS: Record<string, 'boolean' | 'integer' | 'text' | 'nodePreference'> = {
  tls: 'boolean',
  tlsverifycert: 'boolean',
  throwonappendfailure: 'boolean',
  dnsdiscover: 'boolean',
  maxdiscoverattempts: 'integer',
  defaultdeadline: 'integer',
  discoveryinterval: 'integer',
  gossiptimeout: 'integer',
  keepaliveinterval: 'integer',
  keepalivetimeout: 'integer',
  connectionname: 'text',
  tlscafile: 'text',
  usercertfile: 'text',
  userkeyfile: 'text',
  nodepreference: 'nodePreference',
};
const ESDB_URI = /^esdb(?:\+discover)?:\/\/(?:[^:@/?#]+:[^@]+@)?(?<hosts>[^/?@]+)\/?(?:\?(?<query>.*))?$/;
const ESDB_HOST = /^[A-Za-z0-9._-]+(?::(\d{1,5}))?$/;

/**
 * What the EventStoreDB client's parser would refuse (its grammar: the client does not export the parser):
 * `esdb://[user:password@]host[:port][,host[:port]...][?key=value&...]`, or `esdb+discover://` for DNS
 * discovery of a cluster. Options must be ones the client knows, with values of their kind.
 */
export function esdbUrlProblem(url: string): string | null {
  const expected = 'must be an EventStoreDB connection string: esdb://[user:password@]host[:port][,host[:port]...][?options] or esdb+discover://host[:port][?options]';
  const m = ESDB_URI.exec(url.replace(/\/+$/, ''));
  if (!m) return expected;
  for (const host of m.groups!.hosts!.split(',')) {
    const port = ESDB_HOST.exec(host)?.[1];
    if (!ESDB_HOST.test(host) || (port !== undefined && (Number(port) < 1 || Number(port) > 65535))) {
      return `${expected} (host ${withoutSecret(host, url)} is not host[:port] with a port from 1 to 65535)`;
    }
  }
  for (const pair of m.groups!.query ? m.groups!.query.split('&') : []) {
    const [key = '', value = '', ...more] = pair.split('=');
    const kind = ESDB_OPTIONS[key.trim().toLowerCase().replace(/[_-]/g, '')];
    if (!kind) return `${expected} (unknown option "${withoutSecret(key, url)}")`;
    const ok =
      more.length === 0 &&
      value !== '' &&
      (kind === 'text' ||
        (kind === 'boolean' && (value === 'true' || value === 'false')) ||
        (kind === 'integer' && /^\d+$/.test(value)) ||
        (kind === 'nodePreference' && /^(leader|follower|random|read[_-]?only[_-]?replica)$/i.test(value)));
    if (!ok) return `${expected} (option ${withoutSecret(key, url)} needs ${kind === 'nodePreference' ? 'leader, follower, random or read_only_replica' : `a ${kind} value`})`;
    // Valid for the client, wrong for this service: the adapter checks its own writes by reading them back
    // (a command reads its stream right after appending, the API waits for its position), which holds only
    // on the leader, and it needs a failed append thrown, not reported in a result it never looks at.
    if (kind === 'nodePreference' && !/^leader$/i.test(value)) {
      return `EVENTSTORE_URL option ${key}=${value} is not supported: this service reads its own writes back at once, which only the leader guarantees (a follower or read-only replica may not have them yet); use nodePreference=leader or leave it out`;
    }
    if (kind === 'boolean' && key.trim().toLowerCase().replace(/[_-]/g, '') === 'throwonappendfailure' && value === 'false') {
      return `EVENTSTORE_URL option ${key}=false is not supported: a failed append (a conflict on the expected revision) must be thrown, as the service's once-only guards and retries rely on it; leave the option out`;
    }
  }
  return null;
}

/**
 * What `pg` would not connect with: anything but `postgres://` or `postgresql://` with a parseable authority.
 * A socket directory goes in `?host=/var/run/postgresql`. The message never repeats the string (it may hold a password).
 */
export function postgresUrlProblem(url: string): string | null {
  const expected = 'must be a PostgreSQL connection string: postgres://[user[:password]@]host[:port]/database[?options] (or postgresql://)';
  if (!/^postgres(?:ql)?:\/\//i.test(url)) return expected;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${expected} (it does not parse as a URL: check the port and percent-encode special characters in the user name and password)`;
  }
  if (parsed.pathname.length > 1 && parsed.pathname.slice(1).includes('/')) return `${expected} (the database name cannot contain "/")`;
  return null;
}

/** Text taken from a connection string (a driver's message, a host), with any password that string holds masked. */
function withoutSecret(message: string, value: string): string {
  const password = /^[^:/]+:\/\/[^:@/]*:([^@]+)@/.exec(value)?.[1];
  if (!password) return message;
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // not percent-encoded: the raw form is the one to mask
  }
  return message.split(password).join('****').split(decoded).join('****');
}

const msList = z
  .string()
  .regex(/^\d+(,\d+)*$/, 'must be comma-separated milliseconds, e.g. 1000,5000')
  .transform((v) => v.split(',').map(Number));

/** Every environment variable the service reads. docs/configuration.md documents each one. */
export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  PUBLIC_BASE_URL: optionalUrl(['http:', 'https:']),
  DASHBOARD_URL: optionalUrl(['http:', 'https:']),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  EVENTSTORE_URL: connectionString(esdbUrlProblem),
  MONGODB_URI: connectionString(mongoUriProblem),
  MONGODB_DB: z.string().min(1).default('messaging_agent'),
  DATABASE_URL: connectionString(postgresUrlProblem),
  PG_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  LEASE_RETRY_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  LEASE_CHECK_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  NATS_URL: optionalUrlList(['nats:', 'tls:', 'ws:', 'wss:']),
  /** Trust X-Forwarded-* from these proxies (fastify trustProxy: true, a hop count, or comma-separated IPs/CIDRs). */
  TRUST_PROXY: z.string().default(''),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  MASTER_KEY: z
    .string()
    .trim()
    .refine((v) => /^[0-9a-fA-F]{64}$/.test(v) || Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64 or hex encoded')
    .optional(),
  ALLOW_PRIVATE_PLATFORM_URLS: bool.default(false),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(30).max(86_400).default(900),
  REFRESH_TOKEN_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  REFRESH_TOKEN_REUSE_GRACE_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  AUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(30),
  AUTH_EMAIL_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(10),
  REPLY_BURST_WINDOW_MS: z.coerce.number().int().min(0).max(60_000).default(1500),
  LLM_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  LLM_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  LLM_RETRY_DELAYS_MS: msList.default([2000, 8000]),
  LLM_PRICE_TABLE: z.string().optional(),
  SEND_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  SEND_RETRY_BACKOFF_MS: msList.default([1000, 5000, 15000, 30000]),
  // Outbound webhooks: the waits between attempts (about 24 hours in all), then the endpoint is disabled.
  WEBHOOK_RETRY_SCHEDULE_MS: msList.default([5000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 28_800_000]),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  WEBHOOK_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(128),
  WEBHOOK_COMPANY_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(16),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(250),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(32),
  WORKER_COMPANY_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(24),
  REPLY_QUEUE_CAPACITY: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  REPLY_MAX_DELAY_MS: z.coerce.number().int().min(1000).max(86_400_000).default(300_000),
  PLAYGROUND_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  PLAYGROUND_COMPANY_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(2),
  ROLE: z.enum(['all', 'api', 'processor']).default('all'),
  PROCESSOR_THREAD: bool.optional(),
  PROCESSOR_THREAD_NICE: z.coerce.number().int().min(0).max(19).default(0),
  PROJECTIONS_THREAD_NICE: z.coerce.number().int().min(0).max(19).default(0),
  PROJECTIONS_GATHER_MS: z.coerce.number().int().min(0).max(500).default(DEFAULT_PROJECTIONS_GATHER_MS),
  WEBHOOK_THREAD_NICE: z.coerce.number().int().min(0).max(19).optional(),
  HTTP_THREAD_NICE: z.coerce.number().int().min(0).max(19).optional(),
  READ_YOUR_WRITES_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(5000),
  WEBCHAT_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(1).max(100_000).default(20),
  WEBCHAT_HEARTBEAT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  WEBCHAT_MESSAGES_PER_10S: z.coerce.number().int().min(1).max(10_000).default(10),
  WEBCHAT_NEW_VISITORS_PER_IP_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(20),
  WEBCHAT_NEW_VISITORS_PER_INTEGRATION_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(300),
  WEBCHAT_MESSAGES_PER_IP_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(60),
  WEBCHAT_MESSAGES_PER_INTEGRATION_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
  KNOWLEDGE_MAX_DOCUMENTS: z.coerce.number().int().min(1).max(100_000).default(500),
  KNOWLEDGE_MAX_BYTES: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(20 * 1024 * 1024),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl(['http:', 'https:']),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl(['http:', 'https:']),
  OTEL_SERVICE_NAME: z.string().trim().min(1).max(200).optional(),
  OTEL_TRACES_SAMPLER: z.enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio']).default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  INVITATION_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 90).default(168),
  SMTP_URL: optionalUrl(['smtp:', 'smtps:']),
  SMTP_FROM: z.string().trim().min(3).max(254).optional(),
  NOTIFICATION_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  ACTION_EXPIRY_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
});

export type Env = z.input<typeof configSchema>;

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  dataDir: string;
  publicBaseUrl: string;
  dashboardUrl: string | undefined;
  logLevel: string;
  eventStoreUrl: string | undefined;
  mongodbUri: string | undefined;
  mongodbDb: string;
  /** PostgreSQL for events and read models (instead of EVENTSTORE_URL and MONGODB_URI), and the leases of several processors. */
  databaseUrl: string | undefined;
  /** Connections each thread's PostgreSQL pools keep at most (the event store's and the read store's each). */
  pgPoolSize: number;
  /** Leases of the stateful duties (PostgreSQL only): how often a standby asks, how often a holder confirms its connection. */
  leases: { retryMs: number; checkMs: number };
  natsUrl: string | undefined;
  trustProxy: boolean | number | string[];
  jwtSecret: string | undefined;
  masterKey: string | undefined;
  allowPrivatePlatformUrls: boolean;
  shutdownTimeoutMs: number;
  accessTokenTtlSeconds: number;
  refreshTokenTtlMs: number;
  refreshReuseGraceMs: number;
  authRateLimitPerMinute: number;
  authEmailRateLimitPerMinute: number;
  replyBurstWindowMs: number;
  llmTimeoutMs: number;
  llmMaxRetries: number;
  llmRetryDelaysMs: number[];
  pricing: Pricing;
  sendMaxAttempts: number;
  sendRetryBackoffMs: number[];
  /** Outbound webhook deliveries: retry waits, per-attempt timeout, slots (all, per company) and how often endpoints are looked at. */
  webhooks: { retryScheduleMs: number[]; timeoutMs: number; concurrency: number; companyConcurrency: number; pollMs: number };
  workerConcurrency: number;
  /** At most this many of one company's reply jobs run at once (its fair share of the worker slots). */
  workerCompanyConcurrency: number;
  /** Conversations waiting for an AI reply per processor at most; beyond it the busiest company's newest go to people. */
  replyQueueCapacity: number;
  /** A customer message unanswered this long goes to people ("AI backlog") instead of getting a late answer. */
  replyMaxDelayMs: number;
  /** Playground LLM calls one API process makes at once, and at most this many for one company (capped at total). */
  playgroundConcurrency: { total: number; perCompany: number };
  /** api: HTTP only; processor: projections, reactors and workers only; all: both (the processing side on a worker thread unless processorThread is false). */
  role: 'all' | 'api' | 'processor';
  processorThread: boolean;
  /** CPU priority (nice) of the processor thread: under contention request serving comes first; 0 keeps it equal. */
  processorThreadNice: number;
  /** CPU priority (nice) of the projections thread alone: under contention replies and requests come before read models. */
  projectionsThreadNice: number;
  /** How long the projections thread holds a batch so that what follows is applied and written with it (ms). */
  projectionsGatherMs: number;
  /** CPU priority (nice) of the outbound webhook deliveries' thread: its bounded share of saturated cores beside the replies. */
  webhookThreadNice: number;
  /** Linux nice of the HTTP (main) thread once the processing threads have started (ROLE=all); 0 leaves it. */
  httpThreadNice: number;
  /** How long a request that wrote waits for the read models to show it before answering anyway (from what it wrote). */
  readYourWritesTimeoutMs: number;
  webchatMaxConnectionsPerIp: number;
  webchatHeartbeatMs: number;
  webchatMessagesPer10s: number;
  /** Web-chat flood limits per minute, counted cluster-wide with NATS_URL. */
  webchatFloodLimits: { newVisitorsPerIp: number; newVisitorsPerIntegration: number; messagesPerIp: number; messagesPerIntegration: number };
  /** Per-company knowledge-base quota: documents and bytes of content. */
  knowledgeQuota: { maxDocuments: number; maxBytes: number };
  /** Bearer token GET /metrics requires; unset = unauthenticated (keep /metrics off the public proxy). */
  metricsToken: string | undefined;
  /** OpenTelemetry traces, exported over OTLP/HTTP; undefined (the default) loads no SDK at all. */
  tracing: TracingConfig | undefined;
  /** How long a teammate invitation's link works. */
  invitationTtlMs: number;
  /** Invitation and notification emails; without SMTP_URL the link is only shown in the dashboard and no notification is emailed. */
  smtp: { url: string; from: string } | undefined;
  /** How often the processing side looks for handoffs waiting longer than a teammate's chosen time (their email). */
  notificationSweepIntervalMs: number;
  /** How often the processing side ends action calls whose approval or confirmation window has passed. */
  actionExpirySweepIntervalMs: number;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses the environment; a bad value throws one line naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Removed, not ignored: it let whoever registered a listed email first become superadmin. Refusing to start
  // tells an operator who relied on it what to do instead.
  if (env.SUPERADMIN_EMAILS) {
    throw new ConfigError('SUPERADMIN_EMAILS is no longer supported: unset it and grant superadmin to an existing account on the server with `npm run superadmin -- grant <email>`');
  }
  const result = configSchema.safeParse(
    Object.fromEntries(Object.keys(configSchema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]])),
  );
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new ConfigError(`invalid environment variable ${String(issue.path[0])}: ${issue.message}`);
  }
  const c = result.data;
  // DATABASE_URL holds events and read models together: a second engine for either would split them silently.
  for (const other of ['EVENTSTORE_URL', 'MONGODB_URI'] as const) {
    if (c.DATABASE_URL && c[other]) {
      throw new ConfigError(`invalid environment variable DATABASE_URL: it puts both the events and the read models on PostgreSQL, so ${other} must not be set too (unset one of them)`);
    }
  }
  let pricing: Pricing;
  try {
    pricing = loadPricing(c.LLM_PRICE_TABLE);
  } catch (err) {
    throw new ConfigError(`invalid environment variable LLM_PRICE_TABLE: ${(err as Error).message.split('\n')[0]}`);
  }
  return {
    env: c.NODE_ENV,
    port: c.PORT,
    host: c.HOST,
    dataDir: c.DATA_DIR,
    publicBaseUrl: (c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, ''),
    dashboardUrl: c.DASHBOARD_URL,
    logLevel: c.LOG_LEVEL,
    eventStoreUrl: c.EVENTSTORE_URL,
    mongodbUri: c.MONGODB_URI,
    mongodbDb: c.MONGODB_DB,
    databaseUrl: c.DATABASE_URL,
    pgPoolSize: c.PG_POOL_SIZE,
    leases: { retryMs: c.LEASE_RETRY_MS, checkMs: c.LEASE_CHECK_MS },
    natsUrl: c.NATS_URL,
    trustProxy: parseTrustProxy(c.TRUST_PROXY),
    jwtSecret: c.JWT_SECRET,
    masterKey: c.MASTER_KEY,
    allowPrivatePlatformUrls: c.ALLOW_PRIVATE_PLATFORM_URLS,
    shutdownTimeoutMs: c.SHUTDOWN_TIMEOUT_MS,
    accessTokenTtlSeconds: c.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlMs: c.REFRESH_TOKEN_TTL_DAYS * 86_400_000,
    refreshReuseGraceMs: c.REFRESH_TOKEN_REUSE_GRACE_SECONDS * 1000,
    authRateLimitPerMinute: c.AUTH_RATE_LIMIT_PER_MINUTE,
    authEmailRateLimitPerMinute: c.AUTH_EMAIL_RATE_LIMIT_PER_MINUTE,
    replyBurstWindowMs: c.REPLY_BURST_WINDOW_MS,
    llmTimeoutMs: c.LLM_TIMEOUT_MS,
    llmMaxRetries: c.LLM_MAX_RETRIES,
    llmRetryDelaysMs: c.LLM_RETRY_DELAYS_MS,
    pricing,
    sendMaxAttempts: c.SEND_MAX_ATTEMPTS,
    sendRetryBackoffMs: c.SEND_RETRY_BACKOFF_MS,
    webhooks: {
      retryScheduleMs: c.WEBHOOK_RETRY_SCHEDULE_MS,
      timeoutMs: c.WEBHOOK_TIMEOUT_MS,
      concurrency: c.WEBHOOK_DELIVERY_CONCURRENCY,
      companyConcurrency: c.WEBHOOK_COMPANY_CONCURRENCY,
      pollMs: c.WEBHOOK_POLL_MS,
    },
    workerConcurrency: c.WORKER_CONCURRENCY,
    workerCompanyConcurrency: Math.min(c.WORKER_COMPANY_CONCURRENCY, c.WORKER_CONCURRENCY),
    replyQueueCapacity: c.REPLY_QUEUE_CAPACITY,
    replyMaxDelayMs: c.REPLY_MAX_DELAY_MS,
    playgroundConcurrency: { total: c.PLAYGROUND_CONCURRENCY, perCompany: Math.min(c.PLAYGROUND_COMPANY_CONCURRENCY, c.PLAYGROUND_CONCURRENCY) },
    role: c.ROLE,
    // Tests inspect the processing side in-process; everywhere else it gets its own thread.
    processorThread: c.PROCESSOR_THREAD ?? c.NODE_ENV !== 'test',
    processorThreadNice: c.PROCESSOR_THREAD_NICE,
    projectionsThreadNice: c.PROJECTIONS_THREAD_NICE,
    projectionsGatherMs: c.PROJECTIONS_GATHER_MS,
    webhookThreadNice: c.WEBHOOK_THREAD_NICE ?? (c.NODE_ENV === 'test' ? 0 : DEFAULT_WEBHOOK_THREAD_NICE),
    // Tests keep the HTTP thread at the priority of the test runner's own processes (their timing, not the service's).
    httpThreadNice: c.HTTP_THREAD_NICE ?? DEFAULT_HTTP_THREAD_NICE,
    readYourWritesTimeoutMs: c.READ_YOUR_WRITES_TIMEOUT_MS,
    webchatMaxConnectionsPerIp: c.WEBCHAT_MAX_CONNECTIONS_PER_IP,
    webchatHeartbeatMs: c.WEBCHAT_HEARTBEAT_MS,
    webchatMessagesPer10s: c.WEBCHAT_MESSAGES_PER_10S,
    webchatFloodLimits: {
      newVisitorsPerIp: c.WEBCHAT_NEW_VISITORS_PER_IP_PER_MINUTE,
      newVisitorsPerIntegration: c.WEBCHAT_NEW_VISITORS_PER_INTEGRATION_PER_MINUTE,
      messagesPerIp: c.WEBCHAT_MESSAGES_PER_IP_PER_MINUTE,
      messagesPerIntegration: c.WEBCHAT_MESSAGES_PER_INTEGRATION_PER_MINUTE,
    },
    knowledgeQuota: { maxDocuments: c.KNOWLEDGE_MAX_DOCUMENTS, maxBytes: c.KNOWLEDGE_MAX_BYTES },
    metricsToken: c.METRICS_TOKEN,
    tracing: tracingOf(c),
    invitationTtlMs: c.INVITATION_TTL_HOURS * 3_600_000,
    smtp: c.SMTP_URL ? { url: c.SMTP_URL, from: c.SMTP_FROM ?? smtpFromMissing() } : undefined,
    notificationSweepIntervalMs: c.NOTIFICATION_SWEEP_INTERVAL_MS,
    actionExpirySweepIntervalMs: c.ACTION_EXPIRY_SWEEP_INTERVAL_MS,
  };
}

export interface TracingConfig {
  /** Where spans are posted (OTLP/HTTP, JSON): OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, else `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`. */
  tracesUrl: string;
  serviceName: string;
  sampler: z.infer<typeof configSchema>['OTEL_TRACES_SAMPLER'];
  /** The ratio of the `traceidratio` samplers, 0 to 1. */
  samplerArg: number;
}

/** The standard OpenTelemetry variables; tracing is on only when an endpoint is set. */
function tracingOf(c: z.infer<typeof configSchema>): TracingConfig | undefined {
  const tracesUrl = c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (c.OTEL_EXPORTER_OTLP_ENDPOINT ? `${c.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (!tracesUrl) return undefined;
  return { tracesUrl, serviceName: c.OTEL_SERVICE_NAME ?? 'messaging-agent-service', sampler: c.OTEL_TRACES_SAMPLER, samplerArg: c.OTEL_TRACES_SAMPLER_ARG };
}

function smtpFromMissing(): never {
  throw new ConfigError('invalid environment variable SMTP_FROM: required when SMTP_URL is set (e.g. "Support <noreply@example.com>")');
}

function parseTrustProxy(v: string): boolean | number | string[] {
  const t = v.trim();
  if (t === '' || t === 'false') return false;
  if (t === 'true') return true;
  if (/^\d+$/.test(t)) return Number(t);
  return t.split(',').map((s) => s.trim()).filter(Boolean);
}
