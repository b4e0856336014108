import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// No Docker engine runs where the tests run, so the image is never built here. What can be checked without
// one: the Dockerfile, .dockerignore, docker-compose.yml and Caddyfile agree with each other and with what
// `npm run build` produces (npm test's pretest builds it).
const dockerfile = readFileSync('Dockerfile', 'utf8');
const stages = dockerfile.split(/^FROM /m).slice(1);
const [buildStage = '', runtimeStage = ''] = stages;
const compose = readFileSync('docker-compose.yml', 'utf8');
const caddyfile = readFileSync('Caddyfile', 'utf8');
const ignored = readFileSync('.dockerignore', 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
/** The top-level block of one compose service (two-space indented key, up to the next one). */
const composeService = (name: string) => compose.match(new RegExp(`^  ${name}:\\n((?:    .*\\n|\\s*\\n)*)`, 'm'))?.[1] ?? '';

describe('the Docker image (Dockerfile)', () => {
  it('builds in one stage (npm ci, npm run build, production dependencies only) and runs in another', () => {
    expect(stages).toHaveLength(2);
    expect(buildStage).toMatch(/^RUN npm ci\b/m);
    expect(buildStage).toMatch(/npm run build/);
    expect(buildStage).toMatch(/npm prune --omit=dev/);
    expect(runtimeStage).not.toMatch(/npm (ci|install)/);
  });

  it('runs the compiled server, which npm run build produces, with plain node as a non-root user', () => {
    const cmd = JSON.parse(runtimeStage.match(/^CMD (\[.*\])$/m)![1]!) as string[];
    expect(cmd).toEqual(['node', 'dist/server/main.js']);
    expect(existsSync(cmd[1]!)).toBe(true);
    expect(runtimeStage).toMatch(/^USER node$/m);
    expect(runtimeStage).toMatch(/NODE_ENV=production/);
  });

  it('copies into the runtime stage only paths the build stage has, including the built web assets', () => {
    const copied = [...runtimeStage.matchAll(/^COPY --from=build \S+ (.+) \S+$/gm)].flatMap((m) => m[1]!.split(' '));
    expect(copied).toEqual(expect.arrayContaining(['/app/dist', '/app/node_modules', '/app/package.json']));
    for (const path of copied.map((p) => p.replace(/^\/app\//, ''))) expect(existsSync(path), path).toBe(true);
    for (const built of ['dist/server/main.js', 'dist/dashboard/index.html', 'dist/widget/widget.js']) expect(existsSync(built), built).toBe(true);
  });

  it('checks its health on /healthz', () => {
    expect(runtimeStage).toMatch(/^HEALTHCHECK .*\n?.*\/healthz/m);
  });

  it('keeps host artifacts out of the build context but nothing the build stage copies', () => {
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', 'data', '.git']));
    const copiedFromContext = [...buildStage.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(' '));
    expect(copiedFromContext).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'src', 'web', 'tsconfig.build.json']));
    for (const path of copiedFromContext) {
      expect(existsSync(path), path).toBe(true);
      expect(ignored, path).not.toContain(path);
    }
  });
});

describe('docker compose (docker-compose.yml + Caddyfile)', () => {
  it('keeps the production engines and builds the service from the Dockerfile', () => {
    for (const engine of ['eventstore', 'mongodb', 'nats']) expect(composeService(engine), engine).not.toBe('');
    const service = composeService('service');
    expect(service).toMatch(/^    build: \.$/m);
    expect(service).toMatch(/NODE_ENV: production/);
    expect(service).toMatch(/EVENTSTORE_URL: "esdb:\/\/eventstore:2113/);
    expect(service).toMatch(/MONGODB_URI: "mongodb:\/\/mongodb:27017/);
    expect(service).toMatch(/NATS_URL: "nats:\/\/nats:4222"/);
    // Webhook URLs are https (through Caddy); the service itself publishes no port.
    expect(service).toMatch(/PUBLIC_BASE_URL: "https:\/\//);
    expect(service).not.toMatch(/^    ports:/m);
    expect(service).toMatch(/TRUST_PROXY: "true"/);
  });

  it('starts the service only when every engine is healthy: each has a healthcheck, and depends_on waits for it (issue 21, item 15)', () => {
    for (const engine of ['eventstore', 'mongodb', 'nats']) {
      const block = composeService(engine);
      expect(block, engine).toMatch(/^    healthcheck:\n      test: \[.+\]$/m);
      expect(composeService('service'), engine).toMatch(new RegExp(`^      ${engine}: \\{ condition: service_healthy \\}$`, 'm'));
    }
    expect(compose).not.toMatch(/service_started/);
    // The NATS healthcheck needs a shell tool and the monitoring port it probes.
    expect(composeService('nats')).toMatch(/image: nats:[\d.]+-alpine/);
    expect(composeService('nats')).toMatch(/"-m", "8222"/);
  });

  it('has a postgres profile: PostgreSQL 15 with a healthcheck, and processor and API instances on it and NATS (issue 35)', () => {
    const postgres = composeService('postgres');
    expect(postgres).toMatch(/image: postgres:15$/m);
    expect(postgres).toMatch(/profiles: \[postgres\]/);
    expect(postgres).toMatch(/^    healthcheck:\n      test: \[.*pg_isready.*\]$/m);
    for (const role of ['processor', 'api']) {
      const block = composeService(role);
      expect(block, role).toMatch(/profiles: \[postgres\]/);
      expect(block, role).toMatch(/^      postgres: \{ condition: service_healthy \}$/m);
      expect(block, role).toMatch(/^      nats: \{ condition: service_healthy \}$/m);
      expect(block, role).toMatch(/^    volumes: \[postgres-service-data:\/app\/data\]$/m);
    }
    expect(composeService('processor')).toMatch(/DATABASE_URL: "postgres:\/\/mas:.*@postgres:5432\/mas"/);
    expect(composeService('processor')).toMatch(/NATS_URL: "nats:\/\/nats:4222"/);
    expect(composeService('processor')).toMatch(/ROLE: processor/);
    expect(composeService('api')).toMatch(/<<: \*postgres-service-env\n      ROLE: api/);
    // The default `docker compose up` is unchanged: the PostgreSQL services start only with the profile.
    expect(composeService('service')).not.toMatch(/profiles:/);
  });

  it('puts Caddy in front, terminating TLS with the Caddyfile and proxying to the service port', () => {
    const caddy = composeService('caddy');
    expect(caddy).toMatch(/image: caddy:2/);
    expect(caddy).toMatch(/- \.\/Caddyfile:\/etc\/caddy\/Caddyfile:ro/);
    expect(caddy).toMatch(/"443:443"/);
    const port = composeService('service').match(/PORT: "(\d+)"/)![1];
    expect(caddyfile).toMatch(new RegExp(`reverse_proxy service:${port}\\b`));
    expect(caddyfile).toMatch(/^\{\$SITE_ADDRESS:localhost\} \{$/m);
    expect(caddyfile).toMatch(/tls \{\$TLS:internal\}/);
  });
});
