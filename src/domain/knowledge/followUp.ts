import { queryTerms, tokenize } from './chunking.js';

/**
 * What the knowledge base is searched with for a customer's message, given the conversation's earlier customer
 * messages: a follow-up that does not stand alone is resolved with them.
 *
 * Chat questions lean on what came before. "Great, and what is the warranty?" after a question about a tent:
 * "great" is no knowledge (searched, an unmatched term lowers the evidence of the warranty passage); "is it
 * waterproof?" names nothing without the tent; "and to Sweden?" after "do you ship to Norway?" needs "ship".
 * So:
 * 1. the acknowledgement and continuation words a follow-up opens with are dropped ("Great, and", "OK so",
 *    "Thanks! Also", "What about"): the core question;
 * 2. the core stands alone (searched as it is) unless it refers back or is elliptical:
 *    - referring back: it holds a pronoun standing for something said before (it, they, this, that one …) and at
 *      most REFERRING_TERMS content terms of its own: searched with the earlier question's terms added;
 *    - elliptical: it opened with a continuation ("and", "also", "what about") or holds at most ELLIPTICAL_TERMS
 *      content terms, or it refers back with more terms of its own: it may or may not need the earlier question
 *      ("and what is the warranty?" does not, "and the price?" does), so both are searched and the better
 *      evidenced passages answer (`alternative`).
 * The earlier question is the most recent earlier customer message with content terms, among the last
 * CONTEXT_MESSAGES, each read up to CONTEXT_CHARS: constant work per message, whatever the conversation's length.
 * Pure and deterministic: no model, no clock.
 */
export interface SearchPlan {
  /** Searched first. */
  query: string;
  /** Searched too when not null; the results with the stronger evidence answer (ties: `query`'s). */
  alternative: string | null;
  /** How the message was read: on its own, a follow-up resolved with the earlier question, or either. */
  kind: 'standalone' | 'resolved' | 'ambiguous';
}

/** Earlier customer messages looked at, most recent first. */
export const CONTEXT_MESSAGES = 3;
/** Characters of an earlier message read. */
export const CONTEXT_CHARS = 500;
/** Terms of the earlier question added at most. */
export const CONTEXT_TERMS = 8;
/** A message referring back with at most this many content terms of its own is resolved. */
export const REFERRING_TERMS = 3;
/** A message with at most this many content terms may be elliptical. */
export const ELLIPTICAL_TERMS = 1;

/** Words a follow-up opens with that acknowledge the last answer or continue from it; dropped from its front. */
const OPENERS = new Set([
  'great', 'perfect', 'cool', 'nice', 'awesome', 'ok', 'okay', 'k', 'alright', 'allright', 'right', 'good', 'fine', 'super', 'excellent',
  'wonderful', 'lovely', 'brilliant', 'fantastic', 'thanks', 'thank', 'thx', 'ty', 'cheers', 'yes', 'yeah', 'yep', 'sure', 'got', 'understood',
  'thats', 'i', 'see', 'ah', 'oh', 'hm', 'hmm', 'well', 'sounds', 'that', 's', 'helps', 'helpful', 'you', 'much', 'so', 'very', 'and', 'also', 'then', 'but',
  'what', 'how', 'about', 'plus', 'another', 'one', 'more', 'last', 'question', 'follow', 'up',
]);
/** Openers that say the message continues the earlier question. */
const CONTINUATIONS = new Set(['and', 'also', 'plus', 'then', 'another', 'what about', 'how about']);
/** Pronouns that stand for something said before. */
const REFERRING = new Set(['it', 'its', 'they', 'them', 'their', 'this', 'that', 'these', 'those', 'one', 'ones', 'same', 'there']);
/** "what"/"how" open a question when another word follows; only "what about"/"how about" are openers. */
const QUESTION_WORDS = new Set(['what', 'how']);

export function searchPlan(question: string, earlier: readonly string[]): SearchPlan {
  if (question.trim() === '') return { query: question, alternative: null, kind: 'standalone' };
  const { core, continued } = withoutOpeners(question);
  const own = queryTerms(core);
  const words = tokenize(core.toLowerCase());
  const refersBack = words.some((w) => REFERRING.has(w));
  const standalone = { query: core || question, alternative: null, kind: 'standalone' as const };
  if (!refersBack && !continued && own.length > ELLIPTICAL_TERMS) return standalone;
  const context = earlierTerms(earlier, own);
  if (context.length === 0) return standalone;
  const resolved = `${core} ${context.join(' ')}`.trim();
  if (refersBack && own.length <= REFERRING_TERMS) return { query: resolved, alternative: null, kind: 'resolved' };
  return { query: core || question, alternative: resolved, kind: 'ambiguous' };
}

/** Words looked at for openers, at most: a follow-up's opening is a few words. */
const MAX_OPENER_WORDS = 12;

/** The message without the acknowledgements and continuations it opens with; whether it opened with a continuation. */
function withoutOpeners(text: string): { core: string; continued: boolean } {
  const word = /[\p{L}\p{M}\p{N}']+/gu;
  let continued = false;
  let cut = 0;
  let previous = '';
  let words = 0;
  for (let match = word.exec(text); match !== null && words++ < MAX_OPENER_WORDS; previous = match[0].toLowerCase(), match = word.exec(text)) {
    const w = match[0].toLowerCase().replace(/'/g, '');
    if (!OPENERS.has(w) && !(w === 'it' && previous === 'got')) break;
    if (QUESTION_WORDS.has(w)) {
      // "what about the price" is a continuation; "what is the price" a question: keep it.
      const next = /^\W*([\p{L}']+)/u.exec(text.slice(match.index + match[0].length))?.[1]?.toLowerCase();
      if (next !== 'about') break;
      continued = true;
      word.lastIndex = match.index + match[0].length + text.slice(match.index + match[0].length).indexOf('about') + 5;
      cut = word.lastIndex;
      continue;
    }
    if ((w === 'that' || w === 'one') && previous !== 'got') {
      // "that's great" is an acknowledgement; "that one?" or "it" start the question: keep them.
      const rest = text.slice(match.index + match[0].length);
      if (!/^'?s\b|^\s+(helps|works|is great|is perfect|sounds)/i.test(rest)) break;
    }
    if (CONTINUATIONS.has(w)) continued = true;
    cut = match.index + match[0].length;
  }
  return { core: text.slice(cut).replace(/^[\s,.!;:–—-]+/, '').trim(), continued };
}

/** The content terms of the most recent earlier message that has some, not already in the question. */
function earlierTerms(earlier: readonly string[], own: string[]): string[] {
  const have = new Set(own);
  for (let i = earlier.length - 1; i >= Math.max(0, earlier.length - CONTEXT_MESSAGES); i--) {
    const terms = queryTerms(withoutOpeners(earlier[i]!.slice(0, CONTEXT_CHARS)).core).filter((t) => !have.has(t));
    if (terms.length > 0) return terms.slice(0, CONTEXT_TERMS);
  }
  return [];
}
