import { describe, expect, it } from 'vitest';
import type { ConversationEvent } from '../../../../src/domain/conversations/events.js';
import { evolveSlaClock, initialSlaClock, outcomeBreached, runningDue, type SlaClock, type SlaOutcome, type SlaSettings } from '../../../../src/domain/conversations/slaClock.js';
import { addBusinessMinutes } from '../../../../src/domain/company/businessHours/schedule.js';
import type { BusinessHours } from '../../../../src/domain/company/businessHours/events.js';

const S1 = '51515151-5151-4515-8515-515151515151';
const M1 = '11111111-1111-4111-8111-111111111111';
const M2 = '22222222-2222-4222-8222-222222222222';
const R1 = '33333333-3333-4333-8333-333333333333';
const O1 = '44444444-4444-4444-8444-444444444444';
const at = (hh: string) => `2026-01-05T${hh}:00.000Z`; // a Monday

const received = (messageId: string, t: string): ConversationEvent => ({ type: 'MessageReceived', data: { messageId, dedupeKey: `msg:${messageId}`, dedupeUntil: null, text: 'hi', platform: {}, at: t } });
const handoff: ConversationEvent[] = [
  { type: 'AgentReplied', data: { messageId: R1, sessionId: S1, agentId: null, text: 'A colleague will answer.', inReplyTo: [M1], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: true, at: at('09:05') } },
  { type: 'AiSessionPaused', data: { sessionId: S1, reason: 'handoff', by: null, at: at('09:05') } },
];
const operator = (t: string): ConversationEvent => ({ type: 'OperatorMessageSent', data: { messageId: O1, text: 'On it', by: 'user:ann', at: t } });
const closed = (t: string): ConversationEvent => ({ type: 'AiSessionClosed', data: { sessionId: S1, reason: 'api', action: 'session_close', by: 'user:ann', at: t } });

function fold(events: ConversationEvent[]): { clock: SlaClock; outcomes: SlaOutcome[] } {
  let clock = initialSlaClock;
  const outcomes: SlaOutcome[] = [];
  for (const e of events) {
    const r = evolveSlaClock(clock, e);
    clock = r.clock;
    outcomes.push(...r.outcomes);
  }
  return { clock, outcomes };
}

const opened: ConversationEvent = { type: 'AiSessionOpened', data: { sessionId: S1, at: at('09:00') } };
const nineToFive: BusinessHours = {
  enabled: true,
  weekly: { monday: [{ from: '09:00', to: '17:00' }], tuesday: [{ from: '09:00', to: '17:00' }], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] },
  holidays: [],
};
const settings = (hours: BusinessHours | null): SlaSettings => ({
  hours,
  timezone: 'UTC',
  policy: {
    enabled: true,
    targets: {
      urgent: { firstResponseMinutes: 15, nextResponseMinutes: 10, resolutionMinutes: 60 },
      high: { firstResponseMinutes: 60, nextResponseMinutes: 60, resolutionMinutes: 480 },
      normal: { firstResponseMinutes: 120, nextResponseMinutes: null, resolutionMinutes: null },
      low: { firstResponseMinutes: null, nextResponseMinutes: null, resolutionMinutes: null },
    },
  },
});

describe('SLA clocks', () => {
  it('no clock runs while the AI has the conversation', () => {
    expect(fold([opened, received(M1, at('09:00'))]).clock).toMatchObject({ responseSince: null, resolutionSince: null });
  });

  it('a handoff starts the first-response and resolution clocks from the customer\'s oldest unanswered message; a teammate\'s answer stops the first', () => {
    const waiting = fold([opened, received(M1, at('09:00')), ...handoff]);
    expect(waiting.clock).toMatchObject({ responseSince: at('09:00'), responseKind: 'firstResponse', resolutionSince: at('09:00') });
    const answered = fold([opened, received(M1, at('09:00')), ...handoff, operator(at('09:20'))]);
    expect(answered.outcomes).toEqual([{ kind: 'firstResponse', since: at('09:00'), at: at('09:20') }]);
    expect(answered.clock).toMatchObject({ responseSince: null, teammateAnswered: true, resolutionSince: at('09:00') });
  });

  it('the customer writing again while people have it starts a next-response clock; resolving stops the resolution clock', () => {
    const { outcomes, clock } = fold([opened, received(M1, at('09:00')), ...handoff, operator(at('09:20')), received(M2, at('09:30')), operator(at('09:45')), closed(at('10:30'))]);
    expect(outcomes).toEqual([
      { kind: 'firstResponse', since: at('09:00'), at: at('09:20') },
      { kind: 'nextResponse', since: at('09:30'), at: at('09:45') },
      { kind: 'resolution', since: at('09:00'), at: at('10:30') },
    ]);
    expect(clock).toMatchObject({ responseSince: null, resolutionSince: null });
  });

  it('the AI taking it back stops the clocks without an outcome', () => {
    const { outcomes, clock } = fold([opened, received(M1, at('09:00')), ...handoff, { type: 'AiSessionResumed', data: { sessionId: S1, by: 'user:ann', at: at('09:10') } }]);
    expect(outcomes).toEqual([]);
    expect(clock).toMatchObject({ responseSince: null, resolutionSince: null });
  });

  it('due times follow the priority, and a priority change moves them', () => {
    const { clock } = fold([opened, received(M1, at('09:00')), ...handoff]);
    expect(runningDue(settings(null), clock)).toEqual({ response: { kind: 'firstResponse', dueAt: at('11:00') }, resolution: null });
    const urgent = evolveSlaClock(clock, { type: 'ConversationPrioritized', data: { priority: 'urgent', previousPriority: 'normal', by: 'user:ann', at: at('09:06') } }).clock;
    expect(runningDue(settings(null), urgent)).toEqual({ response: { kind: 'firstResponse', dueAt: at('09:15') }, resolution: { dueAt: at('10:00') } });
  });

  it('met or breached against the target; a target left null is not measured', () => {
    expect(outcomeBreached(settings(null), 'urgent', { kind: 'firstResponse', since: at('09:00'), at: at('09:15') })).toBe(false);
    expect(outcomeBreached(settings(null), 'urgent', { kind: 'firstResponse', since: at('09:00'), at: at('09:16') })).toBe(true);
    expect(outcomeBreached(settings(null), 'low', { kind: 'firstResponse', since: at('09:00'), at: at('23:00') })).toBeNull();
  });

  it('counted in business hours: a wait that starts after closing is due the next opening plus the target', () => {
    expect(addBusinessMinutes(nineToFive, 'UTC', new Date(at('16:50')), 15)?.toISOString()).toBe('2026-01-06T09:05:00.000Z');
    expect(addBusinessMinutes(nineToFive, 'UTC', new Date(at('07:00')), 15)?.toISOString()).toBe(at('09:15'));
    // Tuesday 16:00 + 2 h: one hour on Tuesday, then the next opening is the following Monday.
    expect(addBusinessMinutes(nineToFive, 'UTC', new Date('2026-01-06T16:00:00.000Z'), 120)?.toISOString()).toBe('2026-01-12T10:00:00.000Z');
    expect(addBusinessMinutes(null, 'UTC', new Date(at('16:50')), 15)?.toISOString()).toBe(at('17:05'));
    expect(outcomeBreached(settings(nineToFive), 'urgent', { kind: 'firstResponse', since: at('16:55'), at: '2026-01-06T09:09:00.000Z' })).toBe(false);
  });
});
