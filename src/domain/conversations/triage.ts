import { z } from 'zod';
import { DomainError } from '../errors.js';

/**
 * Triage: how urgent a conversation is (its priority) and whether it is put aside until later (snoozed). Kept in
 * its own module, like action calls: events.ts spreads `triageEvents`, state.ts folds them with `evolveTriage`,
 * decider.ts dispatches `triageDecisions`.
 *
 * A snoozed conversation leaves the open queues (Mine, Unassigned, Needs human) until it wakes: at its time (the
 * snooze sweep, src/workers/snoozes/snoozeWake.ts, on the processor's clock), when the customer writes again (recorded in
 * the same append as their message), or when a teammate ends the snooze. Priority is what SLA targets key on.
 */

const at = z.iso.datetime();

export const PRIORITIES = ['urgent', 'high', 'normal', 'low'] as const;
export const priority = z.enum(PRIORITIES);
export type Priority = z.infer<typeof priority>;
/** A conversation nobody prioritised (and every conversation stored before priorities). */
export const DEFAULT_PRIORITY: Priority = 'normal';

/** Why a snooze ended: its time came, the customer wrote, or a teammate ended it. */
export const wakeReason = z.enum(['time', 'customer_message', 'teammate']);
export type WakeReason = z.infer<typeof wakeReason>;

/** The longest snooze: a year (a date further out is a typo, not a plan). */
export const MAX_SNOOZE_MS = 366 * 86_400_000;

export const triageEvents = {
  ConversationPrioritized: z.object({ priority, previousPriority: priority, by: z.string().max(100), at }),
  ConversationSnoozed: z.object({ until: at, by: z.string().max(100), at }),
  /** `by`: the teammate who ended it (reason teammate), else null. */
  ConversationWoke: z.object({ reason: wakeReason, snoozedUntil: at, by: z.string().max(100).nullable(), at }),
};
export type TriageEventType = keyof typeof triageEvents;
type TriageEvent = { [K in TriageEventType]: { type: K; data: z.infer<(typeof triageEvents)[K]> } }[TriageEventType];

export interface TriageState {
  /** Absent on states folded before priorities: DEFAULT_PRIORITY. */
  priority?: Priority;
  /** Until when the conversation is snoozed; null or absent: it is not. */
  snoozedUntil?: string | null;
}

export function evolveTriage<S extends TriageState>(state: S, event: TriageEvent): S {
  switch (event.type) {
    case 'ConversationPrioritized':
      return { ...state, priority: event.data.priority };
    case 'ConversationSnoozed':
      return { ...state, snoozedUntil: event.data.until };
    case 'ConversationWoke':
      return { ...state, snoozedUntil: null };
  }
}

export type TriageCommand =
  | { type: 'SetPriority'; priority: Priority; by: string; now: string }
  | { type: 'SnoozeConversation'; until: string; by: string; now: string }
  /** `by` null: the snooze sweep, which wakes it only once its time has come. */
  | { type: 'WakeConversation'; by: string | null; now: string };

interface Conversation extends TriageState {
  exists: boolean;
  session: { state: 'active' | 'paused' | 'closed' } | null;
}

const notFound = () => new DomainError('NOT_FOUND', 'Conversation not found');
export const priorityOf = (state: TriageState): Priority => state.priority ?? DEFAULT_PRIORITY;

export const decideSetPriority = (command: Extract<TriageCommand, { type: 'SetPriority' }>, state: Conversation): TriageEvent[] => {
  if (!state.exists) throw notFound();
  const previousPriority = priorityOf(state);
  if (previousPriority === command.priority) return [];
  return [{ type: 'ConversationPrioritized', data: { priority: command.priority, previousPriority, by: command.by, at: command.now } }];
};

export const decideSnoozeConversation = (command: Extract<TriageCommand, { type: 'SnoozeConversation' }>, state: Conversation): TriageEvent[] => {
  if (!state.exists) throw notFound();
  // A resolved conversation is in no queue: there is nothing to put aside.
  if (state.session?.state === 'closed') throw new DomainError('INVALID_STATE', 'A resolved conversation cannot be snoozed; reopen it first');
  const until = Date.parse(command.until);
  const now = Date.parse(command.now);
  if (!(until > now)) throw new DomainError('VALIDATION_ERROR', 'until: a time in the future');
  if (until - now > MAX_SNOOZE_MS) throw new DomainError('VALIDATION_ERROR', 'until: at most a year ahead');
  const iso = new Date(until).toISOString();
  if (state.snoozedUntil === iso) return [];
  return [{ type: 'ConversationSnoozed', data: { until: iso, by: command.by, at: command.now } }];
};

export const decideWakeConversation = (command: Extract<TriageCommand, { type: 'WakeConversation' }>, state: Conversation): TriageEvent[] => {
  if (!state.exists) throw notFound();
  const snoozedUntil = state.snoozedUntil;
  if (!snoozedUntil) return [];
  // The sweep wakes it only once its time has come (a snooze moved later meanwhile waits on).
  if (command.by === null && Date.parse(snoozedUntil) > Date.parse(command.now)) return [];
  return [{ type: 'ConversationWoke', data: { reason: command.by === null ? 'time' : 'teammate', snoozedUntil, by: command.by, at: command.now } }];
};

/** A customer writing to a snoozed conversation brings it back: recorded with their message. */
export function wokenByCustomer(state: TriageState, now: string): TriageEvent[] {
  return state.snoozedUntil ? [{ type: 'ConversationWoke', data: { reason: 'customer_message', snoozedUntil: state.snoozedUntil, by: null, at: now } }] : [];
}

export const triageDecisions = {
  SetPriority: decideSetPriority,
  SnoozeConversation: decideSnoozeConversation,
  WakeConversation: decideWakeConversation,
};
