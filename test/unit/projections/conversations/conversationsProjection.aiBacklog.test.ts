import { describe, expect, it } from 'vitest';
import { SqliteReadStore } from '../../../../src/infrastructure/sqlite/sqliteReadStore.js';
import { CONVERSATIONS, conversationsProjection } from '../../../../src/projections/conversations/conversationsProjection.js';
import { at, conversationEvents, m } from '../../../support/conversationEvents.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

/**
 * The AI backlog read model: a conversation is `awaitingAi` while its AI session is active and a customer message
 * waits for an answer, `awaitingAiSince` its oldest such message. Given the conversation's events, then its document.
 */
const session = '1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c0002';
const ann = 'a0a0a0a0-a0a0-40a0-80a0-a0a0a0a0a0a0';
const events = conversationEvents({ company: '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0002', conversation: '6f1c7d2e-8a1b-4c3d-9e4f-5a6b7c8d0002' });
const { company, conversation, stream, started, received } = events;
const opened = events.opened(session);
const replied = (inReplyTo: string[], s: number, handoff = false) =>
  recorded(stream, 'AgentReplied', { messageId: m(9), sessionId: session, agentId: null, text: 'Sure.', inReplyTo, model: 'builtin', inputTokens: 0, outputTokens: 0, handoff, at: at(s) });
const paused = (reason: 'api' | 'handoff' | 'operator_message', s: number) => recorded(stream, 'AiSessionPaused', { sessionId: session, reason, by: null, at: at(s) });

const waiting = (since: string) => expect.objectContaining({ awaitingAi: true, awaitingAiSince: since });
const notWaiting = expect.objectContaining({ awaitingAi: false, awaitingAiSince: null });

describe('conversations projection: waiting for an AI answer', () => {
  const spec = projectionSpec(conversationsProjection);

  it('a conversation without customer messages is not waiting', async () => {
    await spec.given([started]).then({ conversations: [notWaiting] });
  });

  it('a customer message on an active session waits, since that message; later messages keep the oldest time', async () => {
    await spec.given([started, opened, received(1, 1)]).then({ conversations: [waiting(at(1))] });
    await spec.given([started, opened, received(1, 1), received(2, 3)]).then({ conversations: [waiting(at(1))] });
  });

  it('the AI answering every waiting message ends the wait; the next message starts a new one', async () => {
    await spec.given([started, opened, received(1, 1), received(2, 2), replied([m(1), m(2)], 3)]).then({ conversations: [notWaiting] });
    await spec.given([started, opened, received(1, 1), replied([m(1)], 2), received(3, 4)]).then({ conversations: [waiting(at(4))] });
  });

  it('a message that came in while the answer was written still waits, since it arrived', async () => {
    await spec.given([started, opened, received(1, 1), received(2, 3), replied([m(1)], 4)]).then({
      conversations: [expect.objectContaining({ awaitingAi: true, awaitingAiSince: at(3), awaitingReplyTo: m(2) })],
    });
  });

  it('handed to people (MessagesUnanswered and a handoff pause, or a handoff answer) is not waiting', async () => {
    const unanswered = recorded(stream, 'MessagesUnanswered', { messageIds: [m(1)], reason: 'AI backlog: no answer within 300 s', at: at(6) });
    await spec.given([started, opened, received(1, 1), unanswered, paused('handoff', 6)]).then({
      conversations: [expect.objectContaining({ awaitingAi: false, awaitingAiSince: null, needsHuman: true })],
    });
    // Marked unanswered without a handoff (no agent assigned): nothing will answer it either.
    await spec.given([started, opened, received(1, 1), unanswered]).then({ conversations: [notWaiting] });
    await spec.given([started, opened, received(1, 1), replied([m(1)], 2, true), paused('handoff', 2)]).then({ conversations: [notWaiting] });
  });

  it('an operator reply, from the dashboard or the platform, ends the wait', async () => {
    const sent = recorded(stream, 'OperatorMessageSent', { messageId: m(5), text: 'Ann here', by: `user:${ann}`, at: at(5) });
    await spec.given([started, opened, received(1, 1), sent, paused('operator_message', 5)]).then({ conversations: [notWaiting] });
    const fromPlatform = recorded(stream, 'OperatorMessageRecorded', { messageId: m(6), dedupeKey: 'op6', dedupeUntil: null, text: 'Hi', platform: {}, at: at(5) });
    await spec.given([started, opened, received(1, 1), fromPlatform, paused('operator_message', 5)]).then({ conversations: [notWaiting] });
  });

  it('paused: not waiting, and a message received while paused does not wait either; resuming brings back nothing', async () => {
    await spec.given([started, opened, received(1, 1), paused('api', 2)]).then({ conversations: [expect.objectContaining({ awaitingAi: false, awaitingAiSince: null, sessionState: 'paused' })] });
    await spec.given([started, opened, paused('api', 1), received(1, 2)]).then({ conversations: [notWaiting] });
    const resumed = recorded(stream, 'AiSessionResumed', { sessionId: session, by: `user:${ann}`, at: at(3) });
    await spec.given([started, opened, received(1, 1), paused('api', 2), resumed]).then({ conversations: [notWaiting] });
    await spec.given([started, opened, received(1, 1), paused('api', 2), resumed, received(2, 4)]).then({ conversations: [waiting(at(4))] });
  });

  it('closed: not waiting', async () => {
    const closed = recorded(stream, 'AiSessionClosed', { sessionId: session, reason: 'api', action: 'session_close', by: `user:${ann}`, at: at(2) });
    await spec.given([started, opened, received(1, 1), closed]).then({ conversations: [notWaiting] });
  });

  it('a customer asking for a person still waits for the AI, which answers them meanwhile', async () => {
    await spec.given([started, opened, received(1, 1), recorded(stream, 'HumanRequested', { messageId: m(1), at: at(1) })]).then({
      conversations: [expect.objectContaining({ awaitingAi: true, awaitingAiSince: at(1), needsHuman: true })],
    });
  });

  it('a document written before the fields existed reads as not waiting in the backlog queries', async () => {
    const store = SqliteReadStore.open({ path: ':memory:' });
    try {
      await store.ensureCollections(conversationsProjection.collections);
      const old = { id: conversation, companyId: company, sessionState: 'active', awaitingReplyTo: m(1), lastMessageAt: at(1) };
      await store.commit('conversations', [{ kind: 'put', collection: CONVERSATIONS, doc: old }], 1n);
      expect(await store.count(CONVERSATIONS, { companyId: company, awaitingAi: true })).toBe(0);
      const oldest = await store.find(CONVERSATIONS, { where: { companyId: company, awaitingAi: true }, orderBy: [{ field: 'awaitingAiSince', direction: 'asc' }], limit: 1 });
      expect(oldest.items).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
