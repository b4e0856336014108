import { describe, expect, it } from 'vitest';
import { bucketOf, BUCKETS, percentile, record } from '../../../../src/projections/analytics/histogram.js';
import { localDate, monthsInRange } from '../../../../src/domain/localDay.js';
import { agentScope, emptyDay, integrationScope, type AnalyticsDayDoc } from '../../../../src/projections/analytics/analyticsDay.js';
import { analyticsProjection } from '../../../../src/projections/analytics/analyticsProjection.js';
import { projectionSpec, recorded, type GivenEvent } from '../../../support/projectionSpec.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const agent = 'a9e7c6b5-1111-4222-8333-444455556666';
const integrationId = 12;
const conv = (n: number) => `6f1c7d2e-8a1b-4c3d-9e4f-5a6b7c8d000${n}`;
const stream = (n: number) => `conversation-${conv(n)}`;
const session = (n: number) => `1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c000${n}`;
const m = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, '0')}`;
const at = (clock: string, day = '2025-03-10') => `${day}T${clock}.000Z`;

const integrationCreated = recorded(`integration-${integrationId}`, 'IntegrationCreated', {
  integrationId, companyId: company, connectorType: 'msgplatform', name: 'Shop', apiUrl: null, webhookSecret: null, apiToken: null, active: true, agentId: agent, allowedOrigins: [], at: at('08:00:00'),
});
const started = (n: number, t = '10:00:00', day?: string) =>
  recorded(stream(n), 'ConversationStarted', {
    conversationId: conv(n), companyId: company, integrationId, connectorType: 'msgplatform', customer: { clientId: `c${n}`, channelId: null, transport: 'telegram' }, stageId: null, at: at(t, day),
  });
const opened = (n: number, t = '10:00:00') => recorded(stream(n), 'AiSessionOpened', { sessionId: session(n), at: at(t) });
const received = (n: number, id: number, t: string, day?: string, s = stream(n)) =>
  recorded(s, 'MessageReceived', { messageId: m(id), dedupeKey: `k${id}`, dedupeUntil: null, text: 'Where is my order?', platform: {}, at: at(t, day) });
const replied = (n: number, id: number, inReplyTo: number, t: string, handoff = false, s = stream(n)) =>
  recorded(s, 'AgentReplied', {
    messageId: m(id), sessionId: session(n), agentId: agent, text: handoff ? 'A colleague will answer.' : 'It ships today.', inReplyTo: [m(inReplyTo)], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff, at: at(t),
  });
const closed = (n: number, t: string) => recorded(stream(n), 'AiSessionClosed', { sessionId: session(n), reason: 'api', action: 'session_close', by: null, at: at(t) });
const paused = (n: number, reason: 'handoff' | 'api', t: string) => recorded(stream(n), 'AiSessionPaused', { sessionId: session(n), reason, by: null, at: at(t) });
const operatorSent = (n: number, id: number, t: string) => recorded(stream(n), 'OperatorMessageSent', { messageId: m(id), text: 'Bob here', by: 'user:x', at: at(t) });
const charged = (conversationId: string, micros: number, t: string) =>
  recorded(`credits-${company}`, 'CreditsConsumed', { amountMicros: micros, model: 'gpt', inputTokens: 10, outputTokens: 5, conversationId, replyId: m(900 + micros), at: at(t) });

/** The same day in the three scopes an event counts for. */
function inEveryScope(date: string, fill: (d: AnalyticsDayDoc) => void): AnalyticsDayDoc[] {
  return ['company', integrationScope(integrationId), agentScope(agent)].map((scope) => {
    const doc = emptyDay(company, scope, date);
    fill(doc);
    return doc;
  });
}

const spec = projectionSpec(analyticsProjection);

describe('analytics projection: given events, then the day documents', () => {
  it('an AI-answered conversation closed without a human: AI reply, AI-resolved, AI first response 2 s, in the company, integration and agent scopes', async () => {
    await spec.given([integrationCreated, started(1), opened(1), received(1, 1, '10:00:00'), received(1, 2, '10:00:01'), replied(1, 3, 2, '10:00:02'), closed(1, '10:05:00')]).then({
      analytics_days: inEveryScope('2025-03-10', (d) => {
        Object.assign(d, { conversationsStarted: 1, conversationsActive: 1, customerMessages: 2, aiReplies: 1, aiResolved: 1 });
        d.aiFirstResponse = record(undefined, 2000); // measured from the first unanswered message
      }),
    });
  });

  it('handed off by the model, then a person answers after 5 minutes: handed off (agent_handoff), a human first response, not AI-resolved', async () => {
    await spec
      .given([integrationCreated, started(1), opened(1), received(1, 1, '10:00:00'), replied(1, 2, 1, '10:00:03', true), paused(1, 'handoff', '10:00:03'), operatorSent(1, 3, '10:05:00'), closed(1, '10:06:00')])
      .then({
        analytics_days: inEveryScope('2025-03-10', (d) => {
          Object.assign(d, { conversationsStarted: 1, conversationsActive: 1, customerMessages: 1, aiReplies: 1, operatorMessages: 1, handedOff: 1 });
          d.handoffReasons.agent_handoff = 1;
          d.aiFirstResponse = record(undefined, 3000);
          d.humanFirstResponse = record(undefined, 300_000);
        }),
      });
  });

  it('handed off for want of a confident answer: counted under its own reason (no_confident_answer), not agent_handoff', async () => {
    const noConfidentAnswer = recorded(stream(1), 'AgentReplied', {
      messageId: m(2), sessionId: session(1), agentId: agent, text: 'A colleague will answer.', inReplyTo: [m(1)], model: 'builtin', inputTokens: 0, outputTokens: 0,
      handoff: true, handoffReason: 'no confident answer', handoffCause: 'no_confident_answer', at: at('10:00:03'),
    });
    await spec.given([integrationCreated, started(1), opened(1), received(1, 1, '10:00:00'), noConfidentAnswer, paused(1, 'handoff', '10:00:03')]).then({
      analytics_days: inEveryScope('2025-03-10', (d) => {
        Object.assign(d, { conversationsStarted: 1, conversationsActive: 1, customerMessages: 1, aiReplies: 1, handedOff: 1 });
        d.handoffReasons.no_confident_answer = 1;
        d.aiFirstResponse = record(undefined, 3000);
      }),
    });
  });

  it('given business hours 09:00–17:00 UTC, then a wait that began at 08:00 counts outside hours, one that began at 10:00 inside (in the totals too)', async () => {
    const open = [{ from: '09:00', to: '17:00' }];
    const hoursSet = recorded(`company-${company}`, 'BusinessHoursSet', {
      enabled: true, weekly: { monday: open, tuesday: open, wednesday: open, thursday: open, friday: open, saturday: [], sunday: [] }, holidays: [], by: 'user:x', at: at('07:00:00'),
    });
    await spec
      .given([
        integrationCreated, hoursSet,
        started(1, '08:00:00'), opened(1), received(1, 1, '08:00:00'), replied(1, 2, 1, '08:00:02', true), paused(1, 'handoff', '08:00:02'), operatorSent(1, 3, '09:00:00'),
        started(2, '10:00:00'), opened(2), received(2, 11, '10:00:00'), replied(2, 12, 11, '10:00:01', true), paused(2, 'handoff', '10:00:01'), operatorSent(2, 13, '10:05:00'),
      ])
      .then({
        analytics_days: inEveryScope('2025-03-10', (d) => {
          Object.assign(d, { conversationsStarted: 2, conversationsActive: 2, customerMessages: 2, aiReplies: 2, operatorMessages: 2, handedOff: 2 });
          d.handoffReasons.agent_handoff = 2;
          d.aiFirstResponse = record(record(undefined, 2000), 1000);
          d.humanFirstResponse = record(record(undefined, 3_600_000), 300_000);
          d.aiFirstResponseOutsideHours = record(undefined, 2000);
          d.humanFirstResponseOutsideHours = record(undefined, 3_600_000);
        }),
      });
  });

  it('handoff reasons follow the "Needs human" queue: customer request, platform transfer, AI could not answer (counted as unanswered too); a handoff counts once', async () => {
    await spec
      .given([
        integrationCreated,
        started(1), opened(1), received(1, 1, '10:00:00'), recorded(stream(1), 'HumanRequested', { messageId: m(1), at: at('10:00:00') }),
        recorded(stream(1), 'DialogTransferred', { action: 'session_transfer_external', dialogId: 5, requestId: 6, at: at('10:00:10') }), // already waiting for a human
        started(2), opened(2), received(2, 11, '11:00:00'), recorded(stream(2), 'DialogTransferred', { action: 'session_transfer_external', dialogId: 7, requestId: 8, at: at('11:00:01') }),
        started(3), opened(3), received(3, 21, '12:00:00'),
        recorded(stream(3), 'MessagesUnanswered', { messageIds: [m(21)], reason: 'LLM failed', at: at('12:00:30') }),
        paused(3, 'handoff', '12:00:30'),
      ])
      .then({
        analytics_days: inEveryScope('2025-03-10', (d) => {
          Object.assign(d, { conversationsStarted: 3, conversationsActive: 3, customerMessages: 3, handedOff: 3, unanswered: 1 });
          Object.assign(d.handoffReasons, { customer_request: 1, dialog_transferred: 1, ai_unanswered: 1 });
        }),
      });
  });

  it('a takeover (operator pause) or an operator message means the session is not AI-resolved; a new session after the close can be', async () => {
    await spec
      .given([
        integrationCreated, started(1), opened(1), received(1, 1, '10:00:00'), replied(1, 2, 1, '10:00:01'), paused(1, 'api', '10:01:00'), closed(1, '10:02:00'),
        recorded(stream(1), 'AiSessionOpened', { sessionId: session(1), at: at('10:03:00') }), received(1, 3, '10:03:00'), replied(1, 4, 3, '10:03:01'), closed(1, '10:04:00'),
      ])
      .then({
        analytics_days: inEveryScope('2025-03-10', (d) => {
          Object.assign(d, { conversationsStarted: 1, conversationsActive: 1, customerMessages: 2, aiReplies: 2, aiResolved: 1 });
          d.aiFirstResponse = record(record(undefined, 1000), 1000);
        }),
      });
  });

  it('a failed delivery counts for AI replies only (an operator message that failed is not an AI reply that failed)', async () => {
    await spec
      .given([
        integrationCreated, started(1), opened(1), received(1, 1, '10:00:00'), replied(1, 2, 1, '10:00:01'),
        recorded(stream(1), 'MessageDeliveryFailed', { messageId: m(2), reason: 'platform 500', attempts: 5, at: at('10:00:30') }),
        operatorSent(1, 3, '10:01:00'),
        recorded(stream(1), 'MessageDeliveryFailed', { messageId: m(3), reason: 'platform 500', attempts: 5, at: at('10:01:30') }),
      ])
      .then({
        analytics_days: inEveryScope('2025-03-10', (d) => {
          Object.assign(d, { conversationsStarted: 1, conversationsActive: 1, customerMessages: 1, aiReplies: 1, operatorMessages: 1, deliveryFailed: 1 });
          d.aiFirstResponse = record(undefined, 1000);
        }),
      });
  });

  it('credits: a charge naming a conversation counts for its integration and agent; every charge counts for the company', async () => {
    await spec.given([integrationCreated, started(1), charged(conv(1), 300, '10:00:05'), charged('playground-or-unknown', 200, '10:00:06')]).then({
      analytics_days: [
        { ...emptyDay(company, 'company', '2025-03-10'), conversationsStarted: 1, creditsSpentMicros: 500 },
        { ...emptyDay(company, integrationScope(integrationId), '2025-03-10'), conversationsStarted: 1, creditsSpentMicros: 300 },
        { ...emptyDay(company, agentScope(agent), '2025-03-10'), conversationsStarted: 1, creditsSpentMicros: 300 },
      ],
    });
  });

  it('days are local days in the timezone in force when the event happened: a change applies from then on', async () => {
    const setTz = recorded(`company-${company}`, 'CompanyTimezoneSet', { timezone: 'America/New_York', previousTimezone: 'UTC', by: 'user:x', at: at('04:00:00', '2025-03-11') });
    await spec
      .given([
        integrationCreated, started(1, '10:00:00', '2025-03-10'),
        received(1, 1, '03:00:00', '2025-03-11'), // UTC: March 11
        setTz,
        received(1, 2, '03:30:00', '2025-03-12'), // New York (UTC-4 after DST on March 9): still March 11
      ])
      .then({
        analytics_days: [
          ...inEveryScope('2025-03-10', (d) => Object.assign(d, { conversationsStarted: 1 })),
          ...inEveryScope('2025-03-11', (d) => Object.assign(d, { conversationsActive: 1, customerMessages: 2 })),
        ],
      });
  });

  it('only conversation streams count: conversation-typed events on another stream category (the playground) and unrelated events count nothing', async () => {
    const playground = 'playground-6f1c7d2e-8a1b-4c3d-9e4f-5a6b7c8d0999';
    const unrelated: GivenEvent[] = [
      recorded(playground, 'ConversationStarted', {
        conversationId: conv(9), companyId: company, integrationId, connectorType: 'webchat', customer: { clientId: 'p', channelId: null, transport: 'webchat' }, stageId: null, at: at('10:00:00'),
      }),
      received(9, 1, '10:00:00', undefined, playground),
      replied(9, 2, 1, '10:00:01', false, playground),
      recorded(`agent-${agent}`, 'AgentCreated', { agentId: agent, companyId: company, name: 'Bot', systemPrompt: 'Be nice', model: null, temperature: 0.3, useKnowledgeBase: true, active: true, handoffMessage: 'Hold on', at: at('09:00:00') }),
    ];
    await spec.given([integrationCreated, ...unrelated]).then({ analytics_days: [], analytics_conversations: [] });
  });
});

describe('first-response histogram', () => {
  it('has a fixed size and reports percentiles within ±12 % from 100 ms to 10 days', () => {
    let h = record(undefined, 0);
    expect(h).toHaveLength(BUCKETS);
    for (const ms of [150, 999, 2_000, 61_000, 3_600_000, 5 * 86_400_000]) {
      const p = percentile(record(undefined, ms), 0.5)!;
      expect(Math.abs(p - ms) / ms).toBeLessThanOrEqual(0.1181);
    }
    h = [1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 8_000, 9_000, 60_000].reduce((acc, ms) => record(acc, ms), record(undefined, 0).map(() => 0));
    expect(Math.abs(percentile(h, 0.5)! - 5_000) / 5_000).toBeLessThanOrEqual(0.12);
    expect(Math.abs(percentile(h, 0.9)! - 9_000) / 9_000).toBeLessThanOrEqual(0.12);
    expect(percentile(record(undefined, 0).map(() => 0), 0.5)).toBeNull();
    expect(bucketOf(-5)).toBe(0);
    expect(bucketOf(1e12)).toBe(BUCKETS - 1);
  });

  it('local days and months of a range', () => {
    expect(localDate('2025-03-11T03:00:00.000Z', 'America/New_York')).toBe('2025-03-10');
    expect(localDate('2025-03-10T23:30:00.000Z', 'Asia/Tokyo')).toBe('2025-03-11');
    expect(monthsInRange('2024-12-30', '2025-02-01')).toEqual(['2024-12', '2025-01', '2025-02']);
  });
});
