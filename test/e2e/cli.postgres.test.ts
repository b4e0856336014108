/**
 * The operator commands on PostgreSQL: `npm run replay` reads a conversation's timeline and
 * `npm run projections:rebuild` rebuilds the read models from DATABASE_URL, with a DATA_DIR that holds nothing
 * (so neither falls back to SQLite files), while a server on the same database keeps serving.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedEnv } from '../support/embeddedEnv.js';
import { eventually } from '../support/eventually.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { wireCompany, type WiredCompany } from '../support/faultFixtures.js';
import { createTestDatabase, postgresTarget, type TestDatabase } from '../support/postgres.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

const run = promisify(execFile);
const target = await postgresTarget();

describe.skipIf(target.mode === 'skip')('operator commands on PostgreSQL', () => {
  let db: TestDatabase;
  let server: TestServer;
  let platform: FakePlatform;
  let company: WiredCompany;
  let conversationId: string;
  const emptyDir = mkdtempSync(join(tmpdir(), 'mas-cli-pg-'));
  const cliEnv = () => embeddedEnv({ DATABASE_URL: db.url, DATA_DIR: emptyDir, LOG_LEVEL: 'info' });

  beforeAll(async () => {
    db = await createTestDatabase('cli');
    platform = await startFakePlatform({ token: 'tok-cli' });
    server = await startTestServer({ DATABASE_URL: db.url, ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0' });
    const base = await server.listen(0, '127.0.0.1');
    company = await wireCompany(base, { platformUrl: platform.url, platformToken: 'tok-cli' });
    expect(await company.post({ clientId: 'cli-1', messageId: 'cli-m1', text: 'Where is my parcel?' })).toBe(200);
    await platform.waitForMessages(1, 30_000);
    conversationId = await eventually(async () => {
      const list = (await company.call('GET', '/api/conversations')).body.conversations as { id: string; messageCount: number }[];
      expect(list[0]?.messageCount).toBe(2);
      return list[0]!.id;
    }, 30_000, 100);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await platform?.close();
    await db?.drop();
    rmSync(emptyDir, { recursive: true, force: true });
  });

  it('`npm run replay -- <conversationId>` prints the timeline stored in PostgreSQL', async () => {
    const { stdout } = await run('npx', ['tsx', 'src/cli/replay.ts', conversationId], { env: cliEnv() });
    expect(stdout).toMatch(/^#0\t@\d+\t\S+\tConversationStarted\t/m);
    expect(stdout).toMatch(/\tMessageReceived\t/);
    expect(stdout).toMatch(/\tAgentReplied\t/);
    expect(readdirSync(emptyDir)).toEqual([]);
  }, 60_000);

  it('`npm run projections:rebuild` rebuilds into a new generation, and the running server follows it', async () => {
    const { stdout } = await run('npx', ['tsx', 'src/cli/rebuildProjections.ts'], { env: cliEnv() });
    expect(stdout).toMatch(/read models rebuilt into generation 2/);
    expect(await server.adapters.readStore.activeGeneration()).toBe(2);
    await eventually(async () => {
      const list = (await company.call('GET', '/api/conversations')).body.conversations as { id: string; messageCount: number }[];
      expect(list.map((c) => [c.id, c.messageCount])).toEqual([[conversationId, 2]]);
    }, 30_000, 100);
    // The rebuilt read models keep following new events.
    expect(await company.post({ clientId: 'cli-2', messageId: 'cli-m2', text: 'And my refund?' })).toBe(200);
    await eventually(async () => expect((await company.call('GET', '/api/conversations')).body.conversations).toHaveLength(2), 30_000, 100);
    expect(readdirSync(emptyDir)).toEqual([]);
  }, 120_000);
});
