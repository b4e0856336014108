import { claimNotification, companyManagers, loadNotificationPreferences } from '../../commands/accounts/notifications.js';
import { loadUser } from '../../commands/accounts/streamReads.js';
import type { CommandDeps } from '../../commands/deps.js';
import { loadState } from '../../commands/handleCommand.js';
import { conversationDecider, conversationStream } from '../../domain/conversations/decider.js';
import { customerDisplayName } from '../../domain/conversations/state.js';
import type { Bus, BusSubscription } from '../../ports/bus.js';
import type { Mailer } from '../../ports/mailer.js';
import type { ReadStore } from '../../ports/readStore.js';
import type { ConversationDoc } from '../../projections/conversations/conversationsProjection.js';
import { longestWaitingHandoffs } from '../../projections/conversations/waitingHandoffs.js';
import { NOTIFY_ASSIGNED, notifyAssignedJob, type NotifyAssignedJob } from './notificationJobs.js';
import { startTimedSweep, sweepOnce, type TimedSweep } from '../../processing/timedSweep.js';

export interface NotificationDeps extends CommandDeps {
  bus: Bus;
  readStore: ReadStore;
  mailer: Mailer;
  /** Where the dashboard is, for the link in each email. */
  dashboardUrl: string;
  /** How often waiting handoffs are looked for. */
  sweepIntervalMs: number;
}

/**
 * Email notifications: to the assignee when someone else assigns them a conversation (a job per
 * ConversationAssigned), and when a handed-off conversation waits longer than a teammate's chosen time (a
 * periodic sweep of the "Needs human" queue, longest waiting first). Each teammate's own preferences decide;
 * each email is claimed on its own stream before it is sent, so it goes once whatever the redeliveries and
 * instances. Emails name the customer and link to the conversation; they never carry message text.
 */
export async function startNotifications(deps: NotificationDeps): Promise<{ stop(): Promise<void> }> {
  const subscription: BusSubscription = await deps.bus.subscribe<NotifyAssignedJob>(NOTIFY_ASSIGNED, { durable: 'notifications', concurrency: 4, maxDeliver: 3 }, async (message) => {
    await notifyAssigned(deps, notifyAssignedJob.parse(message.data));
  });
  return { stop: () => subscription.stop() };
}

/**
 * The waiting-handoffs sweep, apart from the assignment emails: the emails are competing consumers of the bus on
 * every processor, the sweep a timed duty one processor holds at a time (its lease, src/processing/processor.ts).
 */
export function startWaitingHandoffsSweep(deps: NotificationDeps): { stop(): Promise<void> } {
  return startTimedSweep(waitingHandoffsSweep(deps));
}

export async function notifyAssigned(deps: NotificationDeps, job: NotifyAssignedJob): Promise<void> {
  // Taking a conversation yourself needs no email.
  if (job.by === `user:${job.assigneeId}`) return;
  const preferences = await loadNotificationPreferences(deps, job.assigneeId);
  if (!preferences.assigned) return;
  const { state } = await loadState(deps.eventStore, conversationStream(job.conversationId), conversationDecider);
  if (!state.customer || !state.integrationId) return;
  const customer = customerDisplayName(state.integrationId, state.customer);
  await email(deps, { kind: 'assigned', userId: job.assigneeId, companyId: job.companyId, conversationId: job.conversationId, occasion: job.eventId }, {
    subject: `A conversation with ${customer} was assigned to you`,
    text: `A conversation with ${customer} was assigned to you.\n\nOpen it: ${conversationLink(deps, job.conversationId)}\n\nYou can change which emails you get under Settings → Notifications.`,
  });
}

/**
 * The timed pass over the handoffs waiting at least a minute (the shortest time a teammate may choose), longest
 * waiting first. A handoff whose every recipient is settled (emailed, or opted out) is skipped by later passes.
 */
function waitingHandoffsSweep(deps: NotificationDeps): TimedSweep<ConversationDoc> {
  return {
    name: 'the waiting-handoff notification sweep',
    intervalMs: deps.sweepIntervalMs,
    logger: deps.logger,
    now: () => deps.clock.now().getTime(),
    page: (limit, cursor) => longestWaitingHandoffs(deps.readStore, limit, cursor),
    due: (doc, now) => doc.handoffSince !== null && Date.parse(doc.handoffSince) <= now - 60_000,
    key: (doc) => `${doc.id}:${doc.handoffSince}`,
    companyOf: (doc) => doc.companyId,
    handle: async (doc, now) => ((await notifyWaiting(deps, doc, doc.handoffSince!, now)) ? 'settled' : 'again'),
  };
}

/** One pass, as the timer runs it. */
export const sweepWaitingHandoffs = (deps: NotificationDeps, settled?: Set<string>) => sweepOnce(waitingHandoffsSweep(deps), settled);

/** Emails each recipient whose waiting time has passed; true when none is left to email for this handoff. */
async function notifyWaiting(deps: NotificationDeps, doc: ConversationDoc, since: string, now: number): Promise<boolean> {
  const recipients = doc.assigneeId ? [doc.assigneeId] : await companyManagers(deps, doc.companyId);
  const waitedMinutes = Math.floor((now - Date.parse(since)) / 60_000);
  let pending = false;
  for (const userId of recipients) {
    const preferences = await loadNotificationPreferences(deps, userId);
    if (!preferences.handoffWaiting) continue;
    if (waitedMinutes < preferences.handoffWaitingMinutes) {
      pending = true;
      continue;
    }
    const customer = doc.customerName ?? 'a customer';
    await email(deps, { kind: 'handoff_waiting', userId, companyId: doc.companyId, conversationId: doc.id, occasion: since }, {
      subject: `${customer} has waited ${waitedMinutes} minutes for a person`,
      text:
        `${customer} has waited ${waitedMinutes} minutes for someone from your team` +
        `${doc.assigneeId ? ' (the conversation is assigned to you)' : ' (nobody has taken the conversation yet)'}.\n\n` +
        `Open it: ${conversationLink(deps, doc.id)}\n\nYou can change which emails you get under Settings → Notifications.`,
    });
  }
  return !pending;
}

type Claim = Omit<Parameters<typeof claimNotification>[1], 'at'>;

/** Claims the email, then sends it to the teammate's address; a failed send is logged, not retried. */
async function email(deps: NotificationDeps, claim: Claim, message: { subject: string; text: string }): Promise<void> {
  const user = await loadUser(deps.eventStore, claim.userId);
  if (!user || user.companyId !== claim.companyId) return;
  if (!(await claimNotification(deps, { ...claim, at: deps.clock.now().toISOString() }))) return;
  try {
    await deps.mailer.send({ to: user.email, ...message });
    deps.logger.info({ kind: claim.kind, userId: claim.userId, conversationId: claim.conversationId }, 'notification emailed');
  } catch (err) {
    deps.logger.warn({ err, kind: claim.kind, userId: claim.userId, conversationId: claim.conversationId }, 'a notification email could not be sent');
  }
}

const conversationLink = (deps: NotificationDeps, conversationId: string) => `${deps.dashboardUrl.replace(/\/$/, '')}/#/conversations/${conversationId}`;
