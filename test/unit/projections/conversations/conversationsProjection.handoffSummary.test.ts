import { describe, expect, it } from 'vitest';
import { conversationsProjection } from '../../../../src/projections/conversations/conversationsProjection.js';
import { at, conversationEvents, m } from '../../../support/conversationEvents.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const session = '1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c0001';
const summaryId = '5a5a5a5a-5a5a-45a5-85a5-5a5a5a5a5a5a';
const events = conversationEvents();
const { stream, started, received } = events;
const opened = events.opened(session);
const handoffReply = recorded(stream, 'AgentReplied', {
  messageId: m(9), sessionId: session, agentId: null, text: 'A colleague will answer.', inReplyTo: [m(1)], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: true, at: at(3),
});
const handoffPause = recorded(stream, 'AiSessionPaused', { sessionId: session, reason: 'handoff', by: null, at: at(3) });
const note = { wants: '“hello 1”', tried: 'The AI did not answer; the customer got the handoff message', sources: [], why: 'The AI handed off: it had no answer it was sure enough of' };
const summarized = (since: string) =>
  recorded(stream, 'HandoffSummarized', { summaryId, since, writtenBy: 'extractive', model: 'builtin', inputTokens: 0, outputTokens: 0, ...note, at: at(4) });

describe('conversations projection: the handoff summary', () => {
  const spec = projectionSpec(conversationsProjection);

  it('given a handoff and its summary, then the conversation carries the summary', async () => {
    await spec.given([started, opened, received(1, 1), handoffReply, handoffPause, summarized(at(1))]).then({
      conversations: [expect.objectContaining({ needsHuman: true, handoffSummary: { ...note, since: at(1), writtenBy: 'extractive', at: at(4) } })],
    });
  });

  it('given a teammate answered after the summary, then the handoff and its summary are gone', async () => {
    const answered = recorded(stream, 'OperatorMessageSent', { messageId: m(8), text: 'Hi', by: 'user:x', at: at(5) });
    await spec.given([started, opened, received(1, 1), handoffReply, handoffPause, summarized(at(1)), answered]).then({
      conversations: [expect.objectContaining({ needsHuman: false, handoffSummary: null })],
    });
  });
});
