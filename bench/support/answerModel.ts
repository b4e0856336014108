import { CONFIDENCE_FEATURE_NAMES, type ConfidenceFeatureName } from '../../src/domain/answers/confidence.js';
import { choosePassage } from '../../src/domain/answers/evidence.js';
import { fnv1a, type EvaluatedQuestion } from './answerEval.js';

/**
 * The learned decision to answer, fitted offline (never at run time): a logistic regression with L2 on the
 * features of the passage the builtin would answer from (confidence.ts), labelled 1 when that passage answers
 * the question rightly and 0 when it does not (another passage, or a question the knowledge base does not
 * answer). Features and regularisation are chosen by 5-fold cross-validation within the tuning part; the
 * held-out part is never seen here.
 */

/** One question of the tuning part as the learned decision sees it: every retrieved passage's vector. */
export interface QuestionVectors {
  q: string;
  answerable: boolean;
  passages: { x: number[]; score: number; evidence: number; right: boolean }[];
}

export function questionVectors(rows: EvaluatedQuestion[]): QuestionVectors[] {
  const handEvidence = CONFIDENCE_FEATURE_NAMES.indexOf('evidence');
  return rows.map((r) => ({
    q: r.q,
    answerable: r.title !== null,
    // The search explains each passage's vector; the passage is chosen, for training, by the hand-set evidence (as before the learned decision).
    passages: r.passages.map((p) => ({ x: p.confidenceFeatures!, score: p.score, evidence: p.confidenceFeatures![handEvidence]!, right: p.right })),
  }));
}

export interface Logistic {
  /** Per feature name used. */
  weights: Partial<Record<ConfidenceFeatureName, number>>;
  bias: number;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const column = (name: ConfidenceFeatureName) => CONFIDENCE_FEATURE_NAMES.indexOf(name);

export const probability = (model: Logistic, x: number[]) =>
  sigmoid(model.bias + Object.entries(model.weights).reduce((s, [name, w]) => s + w! * x[column(name as ConfidenceFeatureName)]!, 0));

/**
 * Logistic regression by full-batch gradient descent on standardised features, L2 penalty `lambda` on the
 * weights (not the bias); the weights are returned on the features' own scale.
 */
export function fitLogistic(samples: { x: number[]; y: number }[], features: readonly ConfidenceFeatureName[], lambda: number, iterations = 3000, rate = 0.5): Logistic {
  const cols = features.map(column);
  const n = samples.length;
  const mean = cols.map((c) => samples.reduce((s, e) => s + e.x[c]!, 0) / n);
  const sd = cols.map((c, j) => Math.sqrt(samples.reduce((s, e) => s + (e.x[c]! - mean[j]!) ** 2, 0) / n) || 1);
  const z = samples.map((e) => cols.map((c, j) => (e.x[c]! - mean[j]!) / sd[j]!));
  const w = cols.map(() => 0);
  let b = 0;
  for (let it = 0; it < iterations; it++) {
    const gw = w.map((wj) => lambda * wj);
    let gb = 0;
    samples.forEach((e, i) => {
      const err = sigmoid(b + w.reduce((s, wj, j) => s + wj * z[i]![j]!, 0)) - e.y;
      gb += err / n;
      z[i]!.forEach((zj, j) => (gw[j]! += (err * zj) / n));
    });
    w.forEach((_, j) => (w[j]! -= rate * gw[j]!));
    b -= rate * gb;
  }
  const weights: Logistic['weights'] = {};
  features.forEach((name, j) => (weights[name] = w[j]! / sd[j]!));
  return { weights, bias: b - features.reduce((s, _, j) => s + (w[j]! * mean[j]!) / sd[j]!, 0) };
}

/** How the passage to answer from is chosen: by the hand-set evidence as today, or by the learned probability (with the retrieval prior). */
export type Choice = 'evidence' | 'probability';

/** The training samples: the passage the builtin chooses today, labelled by whether it answers rightly. */
export const trainingSamples = (questions: QuestionVectors[]) =>
  questions.flatMap((q) => {
    const chosen = choosePassage(q.passages);
    return chosen === null ? [] : [{ x: chosen.x, y: chosen.right ? 1 : 0 }];
  });

/** Each question's decision under a model: the chosen passage's probability and whether it is right. */
export function decisions(model: Logistic, questions: QuestionVectors[], choice: Choice) {
  return questions.map((q) => {
    const scored = q.passages.map((p) => ({ ...p, evidence: choice === 'evidence' ? p.evidence : probability(model, p.x), p: probability(model, p.x) }));
    const chosen = choosePassage(scored);
    return { answerable: q.answerable, p: chosen?.p ?? 0, right: chosen?.right ?? false };
  });
}

export interface OperatingPoint {
  threshold: number;
  right: number;
  answered: number;
  precision: number;
  coverage: number;
  falseAnswers: number;
}

/** Precision, coverage and false answers had the decision answered from `threshold` on. */
export function operatingPoint(ds: { answerable: boolean; p: number; right: boolean }[], threshold: number): OperatingPoint {
  const answered = ds.filter((d) => d.p >= threshold);
  const right = answered.filter((d) => d.right).length;
  const answerable = ds.filter((d) => d.answerable).length;
  const unanswerable = ds.length - answerable;
  return {
    threshold,
    right,
    answered: answered.length,
    precision: answered.length === 0 ? 1 : right / answered.length,
    coverage: right / answerable,
    falseAnswers: unanswerable === 0 ? 0 : answered.filter((d) => !d.answerable).length / unanswerable,
  };
}

/** The most precise operating point with coverage ≥ `minCoverage` (ties: more coverage). */
export function bestAtCoverage(ds: { answerable: boolean; p: number; right: boolean }[], minCoverage: number): OperatingPoint | null {
  let best: OperatingPoint | null = null;
  for (const t of [...new Set(ds.map((d) => d.p))]) {
    const point = operatingPoint(ds, t);
    if (point.coverage < minCoverage) continue;
    if (best === null || point.precision > best.precision || (point.precision === best.precision && point.coverage > best.coverage)) best = point;
  }
  return best;
}

export const FOLDS = 5;
/** A tuning question's fold: by hash of its text (not the held-out hash's residue). */
export const foldOf = (q: string) => fnv1a(`fold:${q}`) % FOLDS;

/** Out-of-fold decisions: each fold decided by a model fitted on the other four. */
export function crossValidated(questions: QuestionVectors[], features: readonly ConfidenceFeatureName[], lambda: number, choice: Choice) {
  const out: ReturnType<typeof decisions> = [];
  for (let fold = 0; fold < FOLDS; fold++) {
    const train = questions.filter((q) => foldOf(q.q) !== fold);
    const test = questions.filter((q) => foldOf(q.q) === fold);
    const model = fitLogistic(trainingSamples(train), features, lambda);
    out.push(...decisions(model, test, choice));
  }
  return out;
}

/** The features and L2 penalty of the committed model (ANSWER_MODEL), as cross-validation chose them. */
export const CHOSEN_FEATURES: readonly ConfidenceFeatureName[] = ['evidence', 'matchedMass', 'title', 'passageLength'];
export const CHOSEN_L2 = 0.1;
/** The coverage the cross-validation metric asks for: the most precise point at or above it. */
export const MIN_COVERAGE = 0.72;

const describePoint = (o: OperatingPoint | null) =>
  o === null ? 'no point reaches the coverage' : `precision ${o.precision.toFixed(3)}  coverage ${o.coverage.toFixed(3)}  false answers ${(o.falseAnswers * 100).toFixed(1)} %  (${o.right}/${o.answered}, threshold ${o.threshold.toFixed(3)})`;
/** Precision first, coverage breaking ties. */
const merit = (o: OperatingPoint | null) => (o === null ? 0 : o.precision + o.coverage * 0.01);

/**
 * `bench:answers -- --features`: the tuning part's feature table (CSV, to `csvPath`), then the cross-validation:
 * the hand-set score's best point, a greedy forward selection of features for each L2 penalty, and the
 * committed choice refitted on the whole tuning part with its curve (where the three settings' thresholds come from).
 */
export function featuresReport(rows: EvaluatedQuestion[], writeCsv: (csv: string) => void, log: (line: string) => void = console.log) {
  const questions = questionVectors(rows);
  const header = ['question', 'answerable', ...CONFIDENCE_FEATURE_NAMES, 'label'].join(',');
  const lines = questions.flatMap((q) => {
    const chosen = choosePassage(q.passages);
    return chosen === null ? [] : [[JSON.stringify(q.q), q.answerable ? 1 : 0, ...chosen.x.map((v) => v.toFixed(4)), chosen.right ? 1 : 0].join(',')];
  });
  writeCsv([header, ...lines].join('\n') + '\n');
  const hand = questions.map((q) => {
    const chosen = choosePassage(q.passages);
    return { answerable: q.answerable, p: chosen?.evidence ?? 0, right: chosen?.right ?? false };
  });
  log(`${lines.length} tuning questions with a passage to answer from; precision at coverage ≥ ${MIN_COVERAGE}, out of fold (${FOLDS} folds):`);
  log(`  hand-set evidence score (not fitted per fold: its weights were tuned on the whole tuning part)  ${describePoint(bestAtCoverage(hand, MIN_COVERAGE))}`);
  for (const lambda of [0.001, 0.01, 0.1, 1]) {
    let features: ConfidenceFeatureName[] = ['evidence'];
    let current = bestAtCoverage(crossValidated(questions, features, lambda, 'probability'), MIN_COVERAGE);
    log(`  L2 ${lambda}: ${features.join(' + ')}  ${describePoint(current)}`);
    for (;;) {
      const next = CONFIDENCE_FEATURE_NAMES.filter((f) => !features.includes(f))
        .map((f) => ({ f, point: bestAtCoverage(crossValidated(questions, [...features, f], lambda, 'probability'), MIN_COVERAGE) }))
        .sort((a, b) => merit(b.point) - merit(a.point))[0];
      if (next === undefined || merit(next.point) <= merit(current) + 1e-9) break;
      features = [...features, next.f];
      current = next.point;
      log(`    + ${next.f}  ${describePoint(current)}`);
    }
    log(`    all ${CONFIDENCE_FEATURE_NAMES.length} features  ${describePoint(bestAtCoverage(crossValidated(questions, CONFIDENCE_FEATURE_NAMES, lambda, 'probability'), MIN_COVERAGE))}`);
  }
  const chosenCv = crossValidated(questions, CHOSEN_FEATURES, CHOSEN_L2, 'probability');
  log(`\ncommitted: ${CHOSEN_FEATURES.join(' + ')}, L2 ${CHOSEN_L2}`);
  for (const coverage of [0.7, 0.72, 0.75, 0.77, 0.79]) log(`  out of fold, coverage ≥ ${coverage}: ${describePoint(bestAtCoverage(chosenCv, coverage))}   hand-set: ${describePoint(bestAtCoverage(hand, coverage))}`);
  const model = fitLogistic(trainingSamples(questions), CHOSEN_FEATURES, CHOSEN_L2);
  const rounded = (x: number) => Math.round(x * 1000) / 1000;
  log(`  fitted on the whole tuning part (ANSWER_MODEL): bias ${rounded(model.bias)}, weights ${JSON.stringify(Object.fromEntries(Object.entries(model.weights).map(([k, v]) => [k, rounded(v!)])))}`);
  log('  its curve on the tuning part (the settings\' thresholds are chosen here):');
  const fitted = decisions(model, questions, 'probability');
  for (let t = 0.5; t <= 0.9001; t += 0.01) log(`    ${t.toFixed(2)}  ${describePoint(operatingPoint(fitted, t))}`);
}
