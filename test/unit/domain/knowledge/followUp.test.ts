import { describe, expect, it } from 'vitest';
import { CONTEXT_CHARS, searchPlan } from '../../../../src/domain/knowledge/followUp.js';

describe('searchPlan: what a customer message is searched with', () => {
  it('given a question that stands alone, then it is searched as written, whatever came before', () => {
    expect(searchPlan('Which payment methods do you accept for orders?', ['How much is the Trailblazer tent?'])).toEqual({ query: 'Which payment methods do you accept for orders?', alternative: null, kind: 'standalone' });
    expect(searchPlan('What is it?', [])).toEqual({ query: 'What is it?', alternative: null, kind: 'standalone' });
    expect(searchPlan('', ['How do returns work?'])).toEqual({ query: '', alternative: null, kind: 'standalone' }); // no new message (an action's result)
  });

  it('given a follow-up opening with an acknowledgement, then the acknowledgement is not searched ("great" is no knowledge)', () => {
    const plan = searchPlan('Great, and what is the warranty?', ['How much is the Trailblazer tent?']);
    expect(plan.query).toBe('what is the warranty?');
    expect(plan).toMatchObject({ kind: 'ambiguous', alternative: 'what is the warranty? much trailblazer tent' });
    expect(searchPlan("Perfect, thanks! That's great. How do I reset my password?", ['Hi']).query).toBe('How do I reset my password?');
  });

  it('given a follow-up referring back ("is it waterproof?"), then it is searched with the earlier question\'s terms', () => {
    expect(searchPlan('Is it waterproof?', ['Tell me about the Trailblazer tent'])).toEqual({ query: 'Is it waterproof? tell trailblazer tent', alternative: null, kind: 'resolved' });
    expect(searchPlan('Got it, and can I exchange it for cash?', ['How long is a gift card valid?']).query).toBe('can I exchange it for cash? long gift card valid');
  });

  it('given an elliptical follow-up ("and express?"), then both it and the resolved question are searched', () => {
    expect(searchPlan('And express?', ['How long does standard delivery take?'])).toEqual({ query: 'express?', alternative: 'express? long standard delivery take', kind: 'ambiguous' });
    expect(searchPlan('What about adding items to it?', ['Can I cancel my order?'])).toMatchObject({ query: 'adding items to it? cancel order', kind: 'resolved' });
  });

  it('given earlier messages without content (a greeting), then an older question gives the context; none at all: as written', () => {
    expect(searchPlan('Is it free?', ['Can I exchange a shirt?', 'hello', 'thanks!']).query).toBe('Is it free? exchange shirt');
    expect(searchPlan('Is it free?', ['hello'])).toMatchObject({ query: 'Is it free?', kind: 'standalone' });
  });

  it('reads a bounded part of the conversation and of the message: the last 3 earlier messages, each up to CONTEXT_CHARS characters; openers in its first 12 words', () => {
    const chatter = `${'ok '.repeat(10_000)}returns policy`;
    expect(searchPlan(chatter, []).query.length).toBeGreaterThan(20_000); // the message itself is never cut
    const long = `${'word '.repeat(CONTEXT_CHARS)}trailblazer`;
    expect(searchPlan('Is it waterproof?', [long]).query).not.toContain('trailblazer');
    expect(searchPlan('Is it waterproof?', ['the Trailblazer tent', 'hi', 'hello', 'ok'])).toMatchObject({ kind: 'standalone' });
  });
});
