import { randomUUID } from 'node:crypto';
import { emailReservationDecider, normalizeEmail } from '../../domain/accounts/emailReservation/decider.js';
import { invitationDecider, invitationNotFound, invitationStream, invitationUnusable, invitingRefused } from '../../domain/accounts/invitation/decider.js';
import { teamDecider, teamStream, type Actor } from '../../domain/accounts/team/decider.js';
import { roles, type Role } from '../../domain/accounts/team/events.js';
import { userDecider, userStream } from '../../domain/accounts/user/decider.js';
import { companyDecider, companyStream } from '../../domain/company/decider.js';
import { DomainError } from '../../domain/errors.js';
import { handleCommand, loadState } from '../handleCommand.js';
import { constantTimeEqualHex, randomSecret, sha256Hex } from '../hashing.js';
import type { AuthDeps, CommandDeps } from '../deps.js';
import { legacyOwnerOf, memberRole } from './membership.js';
import { emailStream } from './registerCompany.js';
import { findRegisteredUser, startLogin } from './logins.js';
import { drain, later, type TeammateRecords } from './teammateRecords.js';

/** `<invitationId>.<secret>`: the id finds the invitation's stream, only the secret's hash is stored. */
const splitInvitationToken = (token: string) => {
  const m = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  return m ? { invitationId: m[1]!, secret: m[2]! } : null;
};

const emailTaken = () => new DomainError('EMAIL_TAKEN', 'This email already has an account');
const forbidden = (message: string) => new DomainError('FORBIDDEN', message);

export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

export async function inviteTeammate(
  deps: CommandDeps & { invitationTtlMs: number },
  input: { actor: Actor; companyId: string; email: string; role: Role },
): Promise<{ token: string; invitation: InvitationView; position: bigint | null }> {
  const refused = invitingRefused(input.actor.role, input.role);
  if (refused) throw forbidden(refused);
  const email = normalizeEmail(input.email);
  // Checked again when the invitation is accepted (the email may register in between).
  if (await findRegisteredUser(deps, email)) throw emailTaken();
  const invitationId = randomUUID();
  const secret = randomSecret();
  const now = deps.clock.now();
  const data = {
    invitationId,
    companyId: input.companyId,
    email,
    role: input.role,
    tokenHash: sha256Hex(secret),
    invitedBy: input.actor.userId,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + deps.invitationTtlMs).toISOString(),
  };
  const result = await handleCommand(deps.eventStore, invitationStream(invitationId), invitationDecider, { type: 'CreateInvitation', ...data }, {
    metadata: { companyId: input.companyId, actor: `user:${input.actor.userId}` },
  });
  return {
    token: `${invitationId}.${secret}`,
    invitation: { id: invitationId, email, role: input.role, invitedBy: input.actor.userId, createdAt: data.createdAt, expiresAt: data.expiresAt },
    position: result.position,
  };
}

export async function revokeInvitation(deps: CommandDeps, input: { actor: Actor; companyId: string; invitationId: string }) {
  if (input.actor.role === 'agent') throw forbidden('Only owners and admins can revoke invitations');
  const result = await handleCommand(
    deps.eventStore,
    invitationStream(input.invitationId),
    invitationDecider,
    { type: 'RevokeInvitation', companyId: input.companyId, by: input.actor.userId, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `user:${input.actor.userId}` } },
  );
  return { position: result.position };
}

/** What the accept page shows before the invitee chooses a password. Same errors as accepting. */
export async function previewInvitation(deps: CommandDeps, token: string) {
  const { state } = await usableInvitation(deps, token);
  const { state: company } = await loadState(deps.eventStore, companyStream(state.companyId), companyDecider);
  return { email: state.email, role: state.role, companyName: company.exists ? company.name : '', expiresAt: state.expiresAt };
}

/**
 * The invitation the token opens, checked as accepting checks it, with its inviter's current role (the team
 * stream's, strongly consistent: a removal or demotion of the inviter applies to the very next use).
 */
async function usableInvitation(deps: CommandDeps, token: string) {
  const parts = splitInvitationToken(token);
  if (!parts) throw invitationNotFound();
  const tokenHash = sha256Hex(parts.secret);
  const { state } = await loadState(deps.eventStore, invitationStream(parts.invitationId), invitationDecider);
  const inviterRole = state.status === 'none' ? null : await memberRole(deps, state.companyId, state.invitedBy);
  const unusable = invitationUnusable(state, { tokenHash, now: deps.clock.now().toISOString(), hashesEqual: constantTimeEqualHex, inviterRole });
  if (unusable || state.status === 'none') throw unusable ?? invitationNotFound();
  return { state, tokenHash, invitationId: parts.invitationId };
}

/**
 * Accepting spans streams like registration: the email is reserved first (409 when it has an account),
 * then the invitation is consumed (appended with the revision it was read at: of two concurrent accepts
 * exactly one gets past here, the other gets 410), then the team membership, the user, and last the
 * email's RegistrationCompleted, after which login trusts the email. A failure before the invitation is
 * consumed releases the email; after it, the member is removed again so no half-made teammate remains.
 */
export async function acceptInvitation(deps: AuthDeps, input: { token: string; name: string; password: string }) {
  const { state: invitation, tokenHash, invitationId } = await usableInvitation(deps, input.token);
  const { companyId, email, role } = invitation;
  const userId = randomUUID();
  const now = deps.clock.now().toISOString();
  const passwordHash = await deps.hasher.hash(input.password);
  const metadata = { companyId, actor: `user:${userId}` };
  const guard = emailStream(email);

  try {
    await handleCommand(deps.eventStore, guard, emailReservationDecider, { type: 'ReserveEmail', userId, now }, { maxRetries: 0 });
  } catch (err) {
    if (err instanceof DomainError) throw emailTaken();
    throw err;
  }
  const releaseEmail = () =>
    handleCommand(deps.eventStore, guard, emailReservationDecider, { type: 'ReleaseEmail', userId }).catch((err) =>
      deps.logger.error({ err }, 'could not release the email reservation; it frees itself once stale'),
    );
  try {
    // The inviter's role once more, read after the password hash (which may have queued): the latest word.
    const inviterRole = await memberRole(deps, companyId, invitation.invitedBy);
    await handleCommand(deps.eventStore, invitationStream(invitationId), invitationDecider, { type: 'AcceptInvitation', tokenHash, userId, now, inviterRole }, { metadata, maxRetries: 5 });
  } catch (err) {
    await releaseEmail();
    throw err;
  }

  let joined = false;
  try {
    const legacyOwnerUserId = await legacyOwnerOf(deps, companyId);
    const legacyOwner = legacyOwnerUserId ? await loadState(deps.eventStore, userStream(legacyOwnerUserId), userDecider) : null;
    await handleCommand(
      deps.eventStore,
      teamStream(companyId),
      teamDecider,
      {
        type: 'JoinTeam',
        userId,
        email,
        name: input.name,
        role,
        now,
        invitationId,
        legacyOwner: legacyOwner?.state.status === 'active' ? { userId: legacyOwner.state.userId, email: legacyOwner.state.email } : undefined,
      },
      { metadata, maxRetries: 10 },
    );
    joined = true;
    const { state: company } = await loadState(deps.eventStore, companyStream(companyId), companyDecider);
    if (!company.exists) throw new Error('the invitation names a company that does not exist');
    await handleCommand(
      deps.eventStore,
      userStream(userId),
      userDecider,
      { type: 'RegisterUser', userId, email, passwordHash, companyId, companyKey: company.companyKey, createdAt: now },
      { metadata },
    );
    await handleCommand(deps.eventStore, guard, emailReservationDecider, { type: 'CompleteRegistration', userId, companyId }, { metadata });
    return await startLogin(deps, { userId, companyId, companyKey: company.companyKey, email });
  } catch (err) {
    deps.logger.error({ err, invitationId }, 'accepting an invitation failed after it was consumed; undoing the membership');
    if (joined) {
      await handleCommand(deps.eventStore, teamStream(companyId), teamDecider, {
        type: 'RemoveMember',
        actor: { userId, role: 'owner' },
        userId,
        now,
        legacyOwnerUserId: '',
      }).catch((undoErr) => deps.logger.error({ err: undoErr, userId }, 'could not undo the half-made membership'));
    }
    await releaseEmail();
    throw new DomainError('INTERNAL_ERROR', 'Accepting the invitation failed');
  }
}

/**
 * Changes a teammate's role. Their power follows at once (every check reads the team's stream); a demotion then
 * also revokes the pending invitations they could no longer send (an agent's all, an admin's owner invitations),
 * so the pending list says what accepting would.
 */
export async function changeTeammateRole(
  deps: CommandDeps,
  records: Pick<TeammateRecords, 'pendingInvitations' | 'caughtUp'>,
  input: { actor: Actor; companyId: string; userId: string; role: Role },
) {
  const result = await handleCommand(
    deps.eventStore,
    teamStream(input.companyId),
    teamDecider,
    { type: 'ChangeRole', actor: input.actor, userId: input.userId, role: input.role, now: deps.clock.now().toISOString(), legacyOwnerUserId: (await legacyOwnerOf(deps, input.companyId)) ?? '' },
    { metadata: { companyId: input.companyId, actor: `user:${input.actor.userId}` }, maxRetries: 10 },
  );
  if (result.events.length === 0) return { position: result.position };
  await records.caughtUp(result.position);
  const { companyId, userId, actor } = input;
  const beyond = roles.filter((r) => invitingRefused(input.role, r) !== null);
  let position = result.position;
  // All of their invitations in one query when none is left, else one query per role they lost.
  for (const role of beyond.length === roles.length ? [undefined] : beyond) {
    const revoked = await drain(deps, records.caughtUp, 'invitations', (limit) => records.pendingInvitations(companyId, userId, limit, role), (invitationId) =>
      revokeInvitation(deps, { actor, companyId, invitationId }),
    );
    position = later(position, revoked);
  }
  return { position };
}
