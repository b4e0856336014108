import { normalizeEmail } from '../../domain/accounts/emailReservation/decider.js';
import { userDecider, userStream } from '../../domain/accounts/user/decider.js';
import { DomainError } from '../../domain/errors.js';
import { handleCommand } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';
import { findRegisteredUser } from './logins.js';

export interface SuperadminChange {
  email: string;
  /** Who ran the command, recorded in the event (e.g. `cli:alice`). */
  by: string;
}

export interface SuperadminResult {
  userId: string;
  email: string;
  /** false when the account already was (or was not) a superadmin. */
  changed: boolean;
}

/**
 * Operator commands, run on the server (`npm run superadmin -- grant|revoke <email>`), never exposed over
 * HTTP: registration is unverified, so nothing a caller can do there may make a superadmin. They apply to
 * an existing account only, so an email cannot be pre-authorised for whoever registers it first.
 */
export const grantSuperadmin = (deps: CommandDeps, input: SuperadminChange) => change(deps, input, 'GrantSuperadmin');
export const revokeSuperadmin = (deps: CommandDeps, input: SuperadminChange) => change(deps, input, 'RevokeSuperadmin');

async function change(deps: CommandDeps, input: SuperadminChange, type: 'GrantSuperadmin' | 'RevokeSuperadmin'): Promise<SuperadminResult> {
  const email = normalizeEmail(input.email);
  const user = await findRegisteredUser(deps, email);
  if (!user) throw new DomainError('NOT_FOUND', `There is no account with the email ${email}`);
  const result = await handleCommand(
    deps.eventStore,
    userStream(user.userId),
    userDecider,
    { type, by: input.by, now: deps.clock.now().toISOString() },
    { metadata: { companyId: user.companyId, actor: `operator:${input.by}` } },
  );
  deps.logger.info({ userId: user.userId, by: input.by, changed: result.events.length > 0 }, `${type === 'GrantSuperadmin' ? 'superadmin granted' : 'superadmin revoked'}`);
  return { userId: user.userId, email: user.email, changed: result.events.length > 0 };
}
