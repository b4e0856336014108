import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantSuperadmin, revokeSuperadmin } from '../../src/commands/accounts/superadmin.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { signUp } from '../support/api.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';
import { embeddedEnv } from '../support/embeddedEnv.js';

/**
 * Superadmin cannot be claimed over HTTP: registering an email gives nobody the role, whatever the
 * environment says. Only an operator on the server grants it, to an existing account
 * (`npm run superadmin -- grant <email>`), as an event on the user's stream.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

const run = promisify(execFile);
const tsx = new URL('../../node_modules/.bin/tsx', import.meta.url).pathname;
const cliPath = new URL('../../src/cli/superadmin.ts', import.meta.url).pathname;
const cli = (args: string[], env: Record<string, string> = {}) =>
  run(tsx, [cliPath, ...args], { env: embeddedEnv({ DATA_DIR: server.dataDir, LOG_LEVEL: 'silent', NODE_ENV: 'test', ...env }), timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code?: number; stdout: string; stderr: string }) => ({ code: err.code ?? -1, stdout: err.stdout, stderr: err.stderr }),
  );

const isSuperadmin = async (company: Awaited<ReturnType<typeof signUp>>) => {
  const me = await company.call('GET', '/api/auth/me');
  expect(me.statusCode).toBe(200);
  return me.json().user.isSuperadmin as boolean;
};

describe('SUPERADMIN_EMAILS', () => {
  it('is refused at start-up with one line pointing at the operator command', () => {
    let error: unknown;
    try {
      loadConfig({ SUPERADMIN_EMAILS: 'root@example.com' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toContain('SUPERADMIN_EMAILS');
    expect(message).toContain('npm run superadmin -- grant <email>');
  });

  it('a server cannot be started with it, so registering a listed email claims nothing', async () => {
    await expect(startTestServer({ SUPERADMIN_EMAILS: 'root@example.com' }, undefined, { dataDir: server.dataDir })).rejects.toThrow(ConfigError);
  });
});

describe('superadmin is granted by an operator, never by registering', () => {
  it('a newly registered account is not a superadmin and the admin routes answer 403 FORBIDDEN', async () => {
    const user = await signUp(server, 'Claimer', 'root@example.com');
    expect(await isSuperadmin(user)).toBe(false);
    const list = await user.call('GET', '/api/admin/companies');
    expect(list.statusCode).toBe(403);
    expect(list.json()).toEqual({ error: { code: 'FORBIDDEN', message: expect.any(String) } });
    const grant = await user.call('POST', `/api/admin/companies/${user.company.id}/credits`, { amountMicros: 1_000_000, reason: 'free money' });
    expect(grant.statusCode).toBe(403);
    expect((await user.call('GET', '/api/credits')).json().credits.balanceMicros).toBe(5_000_000);
  });

  it('grant (the command, in-process) → isSuperadmin true and the admin routes work; revoke → false and 403 again', async () => {
    const admin = await signUp(server, 'Ops', uniqueEmail('ops'));
    const target = await signUp(server, 'Target', uniqueEmail('target'));

    const granted = await grantSuperadmin(server.services.auth, { email: admin.email.toUpperCase(), by: 'test' });
    expect(granted).toEqual({ userId: admin.user.id, email: admin.email, changed: true });
    expect(await isSuperadmin(admin)).toBe(true);
    expect((await grantSuperadmin(server.services.auth, { email: admin.email, by: 'test' })).changed).toBe(false);

    const list = await admin.call('GET', '/api/admin/companies?limit=200');
    expect(list.statusCode).toBe(200);
    expect(list.json().companies.some((c: any) => c.id === target.company.id)).toBe(true);
    const credit = await admin.call('POST', `/api/admin/companies/${target.company.id}/credits`, { amountMicros: 2_500_000, reason: 'Goodwill' });
    expect(credit.statusCode).toBe(200);
    expect(credit.json()).toEqual({ credits: { balanceMicros: 7_500_000, balance: '7.50' } });

    expect(await revokeSuperadmin(server.services.auth, { email: admin.email, by: 'test' })).toEqual({ userId: admin.user.id, email: admin.email, changed: true });
    expect(await isSuperadmin(admin)).toBe(false);
    expect((await admin.call('GET', '/api/admin/companies')).statusCode).toBe(403);
  });

  it('an API token of a superadmin does not open the admin routes', async () => {
    const admin = await signUp(server, 'Ops', uniqueEmail('ops-token'));
    await grantSuperadmin(server.services.auth, { email: admin.email, by: 'test' });
    const { token } = (await admin.call('POST', '/api/settings/api-tokens', { name: 'script' })).json();
    expect((await admin.call('GET', '/api/admin/companies', undefined, token)).statusCode).toBe(403);
  });

  it('refuses an email with no account: NOT_FOUND, nothing recorded', async () => {
    const before = await server.adapters.eventStore.headPosition();
    await expect(grantSuperadmin(server.services.auth, { email: uniqueEmail('nobody'), by: 'test' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await server.adapters.eventStore.headPosition()).toBe(before);
  });

  it('the CLI (a child process on the same DATA_DIR) grants and revokes; the running server sees it at once', async () => {
    const user = await signUp(server, 'Cli', uniqueEmail('cli'));

    // It runs even where the retired SUPERADMIN_EMAILS is still set (the operator's way out of it).
    const granted = await cli(['grant', user.email], { SUPERADMIN_EMAILS: 'someone-else@example.com' });
    expect(granted).toMatchObject({ code: 0, stdout: expect.stringContaining(`granted superadmin to ${user.email}`) });
    expect(await isSuperadmin(user)).toBe(true);
    expect((await user.call('GET', '/api/admin/companies')).statusCode).toBe(200);

    const revoked = await cli(['revoke', user.email]);
    expect(revoked).toMatchObject({ code: 0, stdout: expect.stringContaining(`revoked superadmin from ${user.email}`) });
    expect(await isSuperadmin(user)).toBe(false);
    expect((await user.call('GET', '/api/admin/companies')).statusCode).toBe(403);

    const unknown = await cli(['grant', uniqueEmail('ghost')]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no account');
    const usage = await cli(['promote', user.email]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: npm run superadmin -- grant|revoke <email>');
  }, 120_000);
});
