import { describe, expect, it } from 'vitest';
import { conversationDecider, type ConversationCommand, belongsToVisitor } from '../../../../src/domain/conversations/decider.js';
import type { ConversationEvent } from '../../../../src/domain/conversations/events.js';
import { customerIdentityOf } from '../../../../src/domain/conversations/customerIdentity.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(conversationDecider);
const CONV = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const S1 = '51515151-5151-4515-8515-515151515151';
const M1 = '11111111-1111-4111-8111-111111111111';
const M2 = '22222222-2222-4222-8222-222222222222';
const T = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-01T00:05:00.000Z';

const customer = { clientId: 'visitor-1', channelId: null, transport: 'webchat' };
const start = { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'webchat' as const, customer, defaultStageId: null };
const started: ConversationEvent = { type: 'ConversationStarted', data: { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'webchat', customer, stageId: null, at: T } };
const opened: ConversationEvent = { type: 'AiSessionOpened', data: { sessionId: S1, at: T } };
const received = (messageId: string, at = T): ConversationEvent => ({ type: 'MessageReceived', data: { messageId, dedupeKey: `webchat:${messageId}`, dedupeUntil: null, text: 'cancel my order', platform: {}, at } });
const verified = (userId: string, email: string | null, at = T): ConversationEvent => ({ type: 'CustomerIdentityVerified', data: { userId, email, at } });
const message = (messageId: string, visitor?: { userId: string; email: string | null }, now = T): ConversationCommand => ({
  type: 'ReceiveCustomerMessage',
  start,
  sessionId: S1,
  messageId,
  dedupeKey: `webchat:${messageId}`,
  dedupeUntil: null,
  text: 'cancel my order',
  platform: {},
  ...(visitor ? { verifiedVisitor: visitor } : {}),
  now,
});
const verify = (userId: string, email: string | null): ConversationCommand => ({ type: 'VerifyCustomerIdentity', visitor: { userId, email }, now: T2 });

describe('A web-chat visitor whose site signed their identity', () => {
  it('given no conversation, when a signed visitor writes first, then the identity is recorded before the message, and customerIdentityOf gives it to actions', () => {
    const state = spec
      .given([])
      .when(message(M1, { userId: 'u-42', email: 'ann@shop.example' }))
      .then([started, opened, verified('u-42', 'ann@shop.example'), received(M1)]);
    expect(customerIdentityOf(state)).toEqual({ 'webchat.userId': 'u-42', 'webchat.email': 'ann@shop.example' });
  });

  it('given a verified conversation, when the same visitor writes again, then only the message: the identity is recorded once', () => {
    spec.given([started, opened, verified('u-42', null), received(M1)]).when(message(M2, { userId: 'u-42', email: null }, T2)).then([received(M2, T2)]);
  });

  it('given a verified conversation, when the same user comes back with a new email, then the identity is recorded again', () => {
    spec.given([started, opened, verified('u-42', null), received(M1)]).when(verify('u-42', 'new@shop.example')).then([verified('u-42', 'new@shop.example', T2)]);
  });

  it('given a verified conversation, when the same identity is verified again, then nothing', () => {
    spec.given([started, opened, verified('u-42', 'ann@shop.example')]).when(verify('u-42', 'ann@shop.example')).then([]);
  });

  it('given no conversation, when an identity is verified, then NOT_FOUND: it is recorded with the first message', () => {
    spec.given([]).when(verify('u-42', null)).thenThrows('NOT_FOUND');
  });

  it('given an anonymous visitor, when they write, then no identity: actions needing one cannot be reached', () => {
    const state = spec.given([]).when(message(M1)).then([started, opened, received(M1)]);
    expect(customerIdentityOf(state)).toEqual({});
  });

  it('given a verified conversation, when an anonymous visitor or another signed user writes (a socket that joined before it was verified), then FORBIDDEN: nothing is stored', () => {
    spec.given([started, opened, verified('u-42', null), received(M1)]).when(message(M2)).thenThrows('FORBIDDEN');
    spec.given([started, opened, verified('u-42', null), received(M1)]).when(message(M2, { userId: 'u-43', email: null })).thenThrows('FORBIDDEN');
  });

  it('given a verified conversation, when a message already stored is sent again by anyone, then nothing (a resend is not refused)', () => {
    spec.given([started, opened, verified('u-42', null), received(M1)]).when(message(M1)).then([]);
  });

  it('a verified conversation belongs to its user: another signed user or an anonymous visitor does not continue it', () => {
    const state = { verifiedVisitor: { userId: 'u-42', email: null } };
    expect(belongsToVisitor(state, { userId: 'u-42', email: 'x@y.z' })).toBe(true);
    expect(belongsToVisitor(state, { userId: 'u-43', email: null })).toBe(false);
    expect(belongsToVisitor(state, null)).toBe(false);
    expect(belongsToVisitor({ verifiedVisitor: null }, null)).toBe(true);
  });
});
