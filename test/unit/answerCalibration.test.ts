import { describe, expect, it } from 'vitest';
import { calibratedEvidence, fitCalibration, probeQuestions, THRESHOLD_FLOOR, type ProbeSample } from '../../src/domain/answers/calibration.js';
import { ANSWER_THRESHOLDS, DEFAULT_ANSWER_THRESHOLD, EVIDENCE_THRESHOLDS } from '../../src/domain/answers/evidence.js';
import { chunkTexts } from '../../src/domain/knowledge/chunking.js';
import { createBuiltinLlm } from '../../src/infrastructure/llm/builtinLlm.js';
import { CALIBRATION_CHUNK_BUDGET, createKnowledgeIndex } from '../../src/infrastructure/search/knowledgeIndex.js';
import { evaluate, evaluatePublic, publicFigures, settingFigures, tinyDomains } from '../../bench/support/answerEval.js';
import { eventually } from '../support/eventually.js';

const negatives = (scores: number[]): ProbeSample[] => scores.map((probability) => ({ probability, answerable: false, right: false }));
const positives = (scores: number[]): ProbeSample[] => scores.map((probability) => ({ probability, answerable: true, right: true }));
const spread = (n: number, from: number, to: number) => Array.from({ length: n }, (_, i) => from + ((to - from) * i) / (n - 1));

describe('calibration of the decision to answer (per knowledge base, from its own documents)', () => {
  it('given many left-out probes, each setting needs the probability that keeps its share of them answered under its target, stricter needing more', () => {
    const calibration = fitCalibration([...negatives(spread(200, 0.3, 0.95)), ...positives(spread(200, 0.8, 1))]);
    const { strict, balanced, lenient } = calibration.settings;
    expect(strict.threshold).toBeGreaterThan(balanced.threshold);
    expect(balanced.threshold).toBeGreaterThan(lenient.threshold);
    // The probes say this knowledge base's near misses score high: the thresholds rise above the fixed ones.
    expect(balanced.threshold).toBeGreaterThan(EVIDENCE_THRESHOLDS.balanced);
    expect(strict.uncoveredAnswered).toBeLessThan(balanced.uncoveredAnswered);
    expect(balanced.uncoveredAnswered).toBeLessThanOrEqual(0.1 + 0.02);
    expect(lenient.coveredAnswered).toBeGreaterThanOrEqual(strict.coveredAnswered);
  });

  it('given near misses that score low, the thresholds fall below the fixed ones, never under the floor', () => {
    const calibration = fitCalibration([...negatives(spread(100, 0, 0.3)), ...positives(spread(100, 0.5, 1))]);
    for (const setting of ANSWER_THRESHOLDS) {
      expect(calibration.settings[setting].threshold).toBeLessThan(EVIDENCE_THRESHOLDS[setting]);
      expect(calibration.settings[setting].threshold).toBeGreaterThanOrEqual(THRESHOLD_FLOOR);
    }
  });

  it('given one probe (a one-document knowledge base), the fixed thresholds weigh more than what it says', () => {
    const calibration = fitCalibration([...negatives([0]), ...positives([0.6])]);
    expect(calibration.settings.balanced.threshold).toBeGreaterThan(THRESHOLD_FLOOR);
    expect(calibration.settings.balanced.threshold).toBeLessThan(EVIDENCE_THRESHOLDS.balanced);
  });

  it('maps the raw probability so that each setting answers exactly from its fitted threshold, monotonically', () => {
    const calibration = fitCalibration([...negatives(spread(100, 0.3, 0.95)), ...positives(spread(100, 0.8, 1))]);
    for (const setting of ANSWER_THRESHOLDS) {
      const t = calibration.settings[setting].threshold;
      expect(calibratedEvidence(t, calibration)).toBeGreaterThanOrEqual(EVIDENCE_THRESHOLDS[setting]);
      expect(calibratedEvidence(t - 0.002, calibration)).toBeLessThan(EVIDENCE_THRESHOLDS[setting]);
    }
    const xs = spread(101, 0, 1).map((x) => calibratedEvidence(x, calibration));
    xs.slice(1).forEach((y, i) => expect(y).toBeGreaterThanOrEqual(xs[i]!));
    expect(calibratedEvidence(0.83, null)).toBe(0.83);
  });

  it('derives probe questions from titles, headings and question-shaped sentences', () => {
    const chunks = chunkTexts({ title: 'Returns policy', content: '## Refund times\nRefunds take 5 days. How do I send a parcel back? Print the label.' });
    expect(probeQuestions({ title: 'Returns policy', chunks }, 3)).toEqual(['Returns policy', 'Refund times', 'How do I send a parcel back?']);
    // Without a title, heading or question of two words: the opening words of its passages.
    expect(probeQuestions({ title: 'FAQ', chunks: ['Parcels go out every weekday before noon from our Berlin warehouse by courier.'] })).toEqual(['Parcels go out every weekday before noon from our Berlin']);
  });
});

describe('calibrated knowledge index', () => {
  const returnsPolicy = { title: 'Returns policy', content: 'You can return any parcel within 30 days of delivery. Print the return label from your account.' };

  it('a one-document knowledge base answers "Can I return a parcel?" once calibrated, and still hands off a country it never names', async () => {
    const index = createKnowledgeIndex();
    index.addDocument('c', { id: 'returns', ...returnsPolicy, chunks: chunkTexts(returnsPolicy) });
    const llm = createBuiltinLlm();
    const ask = async (question: string) =>
      llm.complete({ model: 'builtin', messages: [{ role: 'user', content: question }], passages: index.search('c', question), handoffMessage: 'handoff', answerThreshold: DEFAULT_ANSWER_THRESHOLD });
    expect(index.calibration('c')).toBeNull();
    expect(index.calibrate('c')).not.toBeNull();
    expect((await ask('Can I return a parcel?')).handoff).toBeUndefined();
    expect((await ask('Do you ship to Finland?')).handoff).toBe(true);
  });

  it('a refit puts every document back as it was, and leaves out no more passages than its budget', () => {
    const index = createKnowledgeIndex();
    const long = { title: 'Product manual', content: Array.from({ length: CALIBRATION_CHUNK_BUDGET + 50 }, (_, i) => `## Part ${i}\nThe widget model W${i} needs a ${i} mm bolt and a ${i % 7} volt battery.`).join('\n\n') };
    index.addDocument('c', { id: 'manual', ...long, chunks: chunkTexts(long) });
    index.addDocument('c', { id: 'returns', ...returnsPolicy, chunks: chunkTexts(returnsPolicy) });
    const chunks = index.chunkCount('c');
    expect(chunks).toBeGreaterThan(CALIBRATION_CHUNK_BUDGET);
    const before = index.search('c', 'W12 bolt').map((r) => r.text);
    const calibration = index.calibrate('c')!;
    // The manual exceeds the budget: only the returns policy was probed.
    expect(calibration.answerable).toBe(probeQuestions({ title: returnsPolicy.title, chunks: chunkTexts(returnsPolicy) }).length);
    expect(index.chunkCount('c')).toBe(chunks);
    expect(index.search('c', 'W12 bolt').map((r) => r.text)).toEqual(before);
    expect(index.search('c', 'return a parcel')[0]?.documentId).toBe('returns');
  });

  it('refits by itself after the knowledge base changes, and keeps each company to its own calibration', async () => {
    const index = createKnowledgeIndex({ calibrationDelayMs: 20 });
    index.addDocument('a', { id: 'returns', ...returnsPolicy, chunks: chunkTexts(returnsPolicy) });
    await eventually(() => expect(index.calibration('a')).not.toBeNull());
    const first = index.calibration('a');
    expect(index.calibration('b')).toBeNull();
    const shipping = { title: 'Shipping', content: 'We ship to Norway, Sweden and Denmark within 5 working days.' };
    index.addDocument('a', { id: 'shipping', ...shipping, chunks: chunkTexts(shipping) });
    await eventually(() => expect(index.calibration('a')).not.toBe(first));
    expect(index.calibration('a')!.answerable).toBeGreaterThan(first!.answerable);
  });
});

describe('answer or hand off on public data sets and tiny knowledge bases (bench:answers, held-out parts)', () => {
  it('at the default setting each knowledge base\'s calibration cuts the false answers of the fixed threshold, and keeps its measured level', async () => {
    const { rows } = await evaluatePublic();
    const held = (set: string) => rows.filter((r) => r.set === set && r.part === 'held-out' && r.kind !== 'adversarial');
    const at = (set: string, which: 'fixed' | 'calibrated') => publicFigures(held(set), DEFAULT_ANSWER_THRESHOLD, which);
    for (const set of ['stackfaq', 'covidfaq', 'squad2']) {
      const [before, after] = [at(set, 'fixed'), at(set, 'calibrated')];
      console.log(`[answers] ${set} held-out default: precision ${before.precision.toFixed(3)} → ${after.precision.toFixed(3)}, covered answered right ${before.coverage.toFixed(3)} → ${after.coverage.toFixed(3)}, false answers ${before.falseAnswerRate.toFixed(3)} → ${after.falseAnswerRate.toFixed(3)}`);
    }
    // Measured (bench/README.md): StackFAQ 0.744/0.627/30.6 % → 0.820/0.490/16.7 %; SQuAD 2.0 (never tuned on)
    // 0.790/0.681/28.3 % → 0.909/0.106/2.2 %. Issue 37's targets (false ≤ 10 %, precision ≥ 0.90, covered ≥ 0.60) are
    // not all met: the floors sit just under the measured figures so that a regression fails here.
    const stack = at('stackfaq', 'calibrated');
    expect(stack.falseAnswerRate).toBeLessThanOrEqual(0.2);
    expect(stack.falseAnswerRate).toBeLessThan(at('stackfaq', 'fixed').falseAnswerRate - 0.1);
    expect(stack.precision).toBeGreaterThanOrEqual(0.8);
    expect(stack.coverage).toBeGreaterThanOrEqual(0.45);
    const squad = at('squad2', 'calibrated');
    expect(squad.falseAnswerRate).toBeLessThanOrEqual(0.05);
    expect(squad.precision).toBeGreaterThanOrEqual(0.85);
    expect(squad.falseAnswerRate).toBeLessThan(at('squad2', 'fixed').falseAnswerRate / 3);
    // CovidFAQ's held-out part has only 4 uncovered questions: its precision is what is checked (near-duplicate FAQs bound it).
    expect(at('covidfaq', 'calibrated').precision).toBeGreaterThanOrEqual(0.4);
  });

  it('tiny knowledge bases (1 to 5 documents): at least 90 % of the plain questions they answer are answered right, none of the others', async () => {
    const rows = await evaluate(tinyDomains());
    const figures = settingFigures(rows, DEFAULT_ANSWER_THRESHOLD);
    // Measured: 0.923 (24 of 26) after, 0.885 before; no false answer either way.
    expect(figures.coverage).toBeGreaterThanOrEqual(0.9);
    expect(figures.falseAnswerRate).toBe(0);
  });
});
