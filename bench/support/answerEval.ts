import { readdirSync, readFileSync } from 'node:fs';
import { chunkTexts } from '../../src/domain/knowledge/chunking.js';
import { ANSWER_THRESHOLDS, choosePassage, type AnswerThreshold, type EvidenceFeatures } from '../../src/domain/answers/evidence.js';
import { createBuiltinLlm } from '../../src/infrastructure/llm/builtinLlm.js';
import { createKnowledgeIndex, type KnowledgeSearchResult } from '../../src/infrastructure/search/knowledgeIndex.js';

/**
 * The answer-or-handoff evaluation (test/fixtures/answers): each company's knowledge base in a real knowledge
 * index, each labelled question searched as the reply pipeline searches it (5 passages) and answered by the
 * real builtin provider at each setting. Shared by bench/answers.ts and test/unit/answerDecision.test.ts.
 */

const FIXTURES = new URL('../../test/fixtures/answers/', import.meta.url);
const PASSAGES = 5;

export type QuestionKind = 'answerable' | 'near-miss' | 'other-country' | 'other-product' | 'out-of-scope';

export interface LabelledQuestion {
  domain: string;
  q: string;
  /** null: the knowledge base does not answer it. */
  title: string | null;
  section?: string;
  kind: QuestionKind;
  heldOut: boolean;
}

interface FixtureFile {
  company: string;
  documents?: { title: string; content: string }[];
  documentsFrom?: string;
  questions: { q: string; title: string | null; section?: string; kind?: QuestionKind }[];
}

/** 32-bit FNV-1a of a string's UTF-16 code units. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** The held-out part: fixed by the question's text alone, before any tuning (about 40 %). */
export const isHeldOut = (question: string) => fnv1a(question) % 5 < 2;

export interface Domain {
  name: string;
  documents: { title: string; content: string }[];
  questions: LabelledQuestion[];
}

/**
 * The evaluation domains. Besides test/fixtures/answers, the paraphrases of test/fixtures/retrieval/shop.json
 * (all answerable, written for the retrieval test) join the tuning part as domain `shop-retrieval`: they were
 * seen while tuning, so none of them is held out.
 */
export function loadDomains(): Domain[] {
  const retrieval = JSON.parse(readFileSync(new URL('../retrieval/shop.json', FIXTURES), 'utf8')) as {
    documents: Domain['documents'];
    questions: { q: string; title: string; section?: string }[];
  };
  const shopRetrieval: Domain = {
    name: 'shop-retrieval',
    documents: retrieval.documents,
    questions: retrieval.questions.map((q) => ({ domain: 'shop-retrieval', ...q, kind: 'answerable', heldOut: false })),
  };
  return [...fixtureDomains(), shopRetrieval];
}

/**
 * Small knowledge bases (one document each, as in the quick start): each fixture company's documents one at a
 * time, with the company's questions. A question answered by that document is answerable; every other one
 * (answered by another of the company's documents, or by none) is not, since this knowledge base lacks it.
 */
export function oneDocumentDomains(): Domain[] {
  return fixtureDomains().flatMap((domain) =>
    domain.documents.map((document) => ({
      name: `${domain.name}:${document.title}`,
      documents: [document],
      questions: domain.questions.map((q) =>
        q.title === null || q.title === document.title ? { ...q, domain: `${domain.name}:${document.title}` } : { ...q, domain: `${domain.name}:${document.title}`, title: null, kind: 'near-miss' as const },
      ),
    })),
  );
}

function fixtureDomains(): Domain[] {
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const name = file.replace(/\.json$/, '');
      const fixture = JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as FixtureFile;
      const documents = fixture.documents ?? (JSON.parse(readFileSync(new URL(fixture.documentsFrom!, FIXTURES), 'utf8')) as { documents: { title: string; content: string }[] }).documents;
      return {
        name,
        documents,
        questions: fixture.questions.map((q) => ({
          domain: name,
          q: q.q,
          title: q.title,
          ...(q.section !== undefined ? { section: q.section } : {}),
          kind: q.title === null ? (q.kind ?? 'out-of-scope') : 'answerable',
          heldOut: isHeldOut(q.q),
        })),
      };
    });
}

/** One question as the agent sees it: the passages retrieved, with their evidence, and what each setting did. */
export interface EvaluatedQuestion extends LabelledQuestion {
  passages: (KnowledgeSearchResult & { right: boolean })[];
  /** The passage the builtin chooses (choosePassage: what it answers from, when it answers). */
  best: { evidence: number; right: boolean; features?: EvidenceFeatures } | null;
  /** Per setting: 'right' | 'wrong' (answered from another passage, or answered an unanswerable question) | 'handoff'. */
  outcome: Record<AnswerThreshold, 'right' | 'wrong' | 'handoff'>;
  /** What the rule before evidence scores did (the first passage covering half the question's terms). */
  baseline: 'right' | 'wrong' | 'handoff';
}

const isRight = (hit: Pick<KnowledgeSearchResult, 'title' | 'text'>, q: LabelledQuestion) =>
  q.title !== null && hit.title === q.title && (q.section === undefined || hit.text.startsWith(`## ${q.section}`));

export async function evaluate(domains: Domain[] = loadDomains(), options: { calibrate?: boolean } = {}): Promise<EvaluatedQuestion[]> {
  const llm = createBuiltinLlm();
  const out: EvaluatedQuestion[] = [];
  for (const domain of domains) {
    const index = createKnowledgeIndex({ calibrationDelayMs: null });
    domain.documents.forEach((d, i) => index.addDocument(domain.name, { id: `doc-${i}`, title: d.title, chunks: chunkTexts(d) }));
    if (options.calibrate !== false) index.calibrate(domain.name);
    for (const question of domain.questions) {
      const hits = index.search(domain.name, question.q, { limit: PASSAGES, explain: true });
      const passages = hits.map((h) => ({ ...h, right: isRight(h, question) }));
      const bestHit = choosePassage(passages);
      const outcome = {} as EvaluatedQuestion['outcome'];
      for (const setting of ANSWER_THRESHOLDS) {
        // The real provider decides, with the passages as the reply pipeline hands them over.
        const response = await llm.complete({
          model: 'builtin',
          messages: [{ role: 'user', content: question.q }],
          passages: hits.map(({ title, text, score, coverage, evidence, documentId, chunkIndex }) => ({ title, text, score, coverage, evidence, documentId, chunkIndex })),
          handoffMessage: 'handoff',
          answerThreshold: setting,
        });
        if (response.handoff) outcome[setting] = 'handoff';
        else outcome[setting] = passages[response.usedPassages![0]!]!.right ? 'right' : 'wrong';
      }
      // The previous rule: the same passages without evidence scores → the provider's coverage fallback at 0.5.
      const before = await llm.complete({
        model: 'builtin',
        messages: [{ role: 'user', content: question.q }],
        passages: hits.map(({ title, text, score, coverage }) => ({ title, text, score, coverage })),
        answerThreshold: 'balanced',
      });
      const baseline = before.handoff ? 'handoff' : passages[before.usedPassages![0]!]!.right ? 'right' : 'wrong';
      out.push({
        ...question,
        baseline,
        passages,
        best: bestHit === null ? null : { evidence: bestHit.evidence, right: bestHit.right, ...(bestHit.evidenceFeatures ? { features: bestHit.evidenceFeatures } : {}) },
        outcome,
      });
    }
  }
  return out;
}

export interface Figures {
  questions: number;
  answerable: number;
  unanswerable: number;
  answered: number;
  right: number;
  /** right / answered (1 when nothing was answered). */
  precision: number;
  /** right / answerable. */
  coverage: number;
  /** Unanswerable questions answered / unanswerable questions. */
  falseAnswerRate: number;
  /** Answerable questions answered from the wrong passage / answerable. */
  wrongPassageRate: number;
}

function figuresOf(rows: { answerable: boolean; outcome: 'right' | 'wrong' | 'handoff' }[]): Figures {
  const answerable = rows.filter((r) => r.answerable);
  const unanswerable = rows.filter((r) => !r.answerable);
  const answered = rows.filter((r) => r.outcome !== 'handoff').length;
  const right = rows.filter((r) => r.outcome === 'right').length;
  return {
    questions: rows.length,
    answerable: answerable.length,
    unanswerable: unanswerable.length,
    answered,
    right,
    precision: answered === 0 ? 1 : right / answered,
    coverage: answerable.length === 0 ? 0 : right / answerable.length,
    falseAnswerRate: unanswerable.length === 0 ? 0 : unanswerable.filter((r) => r.outcome !== 'handoff').length / unanswerable.length,
    wrongPassageRate: answerable.length === 0 ? 0 : answerable.filter((r) => r.outcome === 'wrong').length / answerable.length,
  };
}

/** The figures of one setting, as the provider decided. */
export const settingFigures = (rows: EvaluatedQuestion[], setting: AnswerThreshold) =>
  figuresOf(rows.map((r) => ({ answerable: r.title !== null, outcome: r.outcome[setting] })));

/** The figures of the rule before evidence scores. */
export const baselineFigures = (rows: EvaluatedQuestion[]) => figuresOf(rows.map((r) => ({ answerable: r.title !== null, outcome: r.baseline })));

/** The figures had the threshold been `threshold` (the provider's rule: the best evidence must reach it). */
export const thresholdFigures = (rows: EvaluatedQuestion[], threshold: number) =>
  figuresOf(
    rows.map((r) => ({
      answerable: r.title !== null,
      outcome: r.best === null || r.best.evidence < threshold ? 'handoff' : r.best.right ? 'right' : 'wrong',
    })),
  );

/**
 * The public sets (test/fixtures/answers/public, README there): knowledge bases built from public FAQ and QA data,
 * with the questions of entries left out of the knowledge base as unanswerable near-misses. Split by entry into a
 * tuning and a held-out part; a set marked `heldOutWhole` is never used for tuning at all.
 */
export interface PublicSet {
  name: string;
  domain: string;
  source: string;
  licence: string;
  heldOutWhole: boolean;
  documents: { id: string; title: string; content: string }[];
  questions: { q: string; docs: string[]; part: 'tuning' | 'held-out'; kind: 'answerable' | 'entry-left-out' | 'adversarial' }[];
}

const PUBLIC = new URL('public/', FIXTURES);

export function loadPublicSets(): PublicSet[] {
  return readdirSync(PUBLIC)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(new URL(f, PUBLIC), 'utf8')) as PublicSet);
}

type Outcome = 'right' | 'wrong' | 'handoff';

/** One question of a public set: what the agent did at each setting with the company's calibration and without. */
export interface PublicRow {
  set: string;
  q: string;
  part: 'tuning' | 'held-out';
  kind: PublicSet['questions'][number]['kind'];
  answerable: boolean;
  /** The chosen passage's raw probability (before calibration), and whether it is from a right document. */
  best: { raw: number; calibrated: number; right: boolean } | null;
  calibrated: Record<AnswerThreshold, Outcome>;
  fixed: Record<AnswerThreshold, Outcome>;
}

export interface PublicEvaluation {
  rows: PublicRow[];
  /** Per set: the calibration fitted on its knowledge base (its probes' trade per setting). */
  calibrations: Map<string, ReturnType<ReturnType<typeof createKnowledgeIndex>['calibration']>>;
}

export async function evaluatePublic(sets: PublicSet[] = loadPublicSets()): Promise<PublicEvaluation> {
  const llm = createBuiltinLlm();
  const rows: PublicRow[] = [];
  const calibrations: PublicEvaluation['calibrations'] = new Map();
  for (const set of sets) {
    const index = createKnowledgeIndex({ calibrationDelayMs: null });
    for (const d of set.documents) index.addDocument(set.name, { id: d.id, title: d.title, chunks: chunkTexts(d) });
    calibrations.set(set.name, index.calibrate(set.name));
    for (const question of set.questions) {
      const hits = index.search(set.name, question.q, { limit: PASSAGES, explain: true });
      const right = (h: KnowledgeSearchResult) => question.docs.includes(h.documentId);
      const decide = async (evidenceOf: (h: KnowledgeSearchResult) => number) => {
        const outcome = {} as Record<AnswerThreshold, Outcome>;
        for (const setting of ANSWER_THRESHOLDS) {
          const response = await llm.complete({
            model: 'builtin',
            messages: [{ role: 'user', content: question.q }],
            passages: hits.map((h) => ({ title: h.title, text: h.text, score: h.score, coverage: h.coverage, evidence: evidenceOf(h), documentId: h.documentId, chunkIndex: h.chunkIndex })),
            handoffMessage: 'handoff',
            answerThreshold: setting,
          });
          outcome[setting] = response.handoff ? 'handoff' : right(hits[response.usedPassages![0]!]!) ? 'right' : 'wrong';
        }
        return outcome;
      };
      const chosen = choosePassage(hits);
      rows.push({
        set: set.name,
        q: question.q,
        part: set.heldOutWhole ? 'held-out' : question.part,
        kind: question.kind,
        answerable: question.docs.length > 0,
        best: chosen === null ? null : { raw: chosen.rawEvidence ?? chosen.evidence, calibrated: chosen.evidence, right: right(chosen) },
        calibrated: await decide((h) => h.evidence),
        fixed: await decide((h) => h.rawEvidence ?? h.evidence),
      });
    }
  }
  return { rows, calibrations };
}

/** Figures of public rows at a setting, with the company's calibration or the fixed thresholds. */
export const publicFigures = (rows: PublicRow[], setting: AnswerThreshold, which: 'calibrated' | 'fixed') =>
  figuresOf(rows.map((r) => ({ answerable: r.answerable, outcome: r[which][setting] })));

/** Figures had the raw probability been compared with `threshold` (one fixed threshold for every set). */
export const publicThresholdFigures = (rows: PublicRow[], threshold: number) =>
  figuresOf(rows.map((r) => ({ answerable: r.answerable, outcome: r.best === null || r.best.raw < threshold ? 'handoff' : r.best.right ? 'right' : 'wrong' })));

/** The tiny knowledge bases (test/fixtures/answers/tiny/tiny.json: 1 to 5 documents, plain questions), all held out. */
export function tinyDomains(): Domain[] {
  const file = JSON.parse(readFileSync(new URL('tiny/tiny.json', FIXTURES), 'utf8')) as {
    companies: { name: string; documents: { title: string; content: string }[]; questions: { q: string; title: string | null }[] }[];
  };
  return file.companies.map((c) => ({
    name: `tiny:${c.name}`,
    documents: c.documents,
    questions: c.questions.map((q) => ({ domain: `tiny:${c.name}`, q: q.q, title: q.title, kind: q.title === null ? ('near-miss' as const) : ('answerable' as const), heldOut: true })),
  }));
}
