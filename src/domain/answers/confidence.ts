import type { EvidenceFeatures } from './evidence.js';

/**
 * What one retrieved passage brings to the decision to answer from it, besides its own evidence signals: how
 * the search ranked it against the other passages retrieved for the question, and how much of it is about
 * the question.
 */
export interface RetrievedPassageSignals {
  features: EvidenceFeatures;
  /** The hand-set evidence score (evidenceScore). */
  evidence: number;
  /** Its BM25 score (only comparable within the question). */
  score: number;
  /** Passages of one document share a key. */
  documentKey: string;
  /** Distinct search terms of the passage's text. */
  passageTerms: number;
}

/**
 * The features of the learned decision, by name, in the order of `confidenceFeatures`' vectors. Each is a
 * number the answerer computes anyway; the ones relative to the other passages are taken over the passages
 * retrieved for the question (5 in the reply pipeline).
 */
export const CONFIDENCE_FEATURE_NAMES = [
  /** The hand-set evidence score, 0..1. */
  'evidence',
  /** IDF-weighted share of the question's terms the passage matches. */
  'coverage',
  /** The heaviest term it misses, relative to a term absent from the knowledge base. */
  'missedRare',
  /** Weighted share of the question found in its title or heading. */
  'title',
  /** Its coverage minus the best coverage of another document's passage (may be negative). */
  'margin',
  /** 1: it cannot hold the type of answer asked for (answerType.ts). */
  'typeMismatch',
  /** ln(1 + IDF mass matched). */
  'matchedMass',
  /** ln(1 + IDF mass not matched). */
  'missedMass',
  /** The question's distinct terms, over 10. */
  'terms',
  /** Share of the question's distinct terms it matches at all (unweighted). */
  'plainCoverage',
  /** Its BM25 score over the best retrieved. */
  'scoreShare',
  /** Its BM25 score minus the best other passage's, over the best. */
  'scoreLead',
  /** Its evidence minus the best other passage's evidence. */
  'evidenceLead',
  /** ln(1 + BM25 score). */
  'logScore',
  /** The question's matched terms over the passage's distinct terms: how much of the passage is about the question. */
  'focus',
  /** ln(distinct terms of the passage) over 5. */
  'passageLength',
] as const;
export type ConfidenceFeatureName = (typeof CONFIDENCE_FEATURE_NAMES)[number];

/** Each passage's feature vector (CONFIDENCE_FEATURE_NAMES' order), relative to the other passages retrieved. */
export function confidenceFeatures(passages: readonly RetrievedPassageSignals[]): number[][] {
  const top = Math.max(0, ...passages.map((p) => p.score));
  return passages.map((p, k) => {
    const others = passages.filter((_, j) => j !== k);
    const bestOtherScore = Math.max(0, ...others.map((o) => o.score));
    const bestOtherEvidence = Math.max(0, ...others.map((o) => o.evidence));
    const f = p.features;
    const byName: Record<ConfidenceFeatureName, number> = {
      evidence: p.evidence,
      coverage: f.coverage,
      missedRare: f.missedRare,
      title: f.title,
      margin: f.margin,
      typeMismatch: f.typeMismatch,
      matchedMass: Math.log1p(f.matchedMass),
      missedMass: Math.log1p(f.missedMass),
      terms: f.terms / 10,
      plainCoverage: f.terms === 0 ? 0 : f.matchedTerms / f.terms,
      scoreShare: top > 0 ? p.score / top : 0,
      scoreLead: top > 0 ? (p.score - bestOtherScore) / top : 0,
      evidenceLead: p.evidence - bestOtherEvidence,
      logScore: Math.log1p(Math.max(0, p.score)),
      focus: p.passageTerms === 0 ? 0 : Math.min(1, f.matchedTerms / p.passageTerms),
      passageLength: Math.log(Math.max(1, p.passageTerms)) / 5,
    };
    return CONFIDENCE_FEATURE_NAMES.map((name) => byName[name]);
  });
}

/**
 * The learned decision to answer: a logistic regression giving the probability that the passage answers the
 * question rightly, from four of the features above (the others did not help under cross-validation).
 *
 * Fitted offline on the tuning part of test/fixtures/answers only (the held-out part never seen): the samples
 * are the passages the builtin chose by the hand-set evidence score, labelled 1 when the passage answers the
 * question and 0 when it does not (another passage, or a question the knowledge base does not answer);
 * gradient descent on standardised features, L2 penalty 0.1. The features and the penalty were chosen by
 * 5-fold cross-validation within the tuning part, the metric being precision at coverage ≥ 0.72 on the
 * held-in folds (bench/README.md). Refit, and print the cross-validation, with
 *   npm run bench:answers -- --features
 * and copy its coefficients here.
 */
export const ANSWER_MODEL: { readonly bias: number; readonly weights: Readonly<Partial<Record<ConfidenceFeatureName, number>>> } = {
  bias: -1.013,
  weights: { evidence: 2.567, matchedMass: 1.061, title: 1.501, passageLength: -2.385 },
};

/** The probability, 0..1 (3 decimals), that a passage with these features answers the question rightly. */
export function answerProbability(x: readonly number[], model = ANSWER_MODEL): number {
  let z = model.bias;
  for (const [name, weight] of Object.entries(model.weights)) z += weight! * x[CONFIDENCE_FEATURE_NAMES.indexOf(name as ConfidenceFeatureName)]!;
  return Math.round((1 / (1 + Math.exp(-z))) * 1000) / 1000;
}
