import { randomUUID } from 'node:crypto';
import { notificationPreferencesDecider, notificationPreferencesStream } from '../../domain/accounts/notifications/decider.js';
import type { NotificationPreferences } from '../../domain/accounts/notifications/events.js';
import { notificationSentStream, type NotificationSentEvent } from '../../domain/accounts/notifications/sent/events.js';
import type { NotificationPreferencesState } from '../../domain/accounts/notifications/state.js';
import { WrongExpectedRevisionError, EventIdConflictError } from '../../ports/errors.js';
import { teamDecider, teamStream } from '../../domain/accounts/team/decider.js';
import { deterministicId } from '../hashing.js';
import { legacyOwnerOf } from './membership.js';
import { handleCommand, loadState } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';

/** A teammate's email notification choices (the defaults until they choose), from their own stream. */
export async function loadNotificationPreferences(deps: Pick<CommandDeps, 'eventStore'>, userId: string): Promise<NotificationPreferencesState> {
  return (await loadState(deps.eventStore, notificationPreferencesStream(userId), notificationPreferencesDecider)).state;
}

/** The caller sets their own choices (any role: these are nobody else's). */
export async function setNotificationPreferences(deps: CommandDeps, actor: { companyId: string; userId: string }, preferences: Partial<NotificationPreferences>) {
  return handleCommand(
    deps.eventStore,
    notificationPreferencesStream(actor.userId),
    notificationPreferencesDecider,
    { type: 'SetNotificationPreferences', userId: actor.userId, preferences, now: deps.clock.now().toISOString() },
    { metadata: { companyId: actor.companyId, actor: `user:${actor.userId}` } },
  );
}

/**
 * Claims one email (a kind, a conversation, the occasion, a teammate) before it is sent: true for the one caller
 * that records it, false when it was recorded before (a redelivered job, another instance). The stream is
 * appended only where none exists, which every event store enforces.
 */
export async function claimNotification(deps: CommandDeps, data: NotificationSentEvent['data'] & { occasion: string }): Promise<boolean> {
  const { occasion, ...event } = data;
  const stream = notificationSentStream(deterministicId(`notification:${event.kind}:${event.conversationId}:${occasion}:${event.userId}`));
  try {
    // A fresh event id: a second claimant must meet the existing stream, never be taken for a retry of the first.
    await deps.eventStore.append(stream, [{ id: randomUUID(), type: 'NotificationEmailed', data: event, metadata: { companyId: event.companyId, actor: 'notifications' } }], 'no_stream');
    return true;
  } catch (err) {
    if (err instanceof WrongExpectedRevisionError || err instanceof EventIdConflictError) return false;
    throw err;
  }
}

/** The company's owners and admins (who hear of a waiting handoff nobody has), from the team's stream. */
export async function companyManagers(deps: Pick<CommandDeps, 'eventStore'>, companyId: string): Promise<string[]> {
  const { state: team } = await loadState(deps.eventStore, teamStream(companyId), teamDecider);
  if (team.status !== 'active') {
    const owner = await legacyOwnerOf(deps, companyId);
    return owner ? [owner] : [];
  }
  return Object.entries(team.members).flatMap(([userId, m]) => (m.status === 'active' && m.role !== 'agent' ? [userId] : []));
}
