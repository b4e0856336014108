import { describe, expect, it } from 'vitest';
import { describeEvent } from '../../src/cli/describeEvent.js';
import type { RecordedEvent } from '../../src/ports/eventStore.js';
import { describeConversationEvent } from '../../web/dashboard/src/lib/eventSentences.js';
import { formatWaiting, titleWithCount } from '../../web/dashboard/src/lib/inbox.js';
import { filterTeammates, teammateName } from '../../web/dashboard/src/lib/team.js';
import { messagesLabel } from '../../web/dashboard/src/components/ConversationRow.js';

const ANN = 'a0a0a0a0-a0a0-40a0-80a0-a0a0a0a0a0a0';
const BOB = 'b0b0b0b0-b0b0-40b0-80b0-b0b0b0b0b0b0';

describe('the audit timeline tells assignment, handoff requests and resolutions in words', () => {
  const say = (type: string, data: unknown) => describeConversationEvent({ type, data }, undefined, (id) => (id === ANN ? 'you' : undefined));
  it('dashboard event history', () => {
    expect(say('ConversationAssigned', { assigneeId: ANN, previousAssigneeId: null, by: `user:${BOB}` })).toBe('Assigned to you by a teammate (b0b0b0b0).');
    expect(say('ConversationAssigned', { assigneeId: BOB, previousAssigneeId: ANN, by: `user:${ANN}` })).toBe('Assigned to a teammate (b0b0b0b0) by you.');
    expect(say('ConversationUnassigned', { previousAssigneeId: BOB, by: `user:${BOB}` })).toBe('Unassigned from a teammate (b0b0b0b0) by a teammate (b0b0b0b0).');
    expect(say('ConversationAssigned', { assigneeId: ANN, previousAssigneeId: null, by: 'auto-assignment', reason: 'auto' })).toBe('Assigned to you automatically (round-robin).');
    expect(say('HumanRequested', { messageId: ANN })).toBe('The customer asked for a human: waiting in “Needs human”.');
    expect(say('AiSessionClosed', { reason: 'api', action: 'session_close', by: `user:${ANN}`, resolution: 'Refund issued' })).toBe('Resolved by you: “Refund issued”');
    expect(say('AiSessionClosed', { reason: 'api', action: 'session_close', by: `user:${ANN}` })).toBe('AI session closed by you.');
  });
  it('replay CLI', () => {
    const e = (type: string, data: unknown) => describeEvent({ type, data } as RecordedEvent);
    expect(e('ConversationAssigned', { assigneeId: BOB, previousAssigneeId: ANN, by: `user:${ANN}` })).toBe(`assigned to user ${BOB} (was user ${ANN}) by user:${ANN}`);
    expect(e('ConversationUnassigned', { previousAssigneeId: BOB, by: `user:${ANN}` })).toBe(`unassigned (was user ${BOB}) by user:${ANN}`);
    expect(e('ConversationAssigned', { assigneeId: BOB, previousAssigneeId: null, by: 'auto-assignment', reason: 'auto' })).toBe(`assigned to user ${BOB} by auto-assignment (automatic assignment)`);
    expect(e('AiSessionClosed', { reason: 'api', action: 'session_close', resolution: 'Refund issued' })).toBe('AI session closed (api, session_close), resolved: "Refund issued"');
  });
});

describe('the inbox in the browser tab', () => {
  it('the title counts waiting customers, and drops the count at zero', () => {
    expect(titleWithCount('Conversations · Messaging Agent Service', 3)).toBe('(3) Conversations · Messaging Agent Service');
    expect(titleWithCount('(3) Conversations · Messaging Agent Service', 4)).toBe('(4) Conversations · Messaging Agent Service');
    expect(titleWithCount('(4) Conversations · Messaging Agent Service', 0)).toBe('Conversations · Messaging Agent Service');
  });
  it('the wait reads in minutes, hours, days', () => {
    const now = Date.parse('2026-01-01T12:00:00.000Z');
    expect(formatWaiting('2026-01-01T11:59:30.000Z', now)).toBe('under a minute');
    expect(formatWaiting('2026-01-01T11:55:00.000Z', now)).toBe('5 min');
    expect(formatWaiting('2026-01-01T09:50:00.000Z', now)).toBe('2 h 10 min');
    expect(formatWaiting('2025-12-29T12:00:00.000Z', now)).toBe('3 d');
  });
});

describe('the teammate picker', () => {
  const team = [
    { id: ANN, email: 'ann@desk.example', name: 'Ann Lee', role: 'owner' as const, joinedAt: '2025-01-01T00:00:00.000Z' },
    { id: BOB, email: 'bob.okafor@desk.example', name: null, role: 'agent' as const, joinedAt: '2025-01-02T00:00:00.000Z' },
  ];
  it('names a teammate by the name they gave, else by their email', () => {
    expect(team.map(teammateName)).toEqual(['Ann Lee', 'bob.okafor@desk.example']);
  });
  it('finds teammates by every word typed, in name or email, ignoring case', () => {
    expect(filterTeammates(team, '').map((t) => t.id)).toEqual([ANN, BOB]);
    expect(filterTeammates(team, 'ann').map((t) => t.id)).toEqual([ANN]);
    expect(filterTeammates(team, 'OKAFOR desk').map((t) => t.id)).toEqual([BOB]);
    expect(filterTeammates(team, 'ann okafor')).toEqual([]);
  });
});

describe('the inbox row', () => {
  it('counts messages in words: "1 message", "2 messages"', () => {
    expect([0, 1, 2].map(messagesLabel)).toEqual(['0 messages', '1 message', '2 messages']);
  });
});
