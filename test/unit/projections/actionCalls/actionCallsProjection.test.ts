import { describe, expect, it } from 'vitest';
import { record } from '../../../../src/projections/analytics/histogram.js';
import {
  actionCallsProjection,
  emptyActionDay,
  LOGGED_RESPONSE_CHARS,
  type ActionCallDayDoc,
  type ActionCallDoc,
} from '../../../../src/projections/actionCalls/actionCallsProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const conv = '6f1c7d2e-8a1b-4c3d-9e4f-5a6b7c8d0001';
const otherConv = '6f1c7d2e-8a1b-4c3d-9e4f-5a6b7c8d0002';
const stream = `conversation-${conv}`;
const lookup = 'a1a1a1a1-0000-4000-8000-000000000001';
const cancel = 'a1a1a1a1-0000-4000-8000-000000000002';
const reply = 'b2b2b2b2-0000-4000-8000-000000000001';
const holding = 'b2b2b2b2-0000-4000-8000-000000000002';
const ann = 'a0a0a0a0-a0a0-40a0-80a0-a0a0a0a0a0a0';
const call = (n: number) => `c3c3c3c3-0000-4000-8000-00000000000${n}`;
const at = (minute: number) => `2026-03-10T22:${String(minute).padStart(2, '0')}:00.000Z`;

const started = (conversation = conv) =>
  recorded(`conversation-${conversation}`, 'ConversationStarted', {
    conversationId: conversation, companyId: company, integrationId: 12, connectorType: 'msgplatform', customer: { clientId: 'c1', channelId: null, transport: 'telegram' }, stageId: null, at: at(0),
  });
const requested = (n: number, actionId: string, actionName: string, mode: 'auto' | 'confirm' | 'approve', minute: number, s = stream) =>
  recorded(s, 'ActionCallRequested', { callId: call(n), replyId: reply, actionId, actionName, mode, arguments: { order_id: '4411', customer: '[platform.clientId]' }, agentVersion: 3, at: at(minute) });
const startedCall = (n: number, minute: number) => recorded(stream, 'ActionCallStarted', { callId: call(n), idempotencyKey: `key-${n}`, mocked: false, at: at(minute) });

/** The log document of a call as requested; `fill` says what happened since. */
const doc = (n: number, actionId: string, actionName: string, mode: 'auto' | 'confirm' | 'approve', minute: number, fill: Partial<ActionCallDoc>): ActionCallDoc => ({
  id: call(n), companyId: company, conversationId: conv, callId: call(n), replyId: reply, actionId, actionName, mode,
  arguments: { order_id: '4411', customer: '[platform.clientId]' }, agentVersion: 3, status: 'requested',
  confirmationPrompt: null, expiresAt: null, declinedWhy: null, decidedBy: null, decidedAt: null, reason: null,
  mocked: null, httpStatus: null, durationMs: null, response: null, responseTruncated: false, error: null, outcomeUnknown: false,
  requestedAt: at(minute), updatedAt: at(minute), finishedAt: null, ...fill,
});
const day = (actionId: string, actionName: string, date: string, fill: Partial<ActionCallDayDoc>): ActionCallDayDoc => ({ ...emptyActionDay(company, actionId, actionName, date), ...fill });

const spec = projectionSpec(actionCallsProjection);

describe('actionCalls projection: given the action-call events of a conversation, then the log and its days', () => {
  it('an auto call that succeeded: one row with its arguments, HTTP status, duration and response; the day counts a call, a success and its duration', async () => {
    await spec
      .given([
        started(),
        requested(1, lookup, 'order_status', 'auto', 1),
        startedCall(1, 1),
        recorded(stream, 'ActionCallSucceeded', { callId: call(1), status: 200, durationMs: 420, response: '{"status":"shipped"}', mocked: false, at: at(2) }),
      ])
      .then({
        action_calls: [doc(1, lookup, 'order_status', 'auto', 1, { status: 'succeeded', mocked: false, httpStatus: 200, durationMs: 420, response: '{"status":"shipped"}', updatedAt: at(2), finishedAt: at(2) })],
        action_call_days: [day(lookup, 'order_status', '2026-03-10', { calls: 1, succeeded: 1, duration: record(undefined, 420) })],
      });
  });

  it('approve: waiting for approval, then approved by a teammate and failed; a second call refused with a reason', async () => {
    await spec
      .given([
        started(),
        requested(1, cancel, 'cancel_order', 'approve', 1),
        recorded(stream, 'ActionApprovalRequested', { callId: call(1), messageId: holding, holdingReply: 'One moment', approverRoles: null, expiresAt: at(59), at: at(1) }),
        recorded(stream, 'ActionCallApproved', { callId: call(1), by: ann, at: at(5) }),
        startedCall(1, 5),
        recorded(stream, 'ActionCallFailed', { callId: call(1), status: null, durationMs: 10_000, error: 'The endpoint did not answer within 10 s', outcomeUnknown: true, at: at(6) }),
        requested(2, cancel, 'cancel_order', 'approve', 7),
        recorded(stream, 'ActionApprovalRequested', { callId: call(2), messageId: holding, holdingReply: 'One moment', approverRoles: ['owner'], expiresAt: at(59), at: at(7) }),
        recorded(stream, 'ActionCallRefused', { callId: call(2), by: ann, reason: 'Already shipped', at: at(8) }),
      ])
      .then({
        action_calls: [
          doc(1, cancel, 'cancel_order', 'approve', 1, {
            status: 'failed', expiresAt: at(59), decidedBy: ann, decidedAt: at(5), mocked: false, httpStatus: null, durationMs: 10_000,
            error: 'The endpoint did not answer within 10 s', outcomeUnknown: true, updatedAt: at(6), finishedAt: at(6),
          }),
          doc(2, cancel, 'cancel_order', 'approve', 7, { status: 'refused', expiresAt: at(59), decidedBy: ann, decidedAt: at(8), reason: 'Already shipped', updatedAt: at(8), finishedAt: at(8) }),
        ],
        action_call_days: [day(cancel, 'cancel_order', '2026-03-10', { calls: 2, approved: 1, failed: 1, refused: 1, duration: record(undefined, 10_000) })],
      });
  });

  it('confirm declined by silence, an approval expired and a call rejected before it was made each end the call and count once', async () => {
    await spec
      .given([
        started(),
        requested(1, cancel, 'cancel_order', 'confirm', 1),
        recorded(stream, 'ActionConfirmationAsked', { callId: call(1), messageId: holding, prompt: 'Cancel order 4411? Reply yes to confirm', expiresAt: at(31), at: at(1) }),
        recorded(stream, 'ActionCallDeclined', { callId: call(1), why: 'silence', at: at(31) }),
        requested(2, cancel, 'cancel_order', 'approve', 32),
        recorded(stream, 'ActionApprovalRequested', { callId: call(2), messageId: holding, holdingReply: 'One moment', approverRoles: null, expiresAt: at(40), at: at(32) }),
        recorded(stream, 'ActionApprovalExpired', { callId: call(2), at: at(40) }),
        requested(3, lookup, 'order_status', 'auto', 41),
        recorded(stream, 'ActionCallRejected', { callId: call(3), error: 'order_id: must match ^[0-9]+$', at: at(41) }),
      ])
      .then({
        action_calls: [
          doc(1, cancel, 'cancel_order', 'confirm', 1, { status: 'declined', confirmationPrompt: 'Cancel order 4411? Reply yes to confirm', expiresAt: at(31), declinedWhy: 'silence', updatedAt: at(31), finishedAt: at(31) }),
          doc(2, cancel, 'cancel_order', 'approve', 32, { status: 'expired', expiresAt: at(40), updatedAt: at(40), finishedAt: at(40) }),
          doc(3, lookup, 'order_status', 'auto', 41, { status: 'rejected', error: 'order_id: must match ^[0-9]+$', updatedAt: at(41), finishedAt: at(41) }),
        ],
        action_call_days: [
          day(cancel, 'cancel_order', '2026-03-10', { calls: 2, declined: 1, expired: 1 }),
          day(lookup, 'order_status', '2026-03-10', { calls: 1, rejected: 1 }),
        ],
      });
  });

  it('keeps at most LOGGED_RESPONSE_CHARS of a response, and says it cut it', async () => {
    const long = 'x'.repeat(LOGGED_RESPONSE_CHARS + 500);
    await spec
      .given([started(), requested(1, lookup, 'order_status', 'auto', 1), startedCall(1, 1), recorded(stream, 'ActionCallSucceeded', { callId: call(1), status: 200, durationMs: 50, response: long, mocked: false, at: at(2) })])
      .then({
        action_calls: [expect.objectContaining({ id: call(1), status: 'succeeded', response: 'x'.repeat(LOGGED_RESPONSE_CHARS), responseTruncated: true })],
      });
  });

  it('days are local to the company timezone; calls outside customer conversations, or naming another conversation\'s call, count nothing', async () => {
    await spec
      .given([
        recorded(`company-${company}`, 'CompanyTimezoneSet', { timezone: 'Asia/Tokyo', previousTimezone: 'UTC', by: null, at: at(0) }),
        started(),
        started(otherConv),
        requested(1, lookup, 'order_status', 'auto', 1),
        requested(2, lookup, 'order_status', 'auto', 1, 'playground-x'),
        // The other conversation names this conversation's call: it changes nothing here.
        recorded(`conversation-${otherConv}`, 'ActionCallRejected', { callId: call(1), error: 'nope', at: at(2) }),
      ])
      .then({
        action_calls: [doc(1, lookup, 'order_status', 'auto', 1, {})],
        action_call_days: [day(lookup, 'order_status', '2026-03-11', { calls: 1 })],
      });
  });
});

describe('live playground calls', () => {
  const session = 'd4d4d4d4-0000-4000-8000-000000000001';
  const answer = 'e5e5e5e5-0000-4000-8000-000000000001';
  const pgStream = (n: number) => `playgroundcall-${call(n)}`;
  const pgStarted = (n: number, minute: number) =>
    recorded(pgStream(n), 'PlaygroundActionCallStarted', {
      callId: call(n), companyId: company, sessionId: session, answerId: answer, actionId: lookup, actionName: 'order_status', mode: 'auto', arguments: { order_id: '4411' }, by: `user:${ann}`, at: at(minute),
    });
  const pgFinished = (n: number, minute: number, ok: boolean) =>
    recorded(pgStream(n), 'PlaygroundActionCallFinished', {
      callId: call(n), ok, status: ok ? 200 : 503, durationMs: 40, response: ok ? '{"status":"shipped"}' : null, error: ok ? null : 'the endpoint answered 503', at: at(minute),
    });
  const pgDoc = (n: number, fill: Partial<ActionCallDoc>): ActionCallDoc => ({
    ...doc(n, lookup, 'order_status', 'auto', 1, {}), conversationId: null, playgroundSessionId: session, replyId: answer, arguments: { order_id: '4411' }, agentVersion: null, ...fill,
  });

  it('given a live playground call made and answered, then it is in the log with its session, no conversation, and counts as a playground call', async () => {
    await projectionSpec(actionCallsProjection)
      .given([pgStarted(1, 1), pgFinished(1, 2, true)])
      .then({
        action_calls: [pgDoc(1, { status: 'succeeded', mocked: false, httpStatus: 200, durationMs: 40, response: '{"status":"shipped"}', updatedAt: at(2), finishedAt: at(2) })],
        action_call_days: [day(lookup, 'order_status', '2026-03-10', { calls: 1, playground: 1, succeeded: 1, duration: record(emptyActionDay(company, lookup, '', '').duration, 40) })],
      });
  });

  it('given a live playground call that failed, then it is failed with its error; a finish without its start changes nothing', async () => {
    await projectionSpec(actionCallsProjection)
      .given([pgStarted(1, 1), pgFinished(1, 2, false), pgFinished(2, 3, true)])
      .then({
        action_calls: [pgDoc(1, { status: 'failed', mocked: false, httpStatus: 503, durationMs: 40, error: 'the endpoint answered 503', updatedAt: at(2), finishedAt: at(2) })],
      });
  });
});
