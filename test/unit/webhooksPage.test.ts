import { describe, expect, it } from 'vitest';
import { publicEventTypes } from '../../src/domain/publicEvents/catalog.js';
import type { WebhookAttempt, WebhookDelivery } from '../../web/dashboard/src/api/webhookEndpoints.js';
import {
  describeEventTypes,
  disabledSentence,
  dollarsToMicros,
  endpointStatus,
  PUBLIC_EVENT_TYPES,
  replayFrom,
  responseExcerpt,
  withSentAttempt,
} from '../../web/dashboard/src/lib/webhookEvents.js';

/** The dashboard's Developers → Webhooks page: what it offers and how it reads an endpoint and its log. */

const attempt = (over: Partial<WebhookAttempt> = {}): WebhookAttempt => ({
  attempt: 1,
  trigger: 'delivery',
  ok: false,
  httpStatus: 500,
  latencyMs: 12,
  response: 'nope 500',
  at: '2026-01-01T10:00:00.000Z',
  ...over,
});

const delivery = (over: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id: '7',
  eventId: 'evt_7',
  eventType: 'message.received',
  status: 'retrying',
  attempts: 1,
  recentAttempts: [attempt()],
  nextRetryAt: '2026-01-01T10:05:00.000Z',
  createdAt: '2026-01-01T10:00:00.000Z',
  updatedAt: '2026-01-01T10:00:00.000Z',
  ...over,
});

describe('the endpoint form', () => {
  it('offers exactly the public event catalog (the dashboard cannot import it)', () => {
    expect(PUBLIC_EVENT_TYPES.map((t) => t.type).sort()).toEqual([...publicEventTypes].sort());
  });

  it('names "*" as all events, else lists the types', () => {
    expect(describeEventTypes(['*'])).toBe('All events');
    expect(describeEventTypes(['message.answered', 'conversation.closed'])).toBe('message.answered, conversation.closed');
  });
});

describe('an endpoint in the list', () => {
  it('is Disabled (red) when the service switched it off, Inactive when a person did, else Active', () => {
    expect(endpointStatus({ active: false, disabled: { reason: 'failing for 24 hours', at: '2026-01-01T00:00:00.000Z' } })).toEqual({ label: 'Disabled', tone: 'danger' });
    expect(endpointStatus({ active: false, disabled: null })).toEqual({ label: 'Inactive', tone: 'neutral' });
    expect(endpointStatus({ active: true, disabled: null })).toEqual({ label: 'Active', tone: 'success' });
  });

  it('gets a banner only when the service disabled it, saying why and what to do', () => {
    expect(disabledSentence({ url: 'https://crm.example.com/hooks', disabled: null })).toBeNull();
    const sentence = disabledSentence({ url: 'https://crm.example.com/hooks', disabled: { reason: 'every attempt failed for 24 hours', at: '2026-01-01T00:00:00.000Z' } });
    expect(sentence).toContain('https://crm.example.com/hooks');
    expect(sentence).toContain('every attempt failed for 24 hours');
    expect(sentence).toContain('enable it');
  });
});

describe('the delivery log', () => {
  it('shows a receiver answer on one line, cut to its first characters', () => {
    expect(responseExcerpt('  {"ok":\n true}  ')).toBe('{"ok": true}');
    const long = responseExcerpt('x'.repeat(500), 20);
    expect(long).toHaveLength(20);
    expect(long.endsWith('…')).toBe(true);
  });

  it('given a retrying delivery, when the user resends it and the receiver accepts, then it is on top, delivered, with one more attempt', () => {
    const log = [delivery({ id: '9', eventId: 'evt_9' }), delivery()];
    const sent = { ...attempt({ attempt: 2, trigger: 'resend', ok: true, httpStatus: 200, response: 'ok', at: '2026-01-01T10:01:00.000Z' }), deliveryId: '7', eventId: 'evt_7' };
    const next = withSentAttempt(log, sent, 'ignored for a known delivery');
    expect(next.map((d) => d.id)).toEqual(['7', '9']);
    expect(next[0]).toMatchObject({ status: 'delivered', attempts: 2, eventType: 'message.received', nextRetryAt: null, updatedAt: '2026-01-01T10:01:00.000Z' });
    expect(next[0]!.recentAttempts.map((a) => a.trigger)).toEqual(['resend', 'delivery']);
  });

  it('given a log, when a test event is refused, then a new failed row of type webhook.test is on top', () => {
    const sent = { ...attempt({ trigger: 'test', httpStatus: 401, response: 'bad signature' }), deliveryId: 'test-1', eventId: 'evt_test_1' };
    const next = withSentAttempt([delivery()], sent, 'webhook.test');
    expect(next).toHaveLength(2);
    expect(next[0]).toMatchObject({ id: 'test-1', eventType: 'webhook.test', status: 'failed', attempts: 1 });
  });
});

describe('replay from', () => {
  const now = Date.parse('2026-01-01T12:00:00.000Z');
  it('takes a past date-time of the browser and sends its instant', () => {
    const iso = replayFrom('2026-01-01T09:30', now);
    expect(iso).toBe(new Date('2026-01-01T09:30').toISOString());
  });

  it('refuses an empty, malformed or future value', () => {
    expect(replayFrom('', now)).toBeNull();
    expect(replayFrom('yesterday', now)).toBeNull();
    expect(replayFrom('2030-01-01T00:00', now)).toBeNull();
  });
});

describe('the credits.low threshold', () => {
  it('is typed in dollars and sent in micro-dollars, exactly', () => {
    expect(dollarsToMicros('5')).toBe(5_000_000);
    expect(dollarsToMicros('$0.50')).toBe(500_000);
    expect(dollarsToMicros('2.000001')).toBe(2_000_001);
    expect(dollarsToMicros('0')).toBe(0);
  });

  it('refuses what is not a non-negative amount', () => {
    for (const typed of ['', '-1', 'five', '1.2345678', '1e6']) expect(dollarsToMicros(typed), typed).toBeNull();
  });
});
