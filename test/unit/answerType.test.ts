import { describe, expect, it } from 'vitest';
import { expectedAnswerType, holdsAnswerType } from '../../src/domain/answers/answerType.js';
import { chunkTexts } from '../../src/domain/knowledge/chunking.js';
import { createBuiltinLlm } from '../../src/infrastructure/llm/builtinLlm.js';
import { createKnowledgeIndex } from '../../src/infrastructure/search/knowledgeIndex.js';

describe('answer type', () => {
  it('given a question, when its wh-phrase asks for an amount, a time or a count, then that is the type it expects; else none', () => {
    for (const q of ['How much is shipping?', 'From what amount is delivery free?', 'what fees do you charge', 'How expensive is express?']) expect(expectedAnswerType(q), q).toBe('amount');
    for (const q of ['How long does delivery take?', 'When will my parcel arrive?', 'hi, when do you open', 'how fast is express delivery', 'What time do you close?', 'How much notice do I give?']) expect(expectedAnswerType(q), q).toBe('time');
    expect(expectedAnswerType('How many days do I have to return an item?')).toBe('count');
    for (const q of ['Do you ship to Norway?', 'Is my card charged when the order ships?', 'Where can I find my statements?', 'How do I reset my password?']) expect(expectedAnswerType(q), q).toBeNull();
  });

  it('given a passage, then it holds an amount, a time or a count only when its text can say one', () => {
    expect(holdsAnswerType('amount', 'Standard shipping is 4.95 EUR and free from 60 EUR.')).toBe(true);
    expect(holdsAnswerType('amount', 'We charge no fees for paying by card abroad.')).toBe(true);
    expect(holdsAnswerType('amount', 'Split the amount into three interest-free instalments. We do not accept cash on delivery.')).toBe(false);
    expect(holdsAnswerType('time', 'Express arrives the next working day.')).toBe(true);
    expect(holdsAnswerType('time', 'All our products carry a 2-year guarantee.')).toBe(true);
    expect(holdsAnswerType('time', 'We are open from 9 to 17 on weekdays.')).toBe(true);
    expect(holdsAnswerType('time', 'Parcels go out with DHL; you get a tracking link by email.')).toBe(false);
    expect(holdsAnswerType('count', 'Free is for up to 3 members.')).toBe(true);
    expect(holdsAnswerType('count', 'Invite people under Settings › Members.')).toBe(false);
  });

  it('given a question asking for an amount, when the passage sharing its words holds none, then the builtin agent does not answer from it', async () => {
    const index = createKnowledgeIndex();
    const add = (id: string, title: string, content: string) => index.addDocument('c', { id, title, chunks: chunkTexts({ title, content }) });
    add('pay', 'Payment methods', 'With Klarna you can split the amount into three interest-free instalments. We do not accept cash on delivery.');
    add('ship', 'Shipping costs', 'Standard shipping is 4.95 EUR and free from 60 EUR.');
    add('ret', 'Returns', 'You can send back any item within 30 days.');
    add('hours', 'Opening hours', 'Our store is open Monday to Saturday from 10:00 to 18:00.');
    const question = 'From what amount is delivery free?';
    const hits = index.search('c', question, { explain: true });
    expect(hits.find((h) => h.title === 'Payment methods')?.evidenceFeatures?.typeMismatch).toBe(1);
    expect(hits.find((h) => h.title === 'Shipping costs')?.evidenceFeatures?.typeMismatch).toBe(0);
    const passages = hits.map(({ title, text, score, coverage, evidence, documentId, chunkIndex }) => ({ title, text, score, coverage, evidence, documentId, chunkIndex }));
    const reply = await createBuiltinLlm().complete({ model: 'builtin', messages: [{ role: 'user', content: question }], passages, handoffMessage: 'A colleague will answer.' });
    expect(reply.text).not.toContain('Klarna');
  });
});
