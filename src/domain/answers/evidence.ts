import { z } from 'zod';

/**
 * How strong the knowledge base's evidence is that a passage answers a question: a score in 0..1, and the
 * per-agent setting that decides from which score an agent answers rather than hands off.
 *
 * The score is built from the question's informative terms, each weighted by how rare it is in the
 * company's knowledge base (BM25 inverse document frequency over its passages): a word in every passage
 * ("order", "deliver") says little, a word in one passage says a lot, and a word in no passage at all
 * ("Finland", an order number, a product the company does not sell) says most — when the best passage does
 * not contain it, the question asks about something the knowledge base does not know. Words customers wrap
 * any question in ("want", "long", "tell") are capped low, whether or not the knowledge base has them.
 *
 * Signals, per passage (see `evidenceOf`):
 * - weighted coverage: the weight of the question's terms the passage matches over the weight of all of
 *   them (a match through a synonym only counts SYNONYM_CREDIT);
 * - the rarest term the passage misses: a miss of a term absent from the knowledge base costs more;
 * - title or heading match: the share of the question's weight found in the passage's title or heading;
 * - margin: how much better the passage covers the question than the best passage of another document;
 * - answer type: a question asking for an amount, a time or a number (answerType.ts) keeps only part of the
 *   evidence of a passage that cannot hold one.
 *
 * The weights were tuned on the tuning part of test/fixtures/answers (four companies' knowledge bases and
 * labelled questions) and measured on its held-out part (bench/answers.ts, bench/README.md). The score is one
 * input of the decision to answer, not the decision: confidence.ts combines it with other signals into the
 * probability of a right answer, which the search reports as a passage's evidence and the settings compare.
 */

export const ANSWER_THRESHOLDS = ['strict', 'balanced', 'lenient'] as const;
export type AnswerThreshold = (typeof ANSWER_THRESHOLDS)[number];
export const answerThresholdSchema = z.enum(ANSWER_THRESHOLDS);
/** An agent without the setting (created before it existed, or left out) answers at this one. */
export const DEFAULT_ANSWER_THRESHOLD: AnswerThreshold = 'balanced';

/**
 * The probability of a right answer (confidence.ts, `answerProbability`: the learned combination of the
 * evidence signals, which the search reports as a passage's `evidence`) an agent needs to answer, per setting.
 * `strict` hands off more (fewer wrong answers, more work for people); `lenient` answers more (more questions
 * answered, more of them wrongly). Chosen on the tuning part of bench:answers: balanced is the most precise
 * point with coverage ≥ 0.72, strict and lenient the points around it where precision or coverage change.
 * Once a company's knowledge base is calibrated (calibration.ts), the evidence it reports is mapped so that these
 * values stand for the thresholds fitted on its own documents (each setting a target rate of false answers).
 */
export const EVIDENCE_THRESHOLDS: Readonly<Record<AnswerThreshold, number>> = {
  strict: 0.78,
  balanced: 0.72,
  lenient: 0.67,
};

export const evidenceThreshold = (setting: AnswerThreshold | undefined): number => EVIDENCE_THRESHOLDS[setting ?? DEFAULT_ANSWER_THRESHOLD];

/**
 * Words customers ask any question with, which say little about what they ask. Their weight is capped at
 * GENERAL_WORD_WEIGHT so that a knowledge base not happening to contain "want" or "long" does not make a
 * question look like it asks about something unknown. Words: the index compares Porter stems ("possible" is
 * "possibl" there, "many" "mani"), so it stems them with its own stemmer (`generalStems`).
 */
export const GENERAL_WORDS: ReadonlySet<string> = new Set(
  [
    'want', 'need', 'know', 'tell', 'like', 'long', 'take', 'make', 'use', 'work', 'way', 'possible', 'able', 'still',
    'already', 'usual', 'usually', 'happen', 'anymore', 'help', 'thing', 'really', 'actually', 'mean', 'see', 'look', 'find',
    'give', 'go', 'come', 'new', 'last', 'next', 'week', 'today', 'time', 'much', 'many', 'lot', 'also', 'yet', 'ago',
    'someone', 'somebody', 'thing', 'kind', 'sort', 'wrong', 'right', 'good', 'best', 'sure', 'guy', 'people', 'person',
    'okay', 'ask', 'asking', 'try', 'tried', 'said', 'say', 'put', 'keep', 'let', 'think', 'seem', 'via', 'per', 'instead',
    'anyone', 'everything', 'everyone', 'one', 'two', 'three', 'first', 'second', 'again', 'ever', 'always', 'never', 'often',
    'soon', 'day', 'month', 'year', 'minute', 'hour', 'live', 'get', 'place', 'placed', 'bought', 'buy', 'whole',
  ].map((w) => w.toLowerCase()),
);

/**
 * Terms the question writes as names: capitalised inside a sentence ("Finland", "PayPal"), acronyms ("UK",
 * "SSO"), letters mixed with digits ("S21", "2FA") and numbers of 5+ digits (order numbers). Stems.
 * A name the knowledge base does not contain is the strongest sign it does not know the answer, and a name
 * matched only through a typo ("Australia" ~ "Austria") is not a match.
 */
export function nameStems(question: string, stem: (term: string) => string): Set<string> {
  const names = new Set<string>();
  for (const sentence of question.split(/[.!?\n]+/)) {
    const tokens = sentence.split(/[^\p{L}\p{M}\p{N}]+/u).filter((t) => t.length > 0);
    tokens.forEach((token, i) => {
      const capitalisedInside = i > 0 && /^\p{Lu}/u.test(token) && token !== 'I';
      const acronym = token.length >= 2 && /^[\p{Lu}\d]+$/u.test(token) && /\p{Lu}/u.test(token);
      const mixed = /\p{L}/u.test(token) && /\d/.test(token);
      const longNumber = /^\d{5,}$/.test(token);
      if (capitalisedInside || acronym || mixed || longNumber) names.add(stem(token.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase()));
    });
  }
  return names;
}

/** An ordinary word (not a name) no passage contains weighs this share of an absent name: the knowledge base may say it otherwise. */
export const ABSENT_WORD_FACTOR = 0.7;
/** What a term matched only through a typo-tolerant (fuzzy) match counts for; a name: nothing. */
export const FUZZY_CREDIT = 0.5;

/** Weight of a general word (GENERAL_WORDS, short numbers), at most. */
export const GENERAL_WORD_WEIGHT = 0.4;
/** What a term matched only through a synonym counts for, of a direct match. */
export const SYNONYM_CREDIT = 0.6;

/** The stems of GENERAL_WORDS, by the index's stemmer (the domain has none). */
export const generalStems = (stem: (word: string) => string): Set<string> => new Set([...GENERAL_WORDS].map(stem));

/** True for words that say little about what is asked, and for numbers of up to 4 digits (amounts, sizes, times). */
export function isGeneralTerm(stem: string): boolean {
  return GENERAL_WORDS.has(stem) || /^\d{1,4}$/.test(stem) || /^\d{1,2}(am|pm|h|gb|mb)$/.test(stem);
}

/**
 * Below this many passages a knowledge base is too small to tell a common term from a rare one. With one
 * passage every term it contains is "in every passage" (BM25 weighs it ln(4/3) ≈ 0.29) while a word it lacks
 * weighs ln(4) ≈ 1.39 (ordinary words 0.7 of that), so one unmatched ordinary word outweighed all the matched
 * ones: "How fast do you ship to Denmark?" against "We ship to Norway, Sweden and Denmark within 5 working days"
 * was handed off. So rarity is taken as if the knowledge base had at least this many passages (the missing ones
 * containing none of the question's terms): a term of the only passage then weighs over half as much as a name the
 * knowledge base lacks (1.39 against 2.48), the score moves toward the share of the question's content words
 * the passage covers, and a name it lacks ("Finland", an order number) still sinks it.
 * Chosen on the tuning part of bench:answers' one-document knowledge bases (floors of 4 to 10 all give
 * coverage 0.77-0.79 at about 4 % false answers; 2 or 3 still hand off "How fast do you ship to Denmark?", and
 * also weighing an ordinary word the knowledge base lacks by its size bought coverage at two to four times the
 * false answers). From this size
 * on the weights are BM25's own; the evaluation set's full knowledge bases (12 to 16 passages) are unchanged.
 */
export const MIN_RARITY_PASSAGES = 5;

/**
 * A query term's weight: BM25's inverse document frequency over the company's passages
 * (ln(1 + (N − df + 0.5) / (df + 0.5)), N at least MIN_RARITY_PASSAGES), general words capped.
 */
export function termWeight(stem: string, documentFrequency: number, passageCount: number, kind: TermKind = 'name'): number {
  const n = Math.max(passageCount, documentFrequency, MIN_RARITY_PASSAGES);
  const idf = Math.log(1 + (n - documentFrequency + 0.5) / (documentFrequency + 0.5));
  if (kind === 'name') return idf;
  if (kind === 'general' || isGeneralTerm(stem)) return Math.min(idf, GENERAL_WORD_WEIGHT);
  if (documentFrequency > 0) return idf;
  // Absent from the knowledge base: a customer-service word with known synonyms ("rules", "defective") says
  // the knowledge base words it otherwise; another ordinary word may too, a name does not.
  return kind === 'service' ? GENERAL_WORD_WEIGHT : idf * ABSENT_WORD_FACTOR;
}

/**
 * How a query term is weighed when the knowledge base lacks it: a `name` (nameStems) fully, a `service` word
 * (one the search knows synonyms for: the vocabulary customers ask with) like a general word, any other word
 * at ABSENT_WORD_FACTOR. A `general` word (GENERAL_WORDS, by stem) is capped whether the knowledge base has it or not.
 */
export type TermKind = 'name' | 'general' | 'service' | 'word';

/** What is known of one passage against the question's terms (same order as the weights). */
export interface PassageMatch {
  /** Per term: 1 matched directly (stem or prefix), FUZZY_CREDIT through a typo, SYNONYM_CREDIT through a synonym only, 0 not. */
  match: number[];
  /** Per term: found in the passage's title or section heading. */
  inTitle: boolean[];
  /** Passages of one document share a key: the margin is taken over other documents' passages. */
  documentKey: string;
  /** The question expects an answer of a type (answerType.ts) this passage cannot hold. */
  typeMismatch?: boolean;
}

export interface EvidenceFeatures {
  coverage: number;
  /** 0..1: the weight of the heaviest term the passage misses, relative to the weight of an absent term. */
  missedRare: number;
  title: number;
  margin: number;
  /** 1 when the passage cannot hold the type of answer the question asks for (answerType.ts), else 0. */
  typeMismatch: number;
  /** The summed weight (IDF) of the question's terms the passage matches (synonyms and typos at their credit). */
  matchedMass: number;
  /** The summed weight of the question's terms it does not. */
  missedMass: number;
  /** The question's distinct terms. */
  terms: number;
  /** The question's distinct terms the passage matches at all. */
  matchedTerms: number;
}

/** The signals of each passage (same order). `absentWeight`: the weight of a term no passage contains. */
export function evidenceFeatures(weights: number[], passages: PassageMatch[], absentWeight: number): EvidenceFeatures[] {
  const total = weights.reduce((s, w) => s + w, 0);
  const typeMismatchOf = (p: PassageMatch) => (p.typeMismatch === true ? 1 : 0);
  const matchedTermsOf = (p: PassageMatch) => p.match.filter((m) => m > 0).length;
  if (total <= 0) return passages.map((p) => ({ coverage: 0, missedRare: 1, title: 0, margin: 0, typeMismatch: typeMismatchOf(p), matchedMass: 0, missedMass: 0, terms: weights.length, matchedTerms: matchedTermsOf(p) }));
  const coverages = passages.map((p) => p.match.reduce((s, m, i) => s + m * (weights[i] ?? 0), 0) / total);
  return passages.map((p, k) => {
    let missed = 0;
    let title = 0;
    weights.forEach((w, i) => {
      if ((p.match[i] ?? 0) === 0) missed = Math.max(missed, w);
      if (p.inTitle[i] === true) title += w;
    });
    const others = coverages.filter((_, j) => passages[j]!.documentKey !== p.documentKey);
    const margin = coverages[k]! - (others.length === 0 ? 0 : Math.max(...others));
    const missedRare = absentWeight > 0 ? Math.min(1, missed / absentWeight) : 0;
    const matchedMass = coverages[k]! * total;
    return { coverage: coverages[k]!, missedRare, title: title / total, margin, typeMismatch: typeMismatchOf(p), matchedMass, missedMass: total - matchedMass, terms: weights.length, matchedTerms: matchedTermsOf(p) };
  });
}

/** Combination weights of the signals (tuned, see the module comment). */
export interface EvidenceWeights {
  coverage: number;
  missedRare: number;
  title: number;
  margin: number;
  answerType: number;
}
export const EVIDENCE_WEIGHTS: Readonly<EvidenceWeights> = { coverage: 1, missedRare: 0.2, title: 0.1, margin: 0.3, answerType: 0.5 };

/** The hand-set evidence score, 0..1, from a passage's signals: one input of the learned decision (confidence.ts). */
export function evidenceScore(f: EvidenceFeatures, w: Readonly<EvidenceWeights> = EVIDENCE_WEIGHTS): number {
  const raw = w.coverage * f.coverage - w.missedRare * f.missedRare + w.title * f.title + w.margin * Math.max(0, f.margin);
  // A passage that cannot hold the kind of answer asked for loses a share of its evidence however well it covers the words.
  return Math.round(Math.min(1, Math.max(0, raw)) * (1 - w.answerType * f.typeMismatch) * 1000) / 1000;
}

/** Evidence scores of passages (same order). */
export function evidenceOf(weights: number[], passages: PassageMatch[], absentWeight: number): number[] {
  return evidenceFeatures(weights, passages, absentWeight).map((f) => evidenceScore(f));
}

/**
 * How much the retrieval score weighs when choosing the passage to answer from, beside the evidence: the share
 * of the best passage's BM25 score a passage has, times this. Evidence sees which of the question's terms a
 * passage holds, not how often nor in which field; BM25 (term-frequency saturation, length normalisation, title
 * and heading boosts) does. So a passage ranked far below another one of about the same evidence ("cash on
 * delivery" and "interest-free" in a payment passage against the shipping-costs passage, for "Is delivery free?")
 * does not win on an edge of a few hundredths. 0.2 to 0.5 choose alike on the tuning part of bench:answers; 1
 * outweighs the evidence.
 */
export const RETRIEVAL_PRIOR = 0.3;

/**
 * The passage to answer from: the one with the most evidence, the retrieval score as a prior (RETRIEVAL_PRIOR).
 * Passages without an evidence score are not candidates. Ties: the first (best-ranked).
 */
export function choosePassage<P extends { score: number; evidence?: number }>(passages: readonly P[], prior = RETRIEVAL_PRIOR): P | null {
  const top = Math.max(0, ...passages.map((p) => p.score));
  let chosen: P | null = null;
  let chosenRank = -Infinity;
  for (const p of passages) {
    if (p.evidence === undefined) continue;
    const rank = p.evidence + (top > 0 ? prior * (Math.max(0, p.score) / top) : 0);
    if (rank > chosenRank) {
      chosen = p;
      chosenRank = rank;
    }
  }
  return chosen;
}
