import { randomUUID } from 'node:crypto';
import { companyDecider, companyStream } from '../../domain/company/decider.js';
import { creditsDecider, creditsStream } from '../../domain/credits/decider.js';
import { SIGNUP_CREDITS_MICROS } from '../../domain/credits/events.js';
import { DomainError } from '../../domain/errors.js';
import { emailReservationDecider, normalizeEmail } from '../../domain/accounts/emailReservation/decider.js';
import { teamDecider, teamStream } from '../../domain/accounts/team/decider.js';
import { userDecider, userStream } from '../../domain/accounts/user/decider.js';
import { sequenceDecider, sequenceStream } from '../../domain/sequence/decider.js';
import { handleCommand } from '../handleCommand.js';
import { sha256Hex } from '../hashing.js';
import type { AuthDeps } from '../deps.js';

export const emailStream = (email: string) => `email-${sha256Hex(normalizeEmail(email))}`;

export interface RegisterInput {
  email: string;
  password: string;
  companyName: string;
}

export interface Registered {
  user: { id: string; email: string };
  company: { id: number; companyId: string; companyName: string };
  position: bigint | null;
}

const creationFailed = () => new DomainError('USER_CREATION_FAILED', 'Registration failed');

/**
 * Registration spans several streams. The email reservation (appended with "no stream") is the
 * uniqueness guard and comes first; RegistrationCompleted on it comes last, so login only trusts an
 * email whose registration finished. A failure in between releases the reservation.
 */
export async function registerCompany(deps: AuthDeps, input: RegisterInput): Promise<Registered> {
  const email = normalizeEmail(input.email);
  const userId = randomUUID();
  const companyId = randomUUID();
  const now = deps.clock.now().toISOString();
  const passwordHash = await deps.hasher.hash(input.password);
  const guard = emailStream(email);

  try {
    await handleCommand(deps.eventStore, guard, emailReservationDecider, { type: 'ReserveEmail', userId, now }, { maxRetries: 0 });
  } catch (err) {
    deps.logger.info({ err: errorName(err) }, 'registration refused: email reservation failed');
    throw creationFailed();
  }

  try {
    const metadata = { companyId, actor: `user:${userId}` };
    const seq = await handleCommand(deps.eventStore, sequenceStream('companies'), sequenceDecider, { reservedFor: companyId }, { maxRetries: 20, metadata });
    const companyKey = seq.state.last;
    await handleCommand(
      deps.eventStore,
      companyStream(companyId),
      companyDecider,
      {
        type: 'RegisterCompany',
        companyId,
        companyKey,
        name: input.companyName.trim(),
        ownerUserId: userId,
        now,
        pipelineId: randomUUID(),
        stageIds: Array.from({ length: 6 }, () => randomUUID()),
      },
      { metadata },
    );
    await handleCommand(
      deps.eventStore,
      teamStream(companyId),
      teamDecider,
      { type: 'JoinTeam', userId, email, name: null, role: 'owner', now, invitationId: null },
      { metadata },
    );
    await handleCommand(
      deps.eventStore,
      userStream(userId),
      userDecider,
      { type: 'RegisterUser', userId, email, passwordHash, companyId, companyKey, createdAt: now },
      { metadata },
    );
    const credits = await handleCommand(
      deps.eventStore,
      creditsStream(companyId),
      creditsDecider,
      { type: 'GrantCredits', amountMicros: SIGNUP_CREDITS_MICROS, reason: 'Free credits for a new account', grantedBy: null, now },
      { metadata },
    );
    const done = await handleCommand(deps.eventStore, guard, emailReservationDecider, { type: 'CompleteRegistration', userId, companyId }, { metadata });
    return {
      user: { id: userId, email },
      company: { id: companyKey, companyId, companyName: input.companyName.trim() },
      position: maxPosition(credits.position, done.position),
    };
  } catch (err) {
    deps.logger.error({ err }, 'registration failed after the email was reserved; releasing it');
    await handleCommand(deps.eventStore, guard, emailReservationDecider, { type: 'ReleaseEmail', userId }).catch((releaseErr) =>
      deps.logger.error({ err: releaseErr }, 'could not release the email reservation; it frees itself once stale'),
    );
    throw creationFailed();
  }
}

const errorName = (err: unknown) => (err instanceof Error ? err.name : 'unknown');
const maxPosition = (a: bigint | null, b: bigint | null) => (a === null ? b : b === null ? a : a > b ? a : b);
