import { describe, expect, it } from 'vitest';
import { ANSWER_THRESHOLDS, choosePassage, DEFAULT_ANSWER_THRESHOLD, EVIDENCE_THRESHOLDS, nameStems, termWeight } from '../../src/domain/answers/evidence.js';
import { chunkTexts } from '../../src/domain/knowledge/chunking.js';
import { createBuiltinLlm } from '../../src/infrastructure/llm/builtinLlm.js';
import { createKnowledgeIndex } from '../../src/infrastructure/search/knowledgeIndex.js';
import { stemTerm } from '../../src/infrastructure/search/synonyms.js';
import { baselineFigures, evaluate, loadDomains, settingFigures } from '../../bench/support/answerEval.js';
import { CHOSEN_FEATURES, CHOSEN_L2, fitLogistic, questionVectors, trainingSamples } from '../../bench/support/answerModel.js';
import { ANSWER_MODEL, answerProbability, CONFIDENCE_FEATURE_NAMES } from '../../src/domain/answers/confidence.js';

/**
 * The builtin agent answers right or hands off (issue 26). Measured on the labelled evaluation set of
 * test/fixtures/answers (bench:answers); the held-out part was never used for tuning. The floors sit a margin
 * below the figures measured when the evidence score was tuned (bench/README.md), so a regression fails here.
 */
describe('answer or hand off (labelled evaluation set)', () => {
  it('has several companies, answerable questions with several phrasings and every kind of unanswerable one, and a held-out part', () => {
    const domains = loadDomains();
    expect(domains.length).toBeGreaterThanOrEqual(4);
    const questions = domains.flatMap((d) => d.questions);
    for (const kind of ['answerable', 'near-miss', 'other-country', 'other-product', 'out-of-scope'] as const) {
      expect(questions.filter((q) => q.kind === kind).length, kind).toBeGreaterThanOrEqual(kind === 'answerable' ? 150 : 10);
    }
    const heldOut = questions.filter((q) => q.heldOut).length / questions.length;
    expect(heldOut).toBeGreaterThan(0.3);
    expect(heldOut).toBeLessThan(0.5);
    for (const domain of domains) {
      for (const q of domain.questions.filter((x) => x.title !== null)) {
        const document = domain.documents.find((d) => d.title === q.title);
        expect(document, `${domain.name}: ${q.q}`).toBeDefined();
        if (q.section) expect(chunkTexts(document!).some((c) => c.startsWith(`## ${q.section}`)), `${q.q} → ${q.section}`).toBe(true);
      }
    }
  });

  it('at the default setting, on the held-out part: precision, false answers and coverage hold their measured level, far better than before', async () => {
    const rows = (await evaluate()).filter((r) => r.heldOut);
    const figures = settingFigures(rows, DEFAULT_ANSWER_THRESHOLD);
    const before = baselineFigures(rows);
    console.log(`[answers] held-out default: precision ${figures.precision.toFixed(3)}, coverage ${figures.coverage.toFixed(3)}, false answers ${figures.falseAnswerRate.toFixed(3)} (before: ${before.precision.toFixed(3)}, ${before.coverage.toFixed(3)}, ${before.falseAnswerRate.toFixed(3)})`);
    // Measured with the learned decision (confidence.ts) and each company's calibration (calibration.ts, issue 37):
    // precision 0.898 (53 right of 59 answers), false answers 6.0 %, coverage 0.654. Before the calibration (one
    // fixed threshold): 0.892, 8.0 %, 0.716 — the calibration, chosen on the public sets' tuning parts as well, trades
    // six points of coverage here for two fewer points of false answers (bench/README.md). Floors just under the
    // measured figures: one more wrong answer or two fewer right ones fail here.
    expect(figures.precision).toBeGreaterThanOrEqual(0.885);
    expect(figures.falseAnswerRate).toBeLessThanOrEqual(0.07);
    expect(figures.coverage).toBeGreaterThanOrEqual(0.63);
    expect(figures.precision).toBeGreaterThan(before.precision + 0.1);
    expect(figures.falseAnswerRate).toBeLessThan(before.falseAnswerRate / 3);
    // The settings are ordered: stricter answers less often, and no less precisely.
    const [strict, balanced, lenient] = ANSWER_THRESHOLDS.map((s) => settingFigures(rows, s));
    expect(strict!.answered).toBeLessThanOrEqual(balanced!.answered);
    expect(balanced!.answered).toBeLessThanOrEqual(lenient!.answered);
    expect(strict!.falseAnswerRate).toBeLessThanOrEqual(lenient!.falseAnswerRate);
  });
});

describe('learned decision to answer', () => {
  it('its committed coefficients are the ones a refit on the tuning part gives (bench:answers -- --features)', async () => {
    const tuning = (await evaluate()).filter((r) => !r.heldOut);
    const refit = fitLogistic(trainingSamples(questionVectors(tuning)), CHOSEN_FEATURES, CHOSEN_L2);
    expect(Object.keys(ANSWER_MODEL.weights).sort()).toEqual([...CHOSEN_FEATURES].sort());
    expect(refit.bias).toBeCloseTo(ANSWER_MODEL.bias, 2);
    for (const name of CHOSEN_FEATURES) expect(refit.weights[name], name).toBeCloseTo(ANSWER_MODEL.weights[name]!, 2);
  });

  it('is a probability that rises with the evidence, the IDF mass matched and a title match, and falls as the passage grows', () => {
    const at = (values: Partial<Record<(typeof CONFIDENCE_FEATURE_NAMES)[number], number>>) => {
      const base: Record<string, number> = { evidence: 0.6, matchedMass: 1.5, title: 0.3, passageLength: 0.6 };
      return answerProbability(CONFIDENCE_FEATURE_NAMES.map((n) => ({ ...base, ...values })[n] ?? 0));
    };
    const p = at({});
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(1);
    expect(at({ evidence: 0.9 })).toBeGreaterThan(p);
    expect(at({ matchedMass: 2.5 })).toBeGreaterThan(p);
    expect(at({ title: 1 })).toBeGreaterThan(p);
    expect(at({ passageLength: 1 })).toBeLessThan(p);
  });
});

describe('evidence score', () => {
  const index = createKnowledgeIndex();
  const add = (id: string, title: string, content: string) => index.addDocument('c', { id, title, chunks: chunkTexts({ title, content }) });
  add('ship', 'Shipping', 'We ship to Norway, Sweden and Denmark within 3 business days.');
  add('ret', 'Returns', 'You can return any item within 30 days of delivery for a full refund.');
  add('pay', 'Payment', 'We accept Visa, Mastercard and PayPal. Your card is charged when the order ships.');
  add('hours', 'Opening hours', 'Our store is open Monday to Saturday from 10:00 to 18:00.');
  const llm = createBuiltinLlm();
  const answer = async (question: string, answerThreshold?: (typeof ANSWER_THRESHOLDS)[number]) => {
    const passages = index.search('c', question).map(({ title, text, score, coverage, evidence, documentId, chunkIndex }) => ({ title, text, score, coverage, evidence, documentId, chunkIndex }));
    return llm.complete({ model: 'builtin', messages: [{ role: 'user', content: question }], passages, handoffMessage: 'A colleague will answer.', ...(answerThreshold ? { answerThreshold } : {}) });
  };

  it('hands off "Do you deliver to Finland?" (an unmatched name weighs heavily) and answers "Do you ship to Norway?"', async () => {
    expect(await answer('Do you deliver to Finland?')).toMatchObject({ text: 'A colleague will answer.', handoff: true });
    const norway = await answer('Do you ship to Norway?');
    expect(norway).toMatchObject({ text: expect.stringContaining('We ship to Norway') });
    expect(norway.handoff).toBeUndefined();
    // The evidence reported is the learned probability of a right answer: clear of the strictest setting's bar.
    expect(norway.evidence).toBeGreaterThan(EVIDENCE_THRESHOLDS.strict);
  });

  it('hands off an order number and a product the knowledge base never names', async () => {
    expect((await answer('Where is my order 40012873?')).handoff).toBe(true);
    expect((await answer('Can I pay with Klarna?')).handoff).toBe(true);
    expect((await answer('Can I pay with PayPal?')).handoff).toBeUndefined();
  });

  it('a general word weighs little in the form the index compares it (Porter stems: "possible" → "possibl", "many" → "mani")', async () => {
    for (const question of ['Is it possible to pay with PayPal?', 'Is it really possible to pay with PayPal?', 'How many days do I have to return an item?']) {
      const reply = await answer(question);
      expect(reply.handoff, question).toBeUndefined();
      expect(reply.evidence, question).toBeGreaterThan(0.8);
    }
  });

  it('the setting moves the bar: one evidence score, answered or handed off by the agent’s threshold', async () => {
    for (const question of ['Can I return a gift card within 30 days?', 'Do you ship to Norway?', 'Is my card charged when the order ships?']) {
      const replies = await Promise.all(ANSWER_THRESHOLDS.map((s) => answer(question, s)));
      replies.forEach((r, i) => {
        expect(r.evidence).toBe(replies[0]!.evidence);
        expect(r.handoff === true, `${question} at ${ANSWER_THRESHOLDS[i]}`).toBe(r.evidence! < EVIDENCE_THRESHOLDS[ANSWER_THRESHOLDS[i]!]);
      });
    }
    const passages = [{ title: 'Returns', text: 'Return within 30 days.', score: 3, evidence: (EVIDENCE_THRESHOLDS.lenient + EVIDENCE_THRESHOLDS.balanced) / 2 }];
    const ask = (answerThreshold: (typeof ANSWER_THRESHOLDS)[number]) => llm.complete({ model: 'builtin', messages: [{ role: 'user', content: 'return window' }], passages, answerThreshold });
    expect((await ask('lenient')).handoff).toBeUndefined();
    expect((await ask('balanced')).handoff).toBe(true);
    expect((await ask('strict')).handoff).toBe(true);
  });

  it('chooses the passage by evidence with the retrieval score as a prior: a far lower-ranked one needs clearly more evidence', () => {
    const top = { title: 'Shipping costs', score: 18, evidence: 0.91 };
    expect(choosePassage([top, { title: 'Payment methods', score: 8, evidence: 1 }])?.title).toBe('Shipping costs');
    expect(choosePassage([top, { title: 'Payment methods', score: 8, evidence: 1 }], 0)?.title).toBe('Payment methods');
    expect(choosePassage([{ ...top, evidence: 0.5 }, { title: 'Countries', score: 8, evidence: 0.95 }])?.title).toBe('Countries');
    expect(choosePassage([{ title: 'No evidence', score: 30 }, { title: 'Scored', score: 1, evidence: 0.2 }])?.title).toBe('Scored');
    expect(choosePassage([{ title: 'No evidence', score: 30 }])).toBeNull();
  });

  it('weighs a name absent from the knowledge base above a word present in many passages, general words low', () => {
    expect(termWeight('finland', 0, 20)).toBeGreaterThan(termWeight('deliver', 5, 20) * 2);
    expect(termWeight('want', 0, 20, 'word')).toBeLessThanOrEqual(0.4);
    expect(termWeight('rule', 0, 20, 'service')).toBeLessThanOrEqual(0.4);
    expect(termWeight('jumper', 0, 20, 'word')).toBeLessThan(termWeight('jumper', 0, 20, 'name'));
    expect([...nameStems('Do you deliver to Finland? My order 40012873 with PayPal, the S21.', stemTerm)].sort()).toEqual(['40012873', 'finland', 'paypal', 's21']);
    expect([...nameStems('Hi. Can I return it?', stemTerm)]).toEqual([]);
  });
});

describe('evidence score on a small knowledge base', () => {
  const oneDocument = (title: string, content: string) => {
    const index = createKnowledgeIndex();
    index.addDocument('c', { id: 'only', title, chunks: chunkTexts({ title, content }) });
    return index;
  };
  const llm = createBuiltinLlm();
  const answerFrom = async (index: ReturnType<typeof createKnowledgeIndex>, question: string, answerThreshold: (typeof ANSWER_THRESHOLDS)[number] = DEFAULT_ANSWER_THRESHOLD) => {
    const passages = index.search('c', question).map(({ title, text, score, coverage, evidence, documentId, chunkIndex }) => ({ title, text, score, coverage, evidence, documentId, chunkIndex }));
    return llm.complete({ model: 'builtin', messages: [{ role: 'user', content: question }], passages, handoffMessage: 'A colleague will answer.', answerThreshold });
  };

  it('one document: answers what it says at every setting ("Do you ship to Denmark?"), hands off a country it does not name ("Finland")', async () => {
    const index = oneDocument('Shipping', 'We ship to Norway, Sweden and Denmark within 5 working days.');
    for (const setting of ANSWER_THRESHOLDS) {
      for (const question of ['Do you ship to Denmark?', 'How fast do you ship to Denmark?', 'How long does shipping to Norway take?']) {
        const reply = await answerFrom(index, question, setting);
        expect(reply.handoff, `${question} at ${setting}`).toBeUndefined();
        expect(reply.text).toBe('We ship to Norway, Sweden and Denmark within 5 working days.');
      }
      for (const question of ['Do you ship to Finland?', 'Where is my order 40012873?', 'Can I pay with bitcoin?', 'Can you recommend a good pizza topping?']) {
        expect(await answerFrom(index, question, setting), `${question} at ${setting}`).toMatchObject({ text: 'A colleague will answer.', handoff: true });
      }
    }
  });

  it('one document: an ordinary word it lacks ("order") does not outweigh the ones it matches', async () => {
    const index = oneDocument('Returns', 'Returns are accepted within 30 days with the receipt.');
    expect((await answerFrom(index, 'Can I return my order after 30 days?')).handoff).toBeUndefined();
    expect((await answerFrom(index, 'Do you ship to Finland?')).handoff).toBe(true);
  });

  it('a term in the only passage weighs over half as much as a name the knowledge base lacks, more than an ordinary word it lacks', () => {
    expect(termWeight('denmark', 1, 1)).toBeGreaterThan(termWeight('finland', 0, 1) * 0.5);
    expect(termWeight('denmark', 1, 1)).toBeLessThan(termWeight('finland', 0, 1));
    expect(termWeight('fast', 0, 1, 'word')).toBeGreaterThan(termWeight('denmark', 1, 1));
    expect(termWeight('fast', 0, 1, 'word')).toBeLessThan(termWeight('denmark', 1, 1) * 1.5);
    // From MIN_RARITY_PASSAGES on, BM25's own weights.
    expect(termWeight('deliver', 5, 20)).toBeCloseTo(Math.log(1 + 15.5 / 5.5), 10);
  });
});
