import { queryTerms as questionTerms, searchTerms, stripHeadingContext } from '../../domain/knowledge/chunking.js';
import { choosePassage, DEFAULT_ANSWER_THRESHOLD, evidenceThreshold, type AnswerThreshold } from '../../domain/answers/evidence.js';
import { NO_CONFIDENT_ANSWER_REASON } from '../../domain/answers/provenance.js';
import { stemTerm } from '../search/synonyms.js';
import { answerSentences } from './answerSentences.js';
import {
  BUILTIN_MODEL,
  type LlmPassage,
  type LlmProvider,
  type LlmRequest,
  type LlmResponse,
  LlmError,
} from '../../ports/llm.js';

/**
 * The default provider: no key, no network, free. It answers from the knowledge base alone: the retrieved
 * passage with the strongest evidence (the retrieval score as a prior) when that evidence is strong enough for
 * the agent's setting, otherwise the agent's handoff message (`handoff: true`). A wrong answer costs more than a handoff: a customer told
 * "we ship to Norway, Sweden and Denmark" when they asked about Finland has been misled, one passed to a
 * colleague has not.
 *
 * Evidence. The knowledge index scores every passage it returns (`LlmPassage.evidence`, 0..1): the probability
 * that the passage answers rightly (domain/answers/confidence.ts), learned from a hand-set score
 * (domain/answers/evidence.ts: the question's terms weighted by their rarity in the company's knowledge base, so
 * an unmatched rare term — "Finland", an order number, a product the knowledge base never names — weighs heavily;
 * title/heading match; margin over other documents' passages), the IDF mass matched, the title match and the
 * passage's length. The agent's `answerThreshold` (`strict` | `balanced` | `lenient`, default `balanced`) sets
 * the probability it needs (EVIDENCE_THRESHOLDS).
 *
 * Passages without a score (not from the knowledge index: tests, other sources) fall back to plain coverage:
 * the fraction of the question's distinct terms (stop and filler words excluded) the passage matches, by stem
 * or shared 4+ character prefix, must reach FALLBACK_MIN_COVERAGE for the setting.
 * The question is the last user message (the reply worker joins a burst of unanswered messages into it,
 * and searches with the same text), or the query the knowledge base was searched with (`searchQuery`: a
 * follow-up resolved with the conversation). The answer is the passage's sentences that answer it
 * (answerSentences.ts), not the whole passage.
 */

export interface BuiltinLlmOptions {
  /** The answer is trimmed to this many characters, on a sentence (else word) boundary. Default 1000. */
  maxAnswerChars?: number;
  /** Said when nothing matches and the request has no handoffMessage. */
  defaultHandoffMessage?: string;
}

/** Coverage a passage without an evidence score needs, per setting. */
export const FALLBACK_MIN_COVERAGE: Readonly<Record<AnswerThreshold, number>> = { strict: 0.75, balanced: 0.5, lenient: 0.34 };
export const DEFAULT_MAX_ANSWER_CHARS = 1000;
export const DEFAULT_HANDOFF_MESSAGE =
  "I'm not sure about that one. Let me pass you to a colleague who can help.";

export function createBuiltinLlm(options: BuiltinLlmOptions = {}): LlmProvider {
  const maxAnswerChars = options.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS;
  const defaultHandoff = options.defaultHandoffMessage ?? DEFAULT_HANDOFF_MESSAGE;

  return {
    free: true,
    async complete(request: LlmRequest): Promise<LlmResponse> {
      if (request.signal?.aborted) throw new LlmError('aborted', 'the request was cancelled', false);
      const decision = decideAnswer(request);
      // The sentences of the passage that answer, never a heading, menu or footer alone (answerSentences.ts);
      // a passage with nothing else is no answer.
      const answer = decision.passage === null ? null : answerSentences(stripHeadingContext(decision.passage.text), questionOf(request), maxAnswerChars);
      if (decision.passage === null || answer === null) {
        return {
          text: request.handoffMessage?.trim() || defaultHandoff,
          usage: { inputTokens: 0, outputTokens: 0 },
          model: BUILTIN_MODEL,
          handoff: true,
          handoffReason: NO_CONFIDENT_ANSWER_REASON,
          handoffCause: 'no_confident_answer',
          ...(decision.evidence !== undefined ? { evidence: decision.evidence } : {}),
          usedPassages: [],
        };
      }
      return {
        text: trimAnswer(answer, maxAnswerChars),
        usage: { inputTokens: 0, outputTokens: 0 },
        model: BUILTIN_MODEL,
        ...(decision.evidence !== undefined ? { evidence: decision.evidence } : {}),
        usedPassages: [request.passages!.indexOf(decision.passage)],
      };
    },
    async testConnection() {
      return { ok: true, latencyMs: 0, models: [BUILTIN_MODEL] };
    },
  };
}

export interface AnswerDecision {
  /** The passage to answer from, or null: hand off. */
  passage: LlmPassage | null;
  /** The evidence of the passage chosen to answer from (undefined: no passage carried one). */
  evidence?: number;
}

/**
 * Whether to answer, and from which passage: the passage `choosePassage` picks (evidence, the retrieval score as
 * a prior) when its evidence reaches the setting's threshold; passages without evidence: the first (best-scored)
 * one whose coverage reaches the setting's fallback coverage.
 */
export function decideAnswer(request: Pick<LlmRequest, 'messages' | 'passages' | 'answerThreshold' | 'searchQuery'>): AnswerDecision {
  const setting = request.answerThreshold ?? DEFAULT_ANSWER_THRESHOLD;
  const question = questionOf(request);
  const queryTerms = [...new Set(questionTerms(question).map(stemTerm))];
  if (queryTerms.length === 0) return { passage: null };
  const candidates = (request.passages ?? []).filter((p) => p.score > 0 && stripHeadingContext(p.text).trim().length > 0);
  const best = choosePassage(candidates);
  if (best !== null) return { passage: best.evidence! >= evidenceThreshold(setting) ? best : null, evidence: best.evidence! };
  const minCoverage = FALLBACK_MIN_COVERAGE[setting];
  for (const passage of candidates) {
    const coverage = passage.coverage ?? computeCoverage(queryTerms, passage);
    if (coverage > 0 && coverage >= minCoverage) return { passage };
  }
  return { passage: null };
}

/**
 * The question answered: what the knowledge base was searched with when the request says (a follow-up resolved
 * with the conversation: domain/knowledge/followUp.ts), else the last user message.
 */
function questionOf(request: Pick<LlmRequest, 'messages' | 'searchQuery'>): string {
  return request.searchQuery ?? [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
}

/** The passage the builtin provider would answer from, or null. Exported for tests and explanations. */
export function pickPassage(request: Pick<LlmRequest, 'messages' | 'passages' | 'answerThreshold'>): LlmPassage | null {
  return decideAnswer(request).passage;
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
