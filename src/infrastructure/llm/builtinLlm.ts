import { queryTerms as questionTerms, searchTerms, stripHeadingContext } from '../../domain/knowledge/chunking.js';
import { stemTerm } from '../search/synonyms.js';
import {
  BUILTIN_MODEL,
  type LlmPassage,
  type LlmProvider,
  type LlmRequest,
  type LlmResponse,
  LlmError,
} from '../../ports/llm.js';

/**
 * The default provider: no key, no network, free. It answers from the knowledge base alone: the best
 * retrieved passage when it is relevant enough, otherwise the agent's handoff message (`handoff: true`).
 *
 * Relevance threshold. BM25 scores (minisearch) are unbounded and depend on the corpus and the query
 * length, so a fixed score cut-off means nothing across companies. Instead a passage must cover a
 * meaningful fraction of the question's terms (stop words excluded): `coverage ≥ minCoverage`
 * (default 0.5: half the distinct terms) and at least one term, and have a positive score. Coverage is
 * taken from the passage when the search reports it (prefix/fuzzy matches count), otherwise computed
 * here against the passage's title and text (a term matches by its stem or, for stems of 4+ characters,
 * by shared prefix of 4+ characters either way: "refund" ~ "refunds"). The question is the last user
 * message (the reply worker joins a burst of unanswered messages into it, and searches with the same text);
 * greetings and other filler words do not count (chunking.ts QUERY_FILLER_WORDS), so "Hi!" sent before
 * the question does not halve its coverage. Among passages that clear the bar, the first (best-scored) one wins.
 */

export interface BuiltinLlmOptions {
  /** Fraction of the question's distinct terms a passage must match. Default 0.5. */
  minCoverage?: number;
  /** The answer is trimmed to this many characters, on a sentence (else word) boundary. Default 1000. */
  maxAnswerChars?: number;
  /** Said when nothing matches and the request has no handoffMessage. */
  defaultHandoffMessage?: string;
}

export const DEFAULT_MIN_COVERAGE = 0.5;
export const DEFAULT_MAX_ANSWER_CHARS = 1000;
export const DEFAULT_HANDOFF_MESSAGE =
  "I'm not sure about that one. Let me pass you to a colleague who can help.";

export function createBuiltinLlm(options: BuiltinLlmOptions = {}): LlmProvider {
  const minCoverage = options.minCoverage ?? DEFAULT_MIN_COVERAGE;
  const maxAnswerChars = options.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS;
  const defaultHandoff = options.defaultHandoffMessage ?? DEFAULT_HANDOFF_MESSAGE;

  return {
    async complete(request: LlmRequest): Promise<LlmResponse> {
      if (request.signal?.aborted) throw new LlmError('aborted', 'the request was cancelled', false);
      const passage = pickPassage(request, minCoverage);
      if (passage === null) {
        return {
          text: request.handoffMessage?.trim() || defaultHandoff,
          usage: { inputTokens: 0, outputTokens: 0 },
          model: BUILTIN_MODEL,
          handoff: true,
          usedPassages: [],
        };
      }
      return {
        text: trimAnswer(stripHeadingContext(passage.text).trim(), maxAnswerChars),
        usage: { inputTokens: 0, outputTokens: 0 },
        model: BUILTIN_MODEL,
        usedPassages: [request.passages!.indexOf(passage)],
      };
    },
    async testConnection() {
      return { ok: true, latencyMs: 0, models: [BUILTIN_MODEL] };
    },
  };
}

/** The best passage that clears the relevance bar, or null. Exported for tests and explanations. */
export function pickPassage(request: Pick<LlmRequest, 'messages' | 'passages'>, minCoverage = DEFAULT_MIN_COVERAGE) {
  const question = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const queryTerms = [...new Set(questionTerms(question).map(stemTerm))];
  if (queryTerms.length === 0) return null;
  for (const passage of request.passages ?? []) {
    if (!(passage.score > 0) || stripHeadingContext(passage.text).trim().length === 0) continue;
    const coverage = passage.coverage ?? computeCoverage(queryTerms, passage);
    if (coverage > 0 && coverage >= minCoverage) return passage;
  }
  return null;
}

function computeCoverage(queryTerms: string[], passage: LlmPassage): number {
  const passageTerms = new Set(searchTerms(`${passage.title} ${passage.text}`).map(stemTerm));
  let matched = 0;
  for (const q of queryTerms) {
    if (passageTerms.has(q)) {
      matched++;
      continue;
    }
    if (q.length < 4) continue;
    for (const p of passageTerms) {
      if (p.length >= 4 && (p.startsWith(q) || q.startsWith(p))) {
        matched++;
        break;
      }
    }
  }
  return matched / queryTerms.length;
}

/** Cuts `text` to at most `max` characters at the last sentence end (else word), adding "…" if cut mid-sentence. */
export function trimAnswer(text: string, max: number): string {
  if (text.length <= max) return text;
  const window = text.slice(0, max);
  let sentenceEnd = -1;
  for (const match of window.matchAll(/[.!?…]["'”’)\]]?(?=\s|$)/g)) sentenceEnd = match.index + match[0].length;
  if (sentenceEnd >= max * 0.5) return window.slice(0, sentenceEnd).trim();
  const space = window.lastIndexOf(' ', max - 1);
  return `${(space > 0 ? window.slice(0, space) : window.slice(0, max - 1)).trimEnd()}…`;
}
