import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, configSchema, loadConfig } from '../../src/config.js';


/** The one-line ConfigError that `name=value` stops start-up with (it must name the variable). */
function startupError(name: string, value: string): string {
  let error: unknown;
  try {
    loadConfig({ [name]: value });
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  const message = (error as Error).message;
  expect(message).toContain(name);
  expect(message.split('\n')).toHaveLength(1);
  return message;
}

describe('configuration from the environment', () => {
  it('uses the documented defaults when nothing is set', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      dataDir: './data',
      env: 'development',
      logLevel: 'info',
      publicBaseUrl: 'http://localhost:3000',
      eventStoreUrl: undefined,
      mongodbUri: undefined,
      natsUrl: undefined,
      allowPrivatePlatformUrls: false,
      trustProxy: false,
      refreshReuseGraceMs: 30_000,
    });
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['LOG_LEVEL', 'loud'],
    ['NODE_ENV', 'staging'],
    ['EVENTSTORE_URL', 'http://localhost:2113'],
    ['MONGODB_URI', 'not a uri'],
    ['NATS_URL', 'localhost:4222'],
    ['PUBLIC_BASE_URL', 'ftp://example.com'],
    ['JWT_SECRET', 'short'],
    ['ALLOW_PRIVATE_PLATFORM_URLS', 'maybe'],
    ['REFRESH_TOKEN_REUSE_GRACE_SECONDS', '301'],
    ['REFRESH_TOKEN_REUSE_GRACE_SECONDS', '-1'],
    ['PLAYGROUND_CONCURRENCY', '0'],
    ['PLAYGROUND_CONCURRENCY', 'many'],
    ['PLAYGROUND_COMPANY_CONCURRENCY', '1.5'],
    ['PLAYGROUND_COMPANY_CONCURRENCY', '257'],
  ])('a bad %s=%s stops start-up with one line naming the variable', (name, value) => {
    expect(startupError(name, value)).not.toContain(value === 'short' ? 'short' : '\u0000');
  });

  it('reads the engines, lists and flags', () => {
    const c = loadConfig({
      EVENTSTORE_URL: 'esdb://localhost:2113?tls=false',
      MONGODB_URI: 'mongodb://localhost:27017',
      NATS_URL: 'nats://localhost:4222',
      ALLOW_PRIVATE_PLATFORM_URLS: 'true',
      TRUST_PROXY: '10.0.0.0/8,127.0.0.1',
      PUBLIC_BASE_URL: 'https://agents.example.com/',
      REFRESH_TOKEN_REUSE_GRACE_SECONDS: '0',
    });
    expect(c.refreshReuseGraceMs).toBe(0);
    expect(c.eventStoreUrl).toBe('esdb://localhost:2113?tls=false');
    expect(c.allowPrivatePlatformUrls).toBe(true);
    expect(c.trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(c.publicBaseUrl).toBe('https://agents.example.com');
  });

  describe('engine connection strings (issue 21, defect 13): every format the drivers document', () => {
    it.each([
      ['EVENTSTORE_URL', 'esdb://localhost:2113?tls=false'],
      ['EVENTSTORE_URL', 'esdb://localhost'],
      ['EVENTSTORE_URL', 'esdb://n1:2113,n2:2113,n3:2113'],
      ['EVENTSTORE_URL', 'esdb://admin:changeit@n1:2113,n2:2113,n3:2113/?tls=true&nodePreference=leader&keepAliveTimeout=10000'],
      ['EVENTSTORE_URL', 'esdb+discover://cluster.example.com:2113?tls=true&gossipTimeout=5000&node_preference=leader'],
      ['EVENTSTORE_URL', 'esdb://n1:2113?throwOnAppendFailure=true'],
      ['MONGODB_URI', 'mongodb://localhost:27017'],
      ['MONGODB_URI', 'mongodb://h1:27017,h2:27017/?replicaSet=rs0'],
      ['MONGODB_URI', 'mongodb://app:p%40ss@h1,h2:27018,h3/agents?replicaSet=rs0&authSource=admin&w=majority'],
      ['MONGODB_URI', 'mongodb+srv://app:secret@cluster0.example.mongodb.net/agents?retryWrites=true'],
      ['MONGODB_URI', 'mongodb://[::1]:27017/?directConnection=true'],
      ['MONGODB_URI', 'mongodb://%2Ftmp%2Fmongodb-27017.sock'],
    ])('given %s=%s, when the service starts, then it takes the string as written', (name, value) => {
      const c = loadConfig({ [name]: value });
      expect(name === 'EVENTSTORE_URL' ? c.eventStoreUrl : c.mongodbUri).toBe(value);
    });

    it.each([
      ['nodePreference=follower', 'follower'],
      ['node_preference=random', 'random'],
      ['NodePreference=read_only_replica', 'read_only_replica'],
      ['throwOnAppendFailure=false', 'throwOnAppendFailure=false'],
    ])('given EVENTSTORE_URL with %s, when the service starts, then it stops and says why: the read-your-writes checks need the leader and failed appends thrown', (option, named) => {
      const message = startupError('EVENTSTORE_URL', `esdb://admin:Pa55-w0rd!@n1:2113,n2:2113?tls=false&${option}`);
      expect(message).not.toContain('Pa55');
      expect(message).toContain(named);
      expect(message).toMatch(/leader|thrown/);
    });

    it('given NATS_URL as a comma-separated list of servers (as the bus takes it), when the service starts, then it takes the list; a bad member is refused', () => {
      expect(loadConfig({ NATS_URL: 'nats://n1:4222,nats://n2:4222, tls://n3:4222' }).natsUrl).toBe('nats://n1:4222,nats://n2:4222, tls://n3:4222');
      expect(startupError('NATS_URL', 'nats://n1:4222,n2:4222')).toContain('NATS_URL');
      expect(startupError('NATS_URL', 'nats://n1:4222,')).toContain('NATS_URL');
    });

    it.each([
      ['EVENTSTORE_URL', 'esdb://admin:Pa55-w0rd!@:2113'],
      ['EVENTSTORE_URL', 'esdb://admin:Pa55-w0rd!@n1:2113,n2:99999'],
      ['EVENTSTORE_URL', 'esdb://admin:Pa55-w0rd!@n1:2113?tls=maybe'],
      ['EVENTSTORE_URL', 'esdb://admin:Pa55-w0rd!@n1:2113?tsl=false'],
      ['EVENTSTORE_URL', 'mongodb://admin:Pa55-w0rd!@n1:2113'],
      ['MONGODB_URI', 'mongodb+srv://app:Pa55-w0rd!@a.example.com,b.example.com/agents'],
      ['MONGODB_URI', 'mongodb+srv://app:Pa55-w0rd!@cluster0.example.com:27017'],
      ['MONGODB_URI', 'mongodb://app:Pa55-w0rd!@h1:27017,h2:port'],
      ['MONGODB_URI', 'mongodb://app:Pa55-w0rd!@h1,h2/?directConnection=true'],
      ['MONGODB_URI', 'mongodb://app:Pa55-w0rd!@'],
      ['MONGODB_URI', 'esdb://app:Pa55-w0rd!@h1'],
    ])('given %s=%s, when the service starts, then it stops with one line that names the variable and not the password', (name, value) => {
      expect(startupError(name, value)).not.toContain('Pa55');
    });
  });

  describe('DATABASE_URL: PostgreSQL for events and read models', () => {
    it.each([
      'postgres://localhost/agents',
      'postgresql://app:p%40ss@db.example.com:5432/agents?sslmode=require',
      'postgres://app@127.0.0.1:5432/agents?application_name=mas',
      'postgres:///agents?host=/var/run/postgresql',
    ])('given DATABASE_URL=%s, when the service starts, then it takes the string as written', (value) => {
      expect(loadConfig({ DATABASE_URL: value }).databaseUrl).toBe(value);
      expect(loadConfig({ DATABASE_URL: value, NATS_URL: 'nats://localhost:4222' })).toMatchObject({ databaseUrl: value, natsUrl: 'nats://localhost:4222' });
    });

    it.each([
      'mysql://app:Pa55-w0rd!@db/agents',
      'postgres://app:Pa55-w0rd!@db:99999/agents',
      'postgres://app:Pa55-w0rd!@db/agents/more',
      'Pa55-w0rd!',
    ])('given DATABASE_URL=%s, when the service starts, then it stops with one line that names the variable and not the password', (value) => {
      const message = startupError('DATABASE_URL', value);
      expect(message).toMatch(/^invalid environment variable DATABASE_URL: must be a PostgreSQL connection string/);
      expect(message).not.toContain('Pa55');
    });

    it.each([
      ['EVENTSTORE_URL', 'esdb://es:2113?tls=false'],
      ['MONGODB_URI', 'mongodb://mongo:27017'],
    ])('given DATABASE_URL and %s, when the service starts, then it refuses to split the stores, naming both and no password', (name, value) => {
      expect(() => loadConfig({ DATABASE_URL: 'postgres://app:Pa55-w0rd!@db/agents', [name]: value })).toThrow(
        new RegExp(`^invalid environment variable DATABASE_URL: .*${name} must not be set too`),
      );
      expect(() => loadConfig({ DATABASE_URL: 'postgres://app:Pa55-w0rd!@db/agents', [name]: value })).not.toThrow(/Pa55/);
    });

    it('leases: a standby asks every 2 s and a holder confirms its connection every 2 s by default', () => {
      expect(loadConfig({}).leases).toEqual({ retryMs: 2000, checkMs: 2000 });
      expect(loadConfig({ LEASE_RETRY_MS: '500', LEASE_CHECK_MS: '250' }).leases).toEqual({ retryMs: 500, checkMs: 250 });
    });
  });

  it('thread priorities: the HTTP thread level with the processing threads (acknowledgements never wait for answers), deliveries below; the projections gather 100 ms', () => {
    for (const env of [{}, { NODE_ENV: 'production' }, { NODE_ENV: 'test' }]) {
      const config = loadConfig(env);
      expect(config.httpThreadNice).toBe(0);
      expect(config.processorThreadNice).toBe(0);
      expect(config.projectionsGatherMs).toBe(100);
    }
    expect(loadConfig({ NODE_ENV: 'production' }).webhookThreadNice).toBe(12);
    expect(loadConfig({ HTTP_THREAD_NICE: '5', PROJECTIONS_GATHER_MS: '0' })).toMatchObject({ httpThreadNice: 5, projectionsGatherMs: 0 });
    expect(startupError('PROJECTIONS_GATHER_MS', '-1')).toContain('PROJECTIONS_GATHER_MS');
    // Held longer than the consumer's maxHoldMs (1 s), every projection would leave the shared read.
    expect(startupError('PROJECTIONS_GATHER_MS', '1000')).toContain('PROJECTIONS_GATHER_MS');
  });

  it('invitations: 7 days by default; SMTP only with both SMTP_URL and SMTP_FROM', () => {
    expect(loadConfig({})).toMatchObject({ invitationTtlMs: 7 * 86_400_000, smtp: undefined });
    expect(loadConfig({ INVITATION_TTL_HOURS: '24', SMTP_URL: 'smtps://u:p@smtp.example.com', SMTP_FROM: 'Support <no@example.com>' })).toMatchObject({
      invitationTtlMs: 86_400_000,
      smtp: { url: 'smtps://u:p@smtp.example.com', from: 'Support <no@example.com>' },
    });
    expect(() => loadConfig({ SMTP_URL: 'smtps://u:p@smtp.example.com' })).toThrow(/SMTP_FROM/);
    expect(() => loadConfig({ SMTP_URL: 'https://smtp.example.com', SMTP_FROM: 'x@example.com' })).toThrow(/SMTP_URL/);
  });

  it('playground slots: 8 LLM calls per process and 2 per company by default; a company never gets more than the process', () => {
    expect(loadConfig({}).playgroundConcurrency).toEqual({ total: 8, perCompany: 2 });
    expect(loadConfig({ PLAYGROUND_CONCURRENCY: '20', PLAYGROUND_COMPANY_CONCURRENCY: '5' }).playgroundConcurrency).toEqual({ total: 20, perCompany: 5 });
    expect(loadConfig({ PLAYGROUND_CONCURRENCY: '3', PLAYGROUND_COMPANY_CONCURRENCY: '5' }).playgroundConcurrency).toEqual({ total: 3, perCompany: 3 });
  });

  it("docs/configuration.md's environment tables list every variable the service reads", () => {
    const docs = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const documented = new Set([...docs.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]));
    expect(Object.keys(configSchema.shape).filter((name) => !documented.has(name))).toEqual([]);
  });
});
