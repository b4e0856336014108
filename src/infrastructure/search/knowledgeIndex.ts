import MiniSearch, { type Query, type SearchResult } from 'minisearch';
import { normalizeTerm, queryTerms, searchTerms, stripHeadingContext, tokenize } from '../../domain/knowledge/chunking.js';
import { evidenceFeatures, evidenceScore, FUZZY_CREDIT, generalStems, nameStems, SYNONYM_CREDIT, termWeight, type EvidenceFeatures, type PassageMatch } from '../../domain/answers/evidence.js';
import { answerProbability, confidenceFeatures } from '../../domain/answers/confidence.js';
import { CALIBRATION_DOCUMENTS, calibratedEvidence, fitCalibration, probeQuestions, type Calibration, type ProbeSample } from '../../domain/answers/calibration.js';
import { choosePassage } from '../../domain/answers/evidence.js';
import { ANSWER_TYPE_CUES, expectedAnswerType, holdsAnswerType, type AnswerType } from '../../domain/answers/answerType.js';
import { searchBounded } from './boundedTerms.js';
import { stemTerm, SYNONYM_WEIGHT, synonymsOf } from './synonyms.js';

/**
 * In-memory BM25 knowledge-base index (minisearch), one separate index per company so that a search
 * can never return another company's passage. One indexed entry per chunk; fields `title` (boosted most),
 * `heading` (the chunk's section heading path, boosted) and `body`. Terms are English-tokenised without stop
 * words (see domain/knowledge/chunking.ts) and Porter-stemmed ("returns", "returning" → "return"); query
 * stems of 4+ characters also match by prefix and with fuzziness 0.2 (1 edit per 5 chars, at most 2), and
 * each query term also matches a few related words (synonyms.ts) at a lower weight.
 * A query is reduced to its first MAX_QUERY_TERMS distinct terms of at most MAX_TERM_CHARS before it reaches
 * minisearch, and a document indexes at most MAX_TERMS_PER_DOCUMENT distinct terms (its most frequent), so
 * neither a huge query nor a document of random words can make a search or the index unbounded; and a search's
 * prefix and typo expansions, and the passages they score, are capped (boundedTerms.ts), so its cost is bounded by
 * the query however many words the company's index holds.
 *
 * It is a disposable cache: it is rebuilt from the knowledge-base events (addDocument per document)
 * at start-up, and kept current by the projector that handles document added/removed events.
 */

export interface KnowledgeDocument {
  id: string;
  title: string;
  /** Passages as produced by `chunkTexts` (heading context line + body). */
  chunks: string[];
}

export interface KnowledgeSearchResult {
  documentId: string;
  title: string;
  chunkIndex: number;
  /** The whole chunk as indexed (heading context line included). */
  text: string;
  /** ~200 characters of the chunk's body around the densest cluster of matched terms. */
  snippet: string;
  /** BM25 score: unbounded, only comparable within one query. */
  score: number;
  /** Fraction (0..1) of the query's distinct terms that matched this chunk (prefix/fuzzy included). */
  coverage: number;
  /**
   * The probability, 0..1, that this passage answers the query rightly (domain/answers/confidence.ts): a
   * learned combination of the hand-set evidence score (evidence.ts: the query's terms weighted by their
   * rarity in the company's knowledge base, title match, margin over other documents' passages), the IDF
   * mass matched, the title or heading match and the passage's length.
   */
  evidence: number;
  /** The signals behind the hand-set evidence score, when the search was asked to explain (`explain: true`). */
  evidenceFeatures?: EvidenceFeatures;
  /** The learned decision's feature vector (CONFIDENCE_FEATURE_NAMES' order), when asked to explain. */
  confidenceFeatures?: number[];
  /** The probability before the company's calibration (calibration.ts), when asked to explain. */
  rawEvidence?: number;
}

export interface KnowledgeSearchOptions {
  /** Default 5, at most 50. */
  limit?: number;
  /** Adds each result's `evidenceFeatures` (evaluation and tuning). */
  explain?: boolean;
}

export interface KnowledgeIndex {
  /** Adds (or replaces, when the id is already indexed) a document's chunks in the company's index. */
  addDocument(companyId: string, document: KnowledgeDocument): void;
  /** No-op when the document is not indexed. */
  removeDocument(companyId: string, documentId: string): void;
  /** Best first; [] for an empty query or one made only of stop words. */
  search(companyId: string, query: string, options?: KnowledgeSearchOptions): KnowledgeSearchResult[];
  /** Number of chunks indexed for the company (0 for an unknown company). */
  chunkCount(companyId: string): number;
  /**
   * Fits the company's calibration now (domain/answers/calibration.ts) from probes of its own documents, and
   * uses it for the searches that follow; null for an unknown or empty company. The index also refits by itself,
   * CALIBRATION_DELAY_MS after the knowledge base last changed.
   */
  calibrate(companyId: string): Calibration | null;
  /** The calibration searches use (null: none fitted yet, the raw probability is reported). */
  calibration(companyId: string): Calibration | null;
}

export interface KnowledgeIndexOptions {
  /**
   * Refit a company's calibration this long after its knowledge base last changed (the index hosts pass
   * CALIBRATION_DELAY_MS); null (the default): only on `calibrate`, so a unit test's figures do not change under it.
   */
  calibrationDelayMs?: number | null;
}

/**
 * How long after the last change of a company's knowledge base its calibration is refitted: an upload of many
 * documents refits once, after the last one. A refit asks at most CALIBRATION_DOCUMENTS × PROBES_PER_DOCUMENT × 2
 * searches, whatever the knowledge base's size.
 */
export const CALIBRATION_DELAY_MS = 2_000;

interface IndexedChunk {
  id: string;
  documentId: string;
  title: string;
  chunkIndex: number;
  /** The whole chunk (stored, returned); indexed as `heading` and `body`. */
  text: string;
  heading: string;
  body: string;
}

interface CompanyIndex {
  mini: MiniSearch<IndexedChunk>;
  /** While a document is being added: the only terms it may index (null = all). */
  allowed: Set<string> | null;
  /** documentId → ids of its indexed chunks. */
  documents: Map<string, string[]>;
  /** The calibration its searches use (null: none fitted yet). */
  calibration: Calibration | null;
  /** The pending background refit. */
  refit: ReturnType<typeof setTimeout> | null;
}

export const SNIPPET_CHARS = 200;
/** A question naming a document's or a section's subject ("return rules" → "Returns") should find it first. */
const TITLE_BOOST = 3;
const HEADING_BOOST = 2;
const MAX_LIMIT = 50;
/** Bounds the fuzzy search's work per term (minisearch's default is 6 edits for long terms). */
const MAX_FUZZY_EDITS = 2;
/**
 * Distinct terms one document may add to its company's term dictionary. minisearch spends ~550 bytes per
 * distinct term (radix-tree node + posting maps), so a 1 MiB document of random words (~150,000 terms)
 * would cost ~80 MiB; prose of that size has ~10,000–20,000 distinct terms and is not affected.
 */
export const MAX_TERMS_PER_DOCUMENT = 20_000;

const fuzzyAndPrefixStem = (term: string): boolean => term.length >= 4;
/** What a word naming the answer's type ("amount", "how long") counts for in a passage holding an answer of that type. */
const CUE_CREDIT = SYNONYM_CREDIT;
/** The general words (evidence.ts) as this index's stems. */
const GENERAL_STEMS = generalStems(stemTerm);

function createCompanyIndex(): CompanyIndex {
  const company: CompanyIndex = { mini: undefined as unknown as MiniSearch<IndexedChunk>, allowed: null, documents: new Map(), calibration: null, refit: null };
  company.mini = new MiniSearch<IndexedChunk>({
    idField: 'id',
    fields: ['title', 'heading', 'body'],
    storeFields: ['documentId', 'title', 'chunkIndex', 'text'],
    tokenize: (text) => tokenize(text),
    processTerm: (term) => {
      const normalized = normalizeTerm(term);
      return normalized !== null && (company.allowed === null || company.allowed.has(normalized)) ? stemTerm(normalized) : null;
    },
    searchOptions: {
      boost: { title: TITLE_BOOST, heading: HEADING_BOOST },
      prefix: fuzzyAndPrefixStem,
      fuzzy: (term) => (fuzzyAndPrefixStem(term) ? 0.2 : false),
      maxFuzzy: MAX_FUZZY_EDITS,
      combineWith: 'OR',
    },
    logger: () => {},
  });
  return company;
}

/** The document's MAX_TERMS_PER_DOCUMENT most frequent terms (ties: first seen), or null when it has fewer. */
export function termsToIndex(document: { title: string; chunks: string[] }): Set<string> | null {
  const counts = new Map<string, number>();
  for (const text of [document.title, ...document.chunks]) {
    for (const term of searchTerms(text)) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  if (counts.size <= MAX_TERMS_PER_DOCUMENT) return null;
  const ranked = [...counts].sort((a, b) => b[1] - a[1]); // stable: ties keep their first-seen order
  return new Set(ranked.slice(0, MAX_TERMS_PER_DOCUMENT).map(([term]) => term));
}

export function createKnowledgeIndex(options: KnowledgeIndexOptions = {}): KnowledgeIndex {
  const companies = new Map<string, CompanyIndex>();
  const delay = options.calibrationDelayMs ?? null;

  const scheduleRefit = (companyId: string, company: CompanyIndex) => {
    if (delay === null) return;
    if (company.refit !== null) clearTimeout(company.refit);
    company.refit = setTimeout(() => {
      company.refit = null;
      if (companies.get(companyId) === company) company.calibration = calibrateCompany(company);
    }, delay);
    company.refit.unref?.();
  };

  const remove = (company: CompanyIndex, documentId: string) => {
    const ids = company.documents.get(documentId);
    if (ids === undefined) return;
    for (const id of ids) company.mini.discard(id);
    company.documents.delete(documentId);
  };

  return {
    addDocument(companyId, document) {
      let company = companies.get(companyId);
      if (company === undefined) {
        company = createCompanyIndex();
        companies.set(companyId, company);
      }
      remove(company, document.id);
      const entries: IndexedChunk[] = document.chunks.map((text, chunkIndex) => {
        const body = stripHeadingContext(text);
        return { id: `${document.id}#${chunkIndex}`, documentId: document.id, title: document.title, chunkIndex, text, heading: headingOf(text, body), body };
      });
      company.allowed = termsToIndex(document);
      try {
        company.mini.addAll(entries);
      } finally {
        company.allowed = null;
      }
      company.documents.set(
        document.id,
        entries.map((e) => e.id),
      );
      scheduleRefit(companyId, company);
    },

    removeDocument(companyId, documentId) {
      const company = companies.get(companyId);
      if (company !== undefined) {
        remove(company, documentId);
        scheduleRefit(companyId, company);
      }
    },

    calibrate(companyId) {
      const company = companies.get(companyId);
      if (company === undefined) return null;
      company.calibration = calibrateCompany(company);
      return company.calibration;
    },

    calibration(companyId) {
      return companies.get(companyId)?.calibration ?? null;
    },

    search(companyId, query, options = {}) {
      const company = companies.get(companyId);
      if (company === undefined) return [];
      return searchCompany(company, query, options).map((r) => ({ ...r, ...(options.explain ? { rawEvidence: r.evidence } : {}), evidence: calibratedEvidence(r.evidence, company.calibration) }));
    },

    chunkCount(companyId) {
      const company = companies.get(companyId);
      if (company === undefined) return 0;
      let count = 0;
      for (const ids of company.documents.values()) count += ids.length;
      return count;
    },
  };
}

/** The company's search with the raw (uncalibrated) probability as `evidence`. */
function searchCompany(company: CompanyIndex, query: string, options: KnowledgeSearchOptions): KnowledgeSearchResult[] {
    // Bounded here, before minisearch: one 65,536-character word made its fuzzy matrix throw RangeError.
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    const limit = Math.max(1, Math.min(MAX_LIMIT, Math.floor(options.limit ?? 5)));
    const groups = expandQuery(terms);
    const stems = groups.map((g) => g.stem);
    const synonyms = groups.flatMap((g) => g.synonyms);
    // Bounded work however big the index: prefix and typo expansions are capped (boundedTerms.ts).
    const hits = searchBounded(company.mini, stems, synonyms, () => company.mini.search(queryOf(groups), { tokenize: (term) => [term], processTerm: (term) => term }));
    const ranked = rescore(hits, groups);
    const top = ranked.slice(0, limit);
    const features = evidenceOfHits(groups, { names: nameStems(query, stemTerm), answerType: expectedAnswerType(query) }, ranked, top.map((r) => r.hit), company.mini.documentCount);
    const vectors = confidenceFeatures(
      top.map(({ hit, score }, i) => ({
        features: features[i]!,
        evidence: evidenceScore(features[i]!),
        score,
        documentKey: String(hit['documentId']),
        passageTerms: new Set(searchTerms(stripHeadingContext(String(hit['text'])))).size,
      })),
    );
    return top.map(({ hit, score, matchedGroups }, i) => {
      const result = toResult(hit, score, matchedGroups / groups.length, answerProbability(vectors[i]!));
      return options.explain ? { ...result, evidenceFeatures: features[i]!, confidenceFeatures: vectors[i]! } : result;
    });
}

/**
 * Probes a bounded sample of the company's documents (domain/answers/calibration.ts): each probe question asked
 * with its document present, then with it left out (its passages discarded for the probe and put back,
 * synchronously: no search runs in between), and the calibration fitted from what the agent would have answered.
 * Null: no documents.
 */
function calibrateCompany(company: CompanyIndex): Calibration | null {
  const ids = [...company.documents.keys()];
  if (ids.length === 0) return null;
  const sample = ids.map((id) => ({ id, key: fnv1a(id) })).sort((a, b) => a.key - b.key).slice(0, CALIBRATION_DOCUMENTS);
  const samples: ProbeSample[] = [];
  const best = (query: string) => choosePassage(searchCompany(company, query, { limit: CALIBRATION_PASSAGES }));
  let budget = CALIBRATION_CHUNK_BUDGET;
  for (const { id } of sample) {
    const chunkIds = company.documents.get(id)!;
    // Leaving a document out re-indexes it: a long one (a 1 MiB upload is ~1,500 passages, ~1 s) is skipped
    // once the budget would not cover it, so a refit blocks the index thread for a bounded time.
    if (chunkIds.length > budget) continue;
    budget -= chunkIds.length;
    const stored = chunkIds.map((chunkId) => company.mini.getStoredFields(chunkId) as { title: string; chunkIndex: number; text: string } | undefined);
    if (stored.length === 0 || stored.some((s) => s === undefined)) continue;
    const entries: IndexedChunk[] = stored.map((s, i) => {
      const body = stripHeadingContext(s!.text);
      return { id: chunkIds[i]!, documentId: id, title: s!.title, chunkIndex: s!.chunkIndex, text: s!.text, heading: headingOf(s!.text, body), body };
    });
    const probes = probeQuestions({ title: entries[0]!.title, chunks: entries.map((e) => e.text) });
    for (const probe of probes) {
      const hit = best(probe);
      samples.push({ probability: hit?.evidence ?? 0, answerable: true, right: hit?.documentId === id });
    }
    if (probes.length === 0) continue;
    for (const chunkId of chunkIds) company.mini.discard(chunkId);
    try {
      for (const probe of probes) samples.push({ probability: best(probe)?.evidence ?? 0, answerable: false, right: false });
    } finally {
      // Put back as addDocument indexed it: a document of many distinct terms keeps only its most frequent ones.
      company.allowed = termsToIndex({ title: entries[0]!.title, chunks: entries.map((e) => e.text) });
      try {
        company.mini.addAll(entries);
      } finally {
        company.allowed = null;
      }
    }
  }
  return samples.length === 0 ? null : fitCalibration(samples);
}

/** Passages a refit may leave out and put back (re-index), in all: bounds its time whatever the documents' sizes. */
export const CALIBRATION_CHUNK_BUDGET = 400;

/** Passages a probe retrieves: as many as the reply pipeline hands the agent. */
const CALIBRATION_PASSAGES = 5;

/** 32-bit FNV-1a: a fixed, even sample of documents. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** The chunk's heading path ("Shipping › Shipping times"), "" for a chunk before any heading. */
function headingOf(text: string, body: string): string {
  return body === text ? '' : text.slice(0, text.length - body.length).replace(/^## /, '').trim();
}

/** One query term: its stem and the related stems it also matches. */
interface TermGroup {
  stem: string;
  synonyms: string[];
}

/** Distinct query stems (two words of one stem count once), each with its synonyms. */
function expandQuery(terms: string[]): TermGroup[] {
  const groups = new Map<string, TermGroup>();
  for (const term of terms) {
    const stem = stemTerm(term);
    if (!groups.has(stem)) groups.set(stem, { stem, synonyms: synonymsOf(stem) });
  }
  return [...groups.values()];
}

/** The query's own stems with prefix/fuzzy matching; synonyms exact only, at SYNONYM_WEIGHT (bounded work). */
function queryOf(groups: TermGroup[]): Query {
  const synonyms = [...new Set(groups.flatMap((g) => g.synonyms))].filter((s) => !groups.some((g) => g.stem === s));
  const queries: Query[] = [{ combineWith: 'OR', queries: groups.map((g) => g.stem) }];
  if (synonyms.length > 0) {
    queries.push({ combineWith: 'OR', queries: synonyms, prefix: false, fuzzy: false, boostTerm: () => SYNONYM_WEIGHT });
  }
  return { combineWith: 'OR', queries };
}

/**
 * minisearch multiplies a hit's summed BM25 score by the number of distinct query terms it matched; with
 * synonyms in the query that would reward a passage for matching a word and its synonym. Here the multiplier is
 * the number of the customer's own terms matched (directly or through a synonym), which is also the coverage.
 */
function rescore(hits: SearchResult[], groups: TermGroup[]) {
  return hits
    .map((hit) => {
      const matched = new Set(hit.queryTerms);
      const matchedGroups = groups.filter((g) => matched.has(g.stem) || g.synonyms.some((s) => matched.has(s))).length;
      return { hit, matchedGroups, score: (hit.score / Math.max(1, hit.queryTerms.length)) * matchedGroups };
    })
    .sort((a, b) => b.score - a.score);
}

/**
 * The evidence signals of the top hits. A query term's document frequency is the number of passages it
 * matched (all hits, directly or through a synonym); the company's passage count is minisearch's document count.
 */
function evidenceOfHits(groups: TermGroup[], question: { names: Set<string>; answerType: AnswerType | null }, all: { hit: SearchResult }[], top: SearchResult[], passageCount: number): EvidenceFeatures[] {
  const { names, answerType } = question;
  const frequency = groups.map(() => 0);
  const cues = answerType === null ? new Set<string>() : new Set(ANSWER_TYPE_CUES[answerType].map(stemTerm));
  const holdsType = (hit: SearchResult) => answerType === null || holdsAnswerType(answerType, stripHeadingContext(String(hit['text'])));
  const matchesOf = (hit: SearchResult) => {
    const matched = new Set(hit.queryTerms);
    const typed = cues.size > 0 && holdsType(hit);
    return groups.map((g) => {
      if (typed && cues.has(g.stem) && !matched.has(g.stem)) return CUE_CREDIT;
      if (matched.has(g.stem)) {
        // minisearch reports the passage's terms, not which query term found each: exact or prefix is a match, else a typo.
        const exact = hit.terms.some((t) => t === g.stem || (g.stem.length >= 4 && t.startsWith(g.stem)));
        return exact ? 1 : names.has(g.stem) ? 0 : FUZZY_CREDIT;
      }
      return g.synonyms.some((s) => matched.has(s)) ? SYNONYM_CREDIT : 0;
    });
  };
  for (const { hit } of all) matchesOf(hit).forEach((m, i) => (frequency[i]! += m > 0 ? 1 : 0));
  const kindOf = (g: TermGroup) => (names.has(g.stem) ? 'name' : GENERAL_STEMS.has(g.stem) ? 'general' : g.synonyms.length > 0 ? 'service' : 'word');
  const weights = groups.map((g, i) => termWeight(g.stem, frequency[i]!, passageCount, kindOf(g)));
  const passages: PassageMatch[] = top.map((hit) => {
    const text = String(hit['text']);
    const titleStems = new Set(searchTerms(`${String(hit['title'])} ${headingOf(text, stripHeadingContext(text))}`).map(stemTerm));
    return {
      match: matchesOf(hit),
      inTitle: groups.map((g) => stemMatches(g.stem, titleStems) || g.synonyms.some((s) => titleStems.has(s))),
      documentKey: String(hit['documentId']),
      typeMismatch: !holdsType(hit),
    };
  });
  return evidenceFeatures(weights, passages, termWeight('', 0, passageCount));
}

/** A query stem matches a set of stems exactly or, for 4+ characters, by a shared prefix of 4+ either way. */
function stemMatches(stem: string, stems: Set<string>): boolean {
  if (stems.has(stem)) return true;
  if (stem.length < 4) return false;
  for (const s of stems) if (s.length >= 4 && (s.startsWith(stem) || stem.startsWith(s))) return true;
  return false;
}

function toResult(hit: SearchResult, score: number, coverage: number, evidence: number): KnowledgeSearchResult {
  const text = String(hit['text']);
  return {
    documentId: String(hit['documentId']),
    title: String(hit['title']),
    chunkIndex: Number(hit['chunkIndex']),
    text,
    snippet: makeSnippet(stripHeadingContext(text), hit.terms),
    score,
    coverage: Math.min(1, coverage),
    evidence,
  };
}

/**
 * About SNIPPET_CHARS of `body` around the window holding the most distinct matched terms (ties: the
 * earliest), cut on word boundaries, with "…" where text was cut. No match in the body (the title
 * matched) → the body's beginning.
 */
export function makeSnippet(body: string, matchedTerms: readonly string[], size = SNIPPET_CHARS): string {
  const flat = body.replace(/\s+/g, ' ').trim();
  if (flat.length <= size) return flat;

  const wanted = new Set(matchedTerms);
  const hits: { pos: number; term: string }[] = [];
  for (const match of flat.matchAll(/[\p{L}\p{M}\p{N}]+/gu)) {
    const term = normalizeTerm(match[0]);
    const stem = term === null ? null : stemTerm(term);
    if (stem !== null && wanted.has(stem)) hits.push({ pos: match.index, term: stem });
  }

  let start = 0;
  if (hits.length > 0) {
    let best = -1;
    let bestStart = 0;
    for (let i = 0; i < hits.length; i++) {
      const first = hits[i];
      if (first === undefined) continue;
      const distinct = new Set<string>();
      for (let j = i; j < hits.length; j++) {
        const h = hits[j];
        if (h === undefined || h.pos >= first.pos + size * 0.8) break;
        distinct.add(h.term);
      }
      if (distinct.size > best) {
        best = distinct.size;
        bestStart = first.pos;
      }
    }
    // A little leading context before the first matched term.
    start = Math.max(0, bestStart - Math.floor(size * 0.2));
  }
  let end = Math.min(flat.length, start + size);
  if (end === flat.length) start = Math.max(0, end - size);

  if (start > 0) {
    const space = flat.indexOf(' ', start);
    if (space >= 0 && space < end) start = space + 1;
  }
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end);
    if (space > start) end = space;
  }
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`;
}
