import { describe, expect, it } from 'vitest';
import { createBuiltinLlm } from '../../src/infrastructure/llm/builtinLlm.js';
import { answerSentences } from '../../src/infrastructure/llm/answerSentences.js';

const RETURNS = [
  'Returns and refunds',
  'You can return any item within 30 days of delivery. Items must be unused and in their original packaging. Refunds reach your card within 5 working days of the parcel arriving.',
  'Exchanges',
  'Want another size? Order the new one and send the first back.',
].join('\n');

describe('answerSentences: the builtin answer is the sentences that answer', () => {
  it('given a passage about returns, when asked how long refunds take, then only the refund sentence is the answer', () => {
    expect(answerSentences(RETURNS, 'How long do refunds take?', 1000)).toBe('Refunds reach your card within 5 working days of the parcel arriving.');
  });

  it('given a question matching several sentences, then those, in the passage order, never a heading alone', () => {
    expect(answerSentences(RETURNS, 'Can I return an item if the packaging is open?', 1000)).toBe('You can return any item within 30 days of delivery. Items must be unused and in their original packaging.');
    expect(answerSentences(RETURNS, 'exchanges', 1000)).not.toMatch(/^Exchanges$/m);
  });

  it('given a page menu, footer and cookie notice in the passage, then none of them is ever the answer', () => {
    const page = 'Home | Shop | Contact\nWe ship to Norway, Sweden and Denmark.\n© Example Shop 2026. All rights reserved.\nWe use cookies to improve your shop experience.';
    expect(answerSentences(page, 'Do you ship to the shop in Sweden? contact', 1000)).toBe('We ship to Norway, Sweden and Denmark.');
    expect(answerSentences('Home | Shop | Contact\n© Example Shop\nShipping', 'shop contact', 1000)).toBeNull();
    expect(answerSentences('Returns are free.\nWarranty', 'warranty', 1000)).toBe('Returns are free.'); // a heading cut off from its text
  });

  it('given a short last line without punctuation that is content (hours, a price), then it answers', () => {
    expect(answerSentences('Opening hours\nOpen Monday to Friday 9 to 17', 'When are you open on Monday?', 1000)).toBe('Open Monday to Friday 9 to 17');
  });

  it('given a sentence introducing a list, then its items come with it', () => {
    const passage = 'Opening hours\nOur shops are open:\n- Monday to Friday: 9 to 18\n- Saturday: 10 to 16\nParking is free for customers.';
    expect(answerSentences(passage, 'When are the shops open?', 1000)).toBe('Our shops are open:\n- Monday to Friday: 9 to 18\n- Saturday: 10 to 16');
  });

  it('given no sentence matching (the passage was chosen on its title), then its first content sentences', () => {
    expect(answerSentences('Warranty\nTwo years on every tent. Five years on frames.', 'warranty', 1000)).toBe('Two years on every tent. Five years on frames.');
  });
});

describe('the builtin provider answers with those sentences', () => {
  const llm = createBuiltinLlm();
  const passage = { title: 'Returns and refunds', text: RETURNS, score: 5, evidence: 0.95, coverage: 1 };

  it('given a confident passage, then the answer is its answering sentence, not the whole passage', async () => {
    const response = await llm.complete({ model: 'builtin', messages: [{ role: 'user', content: 'How long do refunds take?' }], passages: [passage] });
    expect(response).toMatchObject({ text: 'Refunds reach your card within 5 working days of the parcel arriving.', usedPassages: [0] });
    expect(response.handoff).toBeUndefined();
  });

  it('given a passage of nothing but a menu and a heading, then it hands off instead of sending them', async () => {
    const response = await llm.complete({ model: 'builtin', messages: [{ role: 'user', content: 'shop contact' }], passages: [{ ...passage, text: 'Home | Shop | Contact\nContact us\n© Example Shop 2026' }] });
    expect(response).toMatchObject({ handoff: true, usedPassages: [] });
  });

  it('given a searchQuery (a resolved follow-up), then it answers that question', async () => {
    const response = await llm.complete({ model: 'builtin', messages: [{ role: 'user', content: 'and how long for it?' }], searchQuery: 'how long refunds take', passages: [passage] });
    expect(response.text).toBe('Refunds reach your card within 5 working days of the parcel arriving.');
  });
});
