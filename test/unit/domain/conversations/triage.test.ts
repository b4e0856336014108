import { describe, expect, it } from 'vitest';
import { conversationDecider, type ConversationCommand } from '../../../../src/domain/conversations/decider.js';
import type { ConversationEvent } from '../../../../src/domain/conversations/events.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(conversationDecider);
const CONV = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const ANN = 'user:a0a0a0a0-a0a0-40a0-80a0-a0a0a0a0a0a0';
const S1 = '51515151-5151-4515-8515-515151515151';
const M1 = '11111111-1111-4111-8111-111111111111';
const M2 = '22222222-2222-4222-8222-222222222222';
const T = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-01T00:05:00.000Z';
const LATER = '2026-01-01T09:00:00.000Z';
const EVEN_LATER = '2026-01-01T10:00:00.000Z';

const customer = { clientId: 42, channelId: 1, transport: 'telegram' };
const start = { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform' as const, customer, defaultStageId: null };
const started: ConversationEvent = { type: 'ConversationStarted', data: { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform', customer, stageId: null, at: T } };
const opened: ConversationEvent = { type: 'AiSessionOpened', data: { sessionId: S1, at: T } };
const received = (messageId: string, at: string): ConversationEvent => ({ type: 'MessageReceived', data: { messageId, dedupeKey: `msg:${messageId}`, dedupeUntil: null, text: 'hello?', platform: {}, at } });
const active = [started, opened, received(M1, T)];
const closed: ConversationEvent = { type: 'AiSessionClosed', data: { sessionId: S1, reason: 'api', action: 'session_close', by: ANN, at: T } };
const snoozed = (until = LATER): ConversationEvent => ({ type: 'ConversationSnoozed', data: { until, by: ANN, at: T } });

const setPriority = (priority: 'urgent' | 'high' | 'normal' | 'low'): ConversationCommand => ({ type: 'SetPriority', priority, by: ANN, now: T2 });
const snooze = (until: string, now = T2): ConversationCommand => ({ type: 'SnoozeConversation', until, by: ANN, now });
const wake = (by: string | null, now: string): ConversationCommand => ({ type: 'WakeConversation', by, now });

describe('Priority', () => {
  it('a conversation starts at normal; setting urgent records the previous priority', () => {
    const after = spec.given(active).when(setPriority('urgent')).then([{ type: 'ConversationPrioritized', data: { priority: 'urgent', previousPriority: 'normal', by: ANN, at: T2 } }]);
    expect(after.priority).toBe('urgent');
  });
  it('setting the priority it has records nothing', () => {
    spec.given(active).when(setPriority('normal')).then([]);
    spec.given([...active, { type: 'ConversationPrioritized', data: { priority: 'low', previousPriority: 'normal', by: ANN, at: T } }]).when(setPriority('low')).then([]);
  });
  it('a conversation that does not exist cannot be prioritised', () => {
    spec.given([]).when(setPriority('high')).thenThrows('NOT_FOUND');
  });
});

describe('Snooze', () => {
  it('snoozing until a later time records it', () => {
    const after = spec.given(active).when(snooze(LATER)).then([{ type: 'ConversationSnoozed', data: { until: LATER, by: ANN, at: T2 } }]);
    expect(after.snoozedUntil).toBe(LATER);
  });
  it('snoozing again until the same time records nothing; a new time is recorded', () => {
    spec.given([...active, snoozed()]).when(snooze(LATER)).then([]);
    spec.given([...active, snoozed()]).when(snooze(EVEN_LATER)).then([{ type: 'ConversationSnoozed', data: { until: EVEN_LATER, by: ANN, at: T2 } }]);
  });
  it('a time not in the future, or more than a year ahead, is refused', () => {
    spec.given(active).when(snooze(T2)).thenThrows('VALIDATION_ERROR');
    spec.given(active).when(snooze(T)).thenThrows('VALIDATION_ERROR');
    spec.given(active).when(snooze('2027-06-01T00:00:00.000Z')).thenThrows('VALIDATION_ERROR');
  });
  it('a resolved conversation cannot be snoozed, a missing one is not found', () => {
    spec.given([...active, closed]).when(snooze(LATER)).thenThrows('INVALID_STATE');
    spec.given([]).when(snooze(LATER)).thenThrows('NOT_FOUND');
  });
});

describe('Waking', () => {
  it('the sweep wakes a snooze whose time has come', () => {
    const after = spec.given([...active, snoozed()]).when(wake(null, LATER)).then([{ type: 'ConversationWoke', data: { reason: 'time', snoozedUntil: LATER, by: null, at: LATER } }]);
    expect(after.snoozedUntil).toBeNull();
  });
  it('the sweep leaves a snooze whose time has not come (moved later meanwhile)', () => {
    spec.given([...active, snoozed(EVEN_LATER)]).when(wake(null, LATER)).then([]);
  });
  it('a teammate ends a snooze early; nothing to end records nothing', () => {
    spec.given([...active, snoozed()]).when(wake(ANN, T2)).then([{ type: 'ConversationWoke', data: { reason: 'teammate', snoozedUntil: LATER, by: ANN, at: T2 } }]);
    spec.given(active).when(wake(ANN, T2)).then([]);
    spec.given([...active, snoozed(), { type: 'ConversationWoke', data: { reason: 'time', snoozedUntil: LATER, by: null, at: LATER } }]).when(wake(null, EVEN_LATER)).then([]);
  });
  it('a customer writing to a snoozed conversation wakes it, in the same append as the message', () => {
    const command: ConversationCommand = { type: 'ReceiveCustomerMessage', start, sessionId: S1, messageId: M2, dedupeKey: `msg:${M2}`, dedupeUntil: null, text: 'any news?', platform: {}, now: T2 };
    const after = spec.given([...active, snoozed()]).when(command).then([
      { type: 'MessageReceived', data: { messageId: M2, dedupeKey: `msg:${M2}`, dedupeUntil: null, text: 'any news?', platform: {}, at: T2 } },
      { type: 'ConversationWoke', data: { reason: 'customer_message', snoozedUntil: LATER, by: null, at: T2 } },
    ]);
    expect(after.snoozedUntil).toBeNull();
  });
});
