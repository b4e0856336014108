import { describe, expect, it } from 'vitest';
import type { ConversationEvent } from '../../../../src/domain/conversations/events.js';
import { extractiveSummary, readModelSummary, summaryPrompt } from '../../../../src/domain/conversations/handoffSummary.js';

const S = '51515151-5151-4515-8515-515151515151';
const T = '2026-01-01T00:00:00.000Z';
const DOC = 'd0d0d0d0-d0d0-40d0-80d0-d0d0d0d0d0d0';
let n = 0;
const id = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
const customer = (text: string): ConversationEvent => ({ type: 'MessageReceived', data: { messageId: id(), dedupeKey: `k${n}`, dedupeUntil: null, text, platform: {}, at: T } });
const ai = (text: string, extra: Partial<Extract<ConversationEvent, { type: 'AgentReplied' }>['data']> = {}): ConversationEvent => ({
  type: 'AgentReplied',
  data: { messageId: id(), sessionId: S, agentId: null, text, inReplyTo: [id()], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: false, at: T, ...extra },
});
const shippingSource = { sources: [{ documentId: DOC, title: 'Shipping', chunkIndex: 0, score: 3 }], latencyMs: 5, costMicros: 0, usageEstimated: false };

describe('the extracted handoff summary (builtin provider, and the fallback when the model fails)', () => {
  it('given an answer from the shipping document and a handoff, then it quotes what the customer asked, the AI\'s answer, the source and why', () => {
    const events = [
      customer('Do you ship to Norway?'),
      ai('We ship to Norway within 3 business days.', { provenance: shippingSource }),
      customer('My parcel is two weeks late, I want a refund'),
      ai('A colleague will reply soon.', { handoff: true }),
    ];
    expect(extractiveSummary(events, { reason: 'agent_handoff', detail: null, since: T })).toEqual({
      wants: '“Do you ship to Norway?” “My parcel is two weeks late, I want a refund”',
      tried: 'The AI answered once, last: “We ship to Norway within 3 business days.”',
      sources: [{ documentId: DOC, title: 'Shipping' }],
      why: 'The AI handed off: it had no answer it was sure enough of',
    });
  });
  it('given a model failure, then it says the AI could not answer, and why in the recorded words', () => {
    const events = [customer('Where is my order?'), ai('A colleague will reply soon.', { handoff: true, aiFailed: true, model: 'none' })];
    expect(extractiveSummary(events, { reason: 'ai_unanswered', detail: 'The AI model could not be reached (connection refused)', since: T })).toEqual({
      wants: '“Where is my order?”',
      tried: 'The AI could not answer; the customer got the handoff message',
      sources: [],
      why: 'The AI could not answer: The AI model could not be reached (connection refused)',
    });
  });
  it('is deterministic and bounded: the same events give the same summary, long messages are clipped', () => {
    const events = [customer('x'.repeat(5000)), customer('y'.repeat(5000)), customer('z'.repeat(5000)), customer('w'.repeat(5000))];
    const summary = extractiveSummary(events, { reason: 'customer_request', detail: null, since: T });
    expect(summary).toEqual(extractiveSummary(events, { reason: 'customer_request', detail: null, since: T }));
    expect(summary.wants.length).toBeLessThanOrEqual(600);
    expect(summary.wants).not.toContain('x');
    expect(summary.why).toBe('The customer asked for a person');
  });
});

describe('the model-written summary', () => {
  const extracted = { wants: 'extracted wants', tried: 'extracted tried', sources: [], why: 'why' };
  it('reads the two labelled lines', () => {
    expect(readModelSummary('WANTS: A refund for a late parcel.\nTRIED: Explained the shipping times.', extracted)).toEqual({ wants: 'A refund for a late parcel.', tried: 'Explained the shipping times.' });
  });
  it('a model ignoring the format still gives its text as what the customer wants; a missing line is taken from the extracted summary', () => {
    expect(readModelSummary('The customer wants a refund.', extracted)).toEqual({ wants: 'The customer wants a refund.', tried: 'extracted tried' });
    expect(readModelSummary('**WANTS**: a refund', extracted)).toEqual({ wants: 'a refund', tried: 'extracted tried' });
  });
  it('a label whose text starts on the next line, or a line ending in CR LF, is read as before', () => {
    expect(readModelSummary('WANTS:\n  A refund.\r\nTRIED: Nothing yet.\r\n', extracted)).toEqual({ wants: 'A refund.', tried: 'Nothing yet.' });
  });
  it('attack: an answer of 30,000 line breaks (the model is the company\'s own endpoint) is read at once, on a linear-time engine', () => {
    // A backtracking engine tries every run of blank lines from every line start: 30,000² steps per label, about 20 s here.
    const started = performance.now();
    const read = readModelSummary(`${'\n'.repeat(30_000)}TRIED`, extracted);
    expect(read.tried).toBe('extracted tried');
    expect(performance.now() - started).toBeLessThan(5_000);
  });
  it('the prompt holds the transcript with who said what', () => {
    const [system, user] = summaryPrompt([customer('Do you ship to Norway?'), ai('Yes.')]);
    expect(system!.content).toContain('WANTS:');
    expect(user!.content).toBe('Customer: Do you ship to Norway?\nAI: Yes.');
  });
});
