import { ANSWER_THRESHOLDS, EVIDENCE_THRESHOLDS, type AnswerThreshold } from './evidence.js';

/**
 * Calibration of the decision to answer, per company, without labels.
 *
 * Why: the learned probability of a right answer (confidence.ts) was fitted on one set of fixtures. Its scale
 * depends on the knowledge base (how many passages, how long, how much their vocabulary overlaps): on a public
 * FAQ set of 100 threads a fixed threshold answered 46 % of the questions the knowledge base does not cover,
 * and on a one-document knowledge base it handed off plain questions the document answers.
 *
 * How: the company's own documents give questions with known answers. From a bounded sample of documents
 * (`CALIBRATION_DOCUMENTS`) the knowledge index derives probe questions (`probeQuestions`: titles, headings and
 * question-shaped sentences, else a passage's opening words) and asks each twice: with its document present
 * (answerable: a right answer is one from that document) and with the document left out (unanswerable by
 * construction, and a near miss: the rest of the knowledge base shares its vocabulary). Each setting becomes a
 * target rate of false answers (`FALSE_ANSWER_TARGETS`): its threshold is the lowest probability at which at
 * most that share of the left-out probes would be answered (`fitCalibration`). With few probes the fitted
 * threshold is pulled toward the fixed one (`PRIOR_PROBES`), so a tiny knowledge base keeps the tuned defaults
 * unless its own probes say otherwise.
 *
 * The agent's settings then compare a calibrated evidence (`calibratedEvidence`): the raw probability mapped,
 * monotonically and piecewise linearly, so that each setting's fitted threshold lands on its fixed threshold
 * (EVIDENCE_THRESHOLDS). The provider and every reader of `evidence` keep one scale, and a company without a
 * calibration (none fitted yet) sees the raw probability.
 */

/** The share of questions its knowledge base does not cover that a setting may answer (wrongly), at most. */
export const FALSE_ANSWER_TARGETS: Readonly<Record<AnswerThreshold, number>> = {
  strict: 0.02,
  balanced: 0.05,
  lenient: 0.1,
};

/**
 * A left-out probe is a harder near miss than most questions a knowledge base does not cover (it is made of the
 * words of a document like the others), so a setting may answer this many times its target share of the probes.
 * Chosen on the tuning parts of bench:answers (the fixtures, StackFAQ and CovidFAQ; SQuAD never seen): at 2 the
 * default setting answers 2 to 10 % of their uncovered questions, at 1 it gave up a sixth of the coverage for
 * about 2 points fewer false answers, at 4 answered 14 to 21 %.
 */
export const PROBE_RATE_FACTOR = 2;

/** Documents probed per calibration, at most (its cost is bounded by this, not by the knowledge base's size). */
export const CALIBRATION_DOCUMENTS = 40;
/** Probe questions per document, at most. */
export const PROBES_PER_DOCUMENT = 2;
/**
 * Weight of the fixed threshold, in probes: the fitted threshold counts as many left-out probes as were asked,
 * the fixed one as this many. Chosen on the tuning parts of bench:answers: 20 pulled a 160-probe fit a fifth of
 * the way back to the fixed threshold (a quarter of the near misses answered on the FAQ sets), 0 leaves a
 * one-document knowledge base (one or two probes, which find nothing once left out) at the floor.
 */
export const PRIOR_PROBES = 5;
/**
 * A fitted threshold stays within this band: below it a one-document knowledge base (whose left-out probes find
 * nothing) would answer anything; above it nothing would be answered at all.
 */
export const THRESHOLD_FLOOR = 0.5;
export const THRESHOLD_CEILING = 0.97;

/** One probe's outcome: the probability of the passage the agent would answer from (0: none retrieved). */
export interface ProbeSample {
  probability: number;
  /** True: its document was present (answerable); false: left out (unanswerable). */
  answerable: boolean;
  /** Answerable: the passage chosen is from the probe's document. */
  right: boolean;
}

/** What one setting does on the company's own probes: the basis of the agent page's sentence. */
export interface SettingTrade {
  /** The raw probability this setting needs. */
  threshold: number;
  /** Share of answerable probes answered from the right document. */
  coveredAnswered: number;
  /** Share of left-out probes answered (wrongly). */
  uncoveredAnswered: number;
}

export interface Calibration {
  /** Probes asked with their document present and left out. */
  answerable: number;
  unanswerable: number;
  settings: Record<AnswerThreshold, SettingTrade>;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Each setting's threshold from the company's probes: the lowest at which at most its FALSE_ANSWER_TARGETS share
 * of the unanswerable probes is answered, blended with the fixed threshold by PRIOR_PROBES, kept in the band and
 * in the settings' order (strict ≥ balanced ≥ lenient).
 */
export function fitCalibration(samples: readonly ProbeSample[]): Calibration {
  const negatives = samples.filter((s) => !s.answerable).map((s) => s.probability).sort((a, b) => b - a);
  const positives = samples.filter((s) => s.answerable);
  const settings = {} as Record<AnswerThreshold, SettingTrade>;
  let previous = THRESHOLD_CEILING;
  for (const setting of ANSWER_THRESHOLDS) {
    let fitted = THRESHOLD_FLOOR;
    if (negatives.length > 0) {
      // Answering at t answers the negatives ≥ t: allow floor(target × n) of them, so t sits just above the next one.
      const allowed = Math.floor(Math.min(1, FALSE_ANSWER_TARGETS[setting] * PROBE_RATE_FACTOR) * negatives.length);
      const firstRefused = negatives[allowed];
      fitted = firstRefused === undefined ? THRESHOLD_FLOOR : firstRefused + 0.001;
    }
    const weight = negatives.length / (negatives.length + PRIOR_PROBES);
    const blended = weight * fitted + (1 - weight) * EVIDENCE_THRESHOLDS[setting];
    const threshold = round3(Math.min(previous, Math.min(THRESHOLD_CEILING, Math.max(THRESHOLD_FLOOR, blended))));
    previous = threshold;
    settings[setting] = {
      threshold,
      coveredAnswered: positives.length === 0 ? 0 : round3(positives.filter((s) => s.right && s.probability >= threshold).length / positives.length),
      uncoveredAnswered: negatives.length === 0 ? 0 : round3(negatives.filter((p) => p >= threshold).length / negatives.length),
    };
  }
  return { answerable: positives.length, unanswerable: negatives.length, settings };
}

/**
 * The raw probability on the fixed thresholds' scale: piecewise linear through (0, 0), each setting's
 * (fitted threshold, fixed threshold) and (1, 1), so a setting answers exactly when the raw probability reaches
 * its fitted threshold. Monotone: a higher raw probability never gets a lower calibrated one.
 */
export function calibratedEvidence(probability: number, calibration: Calibration | null): number {
  if (calibration === null) return probability;
  // Knots ascending: lenient, balanced, strict (thresholds non-decreasing by construction).
  const knots: [number, number][] = [[0, 0]];
  for (const setting of [...ANSWER_THRESHOLDS].reverse()) knots.push([calibration.settings[setting].threshold, EVIDENCE_THRESHOLDS[setting]]);
  knots.push([1, 1]);
  for (let i = 1; i < knots.length; i++) {
    const [x0, y0] = knots[i - 1]!;
    const [x1, y1] = knots[i]!;
    // Below a knot stays below its value (rounding must not lift it onto the setting's threshold).
    if (probability < x1) return Math.min(Math.round((y0 + ((probability - x0) / (x1 - x0)) * (y1 - y0)) * 1000) / 1000, Math.max(y0, y1 - 0.001));
    // Equal thresholds: the raw value at the knot takes the higher setting's value (answered by both).
  }
  return round3(Math.min(1, probability));
}

/** A sentence ending in a question mark (8 to 200 characters): written as a customer would ask. */
const QUESTION_SENTENCE = /[^.!?\n]{8,200}\?/g;

/**
 * Questions a document answers, derived from its own text: its title and section headings when they have
 * at least two words, its question-shaped sentences (an FAQ's own questions), else the opening words of
 * its passages. At most `max`, deterministic.
 */
export function probeQuestions(document: { title: string; chunks: readonly string[] }, max = PROBES_PER_DOCUMENT): string[] {
  const probes: string[] = [];
  const add = (text: string) => {
    const clean = text.replace(/^#+\s*/, '').replace(/\s+/g, ' ').trim();
    if (clean.split(' ').length >= 2 && !probes.includes(clean)) probes.push(clean);
  };
  add(document.title);
  for (const chunk of document.chunks) {
    const heading = /^## (.+)$/m.exec(chunk)?.[1];
    if (heading !== undefined) add(heading.split(' › ').at(-1)!);
    for (const q of chunk.match(QUESTION_SENTENCE) ?? []) add(q);
  }
  for (const chunk of document.chunks) {
    const body = chunk.replace(/^## .*\n/, '');
    const words = body.split(/\s+/).filter((w) => w.length > 0);
    if (words.length >= 4) add(words.slice(0, 10).join(' '));
  }
  // Titles shared by every passage of an article ("Normans") say little: prefer longer probes first when many.
  return probes.slice(0, max);
}
