import { describe, expect, it } from 'vitest';
import { describeConversationEvent } from '../../web/dashboard/src/lib/eventSentences.js';
import { formatDateTime, formatNumber } from '../../web/dashboard/src/lib/format.js';

/** The dashboard's event history: one readable sentence per stored event, and dates/numbers in the UI's English. */
describe('describeConversationEvent', () => {
  const say = (type: string, data: unknown, stageName?: (id: string) => string | undefined) => describeConversationEvent({ type, data }, stageName);

  it('quotes what the customer wrote, cut when long', () => {
    expect(say('MessageReceived', { text: 'Do you ship to Norway?' })).toBe('Customer message received: “Do you ship to Norway?”');
    const long = say('MessageReceived', { text: 'x'.repeat(500) });
    expect(long.length).toBeLessThan(160);
    expect(long.endsWith('…”')).toBe(true);
  });

  it("says the model's handoff reason (quoted, bounded) when it gave one", () => {
    expect(say('AgentReplied', { text: 'A colleague will reply.', handoff: true, handoffReason: 'Wants a refund' })).toBe(
      "AI agent replied and handed over to a human (the model's reason: “Wants a refund”): “A colleague will reply.”",
    );
    expect(say('AgentReplied', { text: 'A colleague will reply.', handoff: true })).toBe('AI agent replied and handed over to a human: “A colleague will reply.”');
    // Handed off for want of a confident answer: said so, with a model's own words when it gave some.
    expect(say('AgentReplied', { text: 'A colleague will reply.', handoff: true, handoffReason: 'no confident answer', handoffCause: 'no_confident_answer' })).toBe(
      'AI agent replied and handed over to a human (no confident answer): “A colleague will reply.”',
    );
    expect(say('AgentReplied', { text: 'A colleague will reply.', handoff: true, handoffReason: 'Finland is not mentioned', handoffCause: 'no_confident_answer' })).toBe(
      'AI agent replied and handed over to a human (no confident answer: “Finland is not mentioned”): “A colleague will reply.”',
    );
  });

  it('says why a reply was not delivered', () => {
    expect(say('MessageDeliveryFailed', { reason: 'platform answered 503', attempts: 5 })).toBe('Reply not delivered: platform answered 503 (after 5 attempts).');
  });

  it('says where a delivered message went: the customer, or the sandbox of an integration without an API URL', () => {
    expect(say('MessageDelivered', { messageId: 'm1' })).toBe('Message delivered to the customer.');
    expect(say('MessageDelivered', { messageId: 'm1', deliveredTo: 'sandbox' })).toMatch(/^Message delivered to the sandbox/);
  });

  it('names the stage and who acted', () => {
    const names = (id: string) => (id === 'u-nadia' ? 'Nadia' : undefined);
    const told = (type: string, data: unknown) => describeConversationEvent({ type, data }, (id) => (id === 's-1' ? 'Won' : undefined), names);
    expect(told('StageChanged', { stageId: 's-1', by: 'user:u-nadia' })).toBe('Moved to the stage “Won” by Nadia.');
    expect(say('AiSessionClosed', { reason: 'close_dialog' })).toBe('AI session closed: the dialog was closed on the platform.');
    // The teammate who acted, by name (never "an operator"); one no longer on the team by a short id.
    expect(told('ConversationReopened', { by: 'user:u-nadia' })).toBe('Conversation reopened by Nadia: a new AI session started.');
    expect(told('ConversationAssigned', { assigneeId: 'u-nadia', by: 'user:u-nadia' })).toBe('Taken by Nadia.');
    expect(told('ConversationAssigned', { assigneeId: 'u-omar', by: 'user:u-nadia' })).toBe('Assigned to a teammate (u-omar) by Nadia.');
    expect(told('AiSessionPaused', { reason: 'api', by: 'user:u-nadia' })).toBe('Paused by Nadia.');
    expect(told('AiSessionResumed', { by: 'user:u-nadia' })).toBe('AI resumed by Nadia.');
    expect(told('AiSessionClosed', { reason: 'api', by: 'user:u-nadia' })).toBe('AI session closed by Nadia.');
    expect(told('AiSessionClosed', { reason: 'api', by: 'user:u-nadia', resolution: 'Refunded' })).toBe('Resolved by Nadia: “Refunded”');
    expect(say('ConversationReopened', { by: 'user:42424242-aaaa' })).toBe('Conversation reopened by a teammate (42424242): a new AI session started.');
    expect(say('AiSessionPaused', { reason: 'credits_exhausted', by: null })).toBe('Paused: out of credits.');
  });

  it('names the knowledge-base documents an AI reply drew from (the Sources under it list the passages)', () => {
    const source = (title: string, chunkIndex = 0) => ({ documentId: `d-${title}`, title, chunkIndex, score: 1 });
    const provenance = (sources: unknown[]) => ({ sources, latencyMs: 5, costMicros: 0, usageEstimated: false });
    expect(say('AgentReplied', { text: 'We ship to Norway.', provenance: provenance([source('Shipping'), source('Shipping', 1)]) })).toBe('AI agent replied from “Shipping”: “We ship to Norway.”');
    expect(say('AgentReplied', { text: 'Yes.', provenance: provenance([source('Shipping'), source('Returns')]) })).toBe('AI agent replied from “Shipping” and “Returns”: “Yes.”');
    expect(say('AgentReplied', { text: 'Hm.', provenance: provenance(['A', 'B', 'C', 'D'].map((t) => source(t))) })).toBe('AI agent replied from “A”, “B”, “C” and 1 more: “Hm.”');
    expect(say('AgentReplied', { text: 'A colleague will reply.', handoff: true, provenance: provenance([]) })).toBe(
      'AI agent replied and handed over to a human without a knowledge-base source: “A colleague will reply.”',
    );
    // Stored before provenance was recorded: the sentence as it always was.
    expect(say('AgentReplied', { text: 'Hi!' })).toBe('AI agent replied: “Hi!”');
  });

  it('quotes a handoff summary that quotes the customer once, not twice', () => {
    expect(say('HandoffSummarized', { writtenBy: 'extracted', wants: '“Can I pay with bitcoin?”' })).toBe('Handoff summary taken from the messages: the customer wants “Can I pay with bitcoin?”');
    expect(say('HandoffSummarized', { writtenBy: 'llm', wants: 'To pay with bitcoin' })).toBe('Handoff summary written by the AI model: the customer wants “To pay with bitcoin”');
  });

  it('an unknown event type still reads as words, and bad data does not throw', () => {
    expect(say('SomethingNewHappened', null)).toBe('Something new happened.');
    expect(() => say('ConversationStarted', null)).not.toThrow();
  });
});

describe('formatting in the UI locale', () => {
  it('formats dates and numbers in English whatever the environment locale', () => {
    expect(formatDateTime('2026-03-02T09:05:00.000Z')).toMatch(/^Mar 2, 2026, \d{1,2}:05\s?(AM|PM)$/);
    expect(formatNumber(1234567)).toBe('1,234,567');
  });
});
