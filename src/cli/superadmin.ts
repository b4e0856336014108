/**
 * `npm run superadmin -- grant <email>` / `revoke <email>`: the only way to make (or unmake) a superadmin.
 * Run on the server against the same configuration (DATA_DIR or EVENTSTORE_URL) as the service; a running
 * service sees the change on the account's next request. The account must exist (register it first).
 * Exit code 0 on success (also when nothing had to change), 1 when there is no such account, 2 on bad usage.
 */
import { userInfo } from 'node:os';
import { grantSuperadmin, revokeSuperadmin } from '../commands/accounts/superadmin.js';
import { systemClock } from '../ports/clock.js';
import { loadConfig } from '../config.js';
import { DomainError } from '../domain/errors.js';
import { openEventStore } from '../infrastructure/adapters.js';
import { createLogger } from '../infrastructure/logger.js';
import { runCli } from './runCli.js';

const USAGE = 'usage: npm run superadmin -- grant|revoke <email>';

async function main(): Promise<number> {
  const [action, email, ...rest] = process.argv.slice(2);
  if ((action !== 'grant' && action !== 'revoke') || !email || rest.length > 0) {
    console.error(USAGE);
    return 2;
  }
  // The command that replaces SUPERADMIN_EMAILS must work in the environment that still sets it.
  const config = loadConfig({ ...process.env, SUPERADMIN_EMAILS: undefined });
  const logger = createLogger({ level: 'warn' }).child({ component: 'superadmin-cli' });
  const eventStore = await openEventStore(config, logger);
  const deps = { eventStore, clock: systemClock, logger };
  const by = `cli:${operatorName()}`;
  try {
    if (action === 'grant') {
      const r = await grantSuperadmin(deps, { email, by });
      console.log(r.changed ? `granted superadmin to ${r.email} (user ${r.userId})` : `${r.email} already is a superadmin`);
    } else {
      const r = await revokeSuperadmin(deps, { email, by });
      console.log(r.changed ? `revoked superadmin from ${r.email} (user ${r.userId})` : `${r.email} was not a superadmin`);
    }
    return 0;
  } catch (err) {
    if (err instanceof DomainError && err.code === 'NOT_FOUND') {
      console.error(`${err.message}; register the account first, then grant it`);
      return 1;
    }
    throw err;
  } finally {
    await eventStore.close();
  }
}

function operatorName(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}

runCli(main);
