import type { SlaPolicy } from '../company/slaPolicy/events.js';
import type { BusinessHours } from '../company/businessHours/events.js';
import { addBusinessMinutes } from '../company/businessHours/schedule.js';
import type { ConversationEvent } from './events.js';
import { evolveHandoff, noHandoff, type HandoffTrack } from './state.js';
import { DEFAULT_PRIORITY, type Priority } from './triage.js';

/**
 * A conversation's SLA clocks, folded from its events (constant size and cost per event, whatever its length).
 * They measure people's work, not the AI's:
 *
 * - a **response** clock starts when a customer begins to wait for people: the conversation is handed off (its
 *   handoff's `since`: the customer's oldest unanswered message), or the customer writes while people have it
 *   (the AI paused). It is a *first* response until a teammate has answered in the conversation, then a *next*
 *   one. A teammate's message (dashboard or platform) stops it: met or breached.
 * - the **resolution** clock starts with the first wait for people in a session (or a teammate stepping in),
 *   and stops when the conversation is resolved (closed): met or breached.
 *
 * The AI taking the conversation back (resumed) stops both without an outcome. A snooze does not stop them.
 */
export interface SlaClock {
  priority: Priority;
  track: HandoffTrack;
  /** The AI session is paused: people have the conversation. */
  withPeople: boolean;
  /** A teammate has answered in this conversation (the next response clock is a "next" one). */
  teammateAnswered: boolean;
  responseSince: string | null;
  responseKind: SlaKind | null;
  resolutionSince: string | null;
}

export type SlaKind = 'firstResponse' | 'nextResponse' | 'resolution';
export const SLA_KINDS: readonly SlaKind[] = ['firstResponse', 'nextResponse', 'resolution'];

/** A clock that stopped on a target: when it started, when it stopped. */
export interface SlaOutcome {
  kind: SlaKind;
  since: string;
  at: string;
}

export const initialSlaClock: SlaClock = { priority: DEFAULT_PRIORITY, track: noHandoff, withPeople: false, teammateAnswered: false, responseSince: null, responseKind: null, resolutionSince: null };

const startResponse = (clock: SlaClock, since: string): SlaClock =>
  clock.responseSince ? clock : { ...clock, responseSince: since, responseKind: clock.teammateAnswered ? 'nextResponse' : 'firstResponse', resolutionSince: clock.resolutionSince ?? since };

/** The next clock, and the outcome of a clock this event stopped (null: none). */
export function evolveSlaClock(clock: SlaClock, event: Pick<ConversationEvent, 'type' | 'data'>): { clock: SlaClock; outcomes: SlaOutcome[] } {
  const e = event as ConversationEvent;
  const track = evolveHandoff(clock.track, e);
  let next: SlaClock = { ...clock, track };
  const outcomes: SlaOutcome[] = [];
  if (track.handoff && !clock.track.handoff) next = startResponse(next, track.handoff.since);
  switch (e.type) {
    case 'ConversationPrioritized':
      next = { ...next, priority: e.data.priority };
      break;
    case 'AiSessionPaused':
      next = { ...next, withPeople: true };
      break;
    case 'AiSessionOpened':
    case 'ConversationReopened':
      next = { ...next, withPeople: false };
      break;
    case 'MessageReceived':
      if (next.withPeople) next = startResponse(next, e.data.at);
      break;
    case 'OperatorMessageSent':
    case 'OperatorMessageRecorded':
      if (next.responseSince && next.responseKind) outcomes.push({ kind: next.responseKind, since: next.responseSince, at: e.data.at });
      next = { ...next, responseSince: null, responseKind: null, teammateAnswered: true, resolutionSince: next.resolutionSince ?? e.data.at };
      break;
    case 'AiSessionResumed':
      next = { ...next, withPeople: false, responseSince: null, responseKind: null, resolutionSince: null };
      break;
    case 'AiSessionClosed':
      if (next.resolutionSince) outcomes.push({ kind: 'resolution', since: next.resolutionSince, at: e.data.at });
      next = { ...next, withPeople: false, responseSince: null, responseKind: null, resolutionSince: null };
      break;
    default:
      break;
  }
  return { clock: next, outcomes };
}

/** Where the company's clocks count: its policy, business hours and timezone. */
export interface SlaSettings {
  policy: SlaPolicy | null;
  hours: BusinessHours | null;
  timezone: string;
}

const minutesFor = (settings: SlaSettings, priority: Priority, kind: SlaKind): number | null => {
  if (!settings.policy?.enabled) return null;
  const t = settings.policy.targets[priority];
  return kind === 'firstResponse' ? t.firstResponseMinutes : kind === 'nextResponse' ? t.nextResponseMinutes : t.resolutionMinutes;
};

/** When a clock started at `since` is due, in business minutes; null when its target is not measured. */
export function slaDueAt(settings: SlaSettings, priority: Priority, kind: SlaKind, since: string): string | null {
  const minutes = minutesFor(settings, priority, kind);
  if (minutes === null) return null;
  return addBusinessMinutes(settings.hours, settings.timezone, new Date(since), minutes)?.toISOString() ?? null;
}

/** The running clocks' due times (what the inbox shows as "due in" / "overdue"). */
export function runningDue(settings: SlaSettings, clock: SlaClock): { response: { kind: SlaKind; dueAt: string } | null; resolution: { dueAt: string } | null } {
  const responseDue = clock.responseSince && clock.responseKind ? slaDueAt(settings, clock.priority, clock.responseKind, clock.responseSince) : null;
  const resolutionDue = clock.resolutionSince ? slaDueAt(settings, clock.priority, 'resolution', clock.resolutionSince) : null;
  return {
    response: responseDue && clock.responseKind ? { kind: clock.responseKind, dueAt: responseDue } : null,
    resolution: resolutionDue ? { dueAt: resolutionDue } : null,
  };
}

/** Whether a stopped clock met its target (null: not measured). */
export function outcomeBreached(settings: SlaSettings, priority: Priority, outcome: SlaOutcome): boolean | null {
  const due = slaDueAt(settings, priority, outcome.kind, outcome.since);
  return due === null ? null : Date.parse(outcome.at) > Date.parse(due);
}
