import { searchTerms, queryTerms as questionTerms } from '../../domain/knowledge/chunking.js';
import { stemTerm } from '../search/synonyms.js';

/**
 * The builtin provider's answer out of the passage it chose: the sentences that answer the question, not the
 * whole passage. A passage is ~800 characters of a document (its neighbours' topics, a heading, sometimes a
 * page's leftovers); a customer who asked "how long do refunds take?" wants the sentence about refunds.
 *
 * The passage is cut into units (sentences; lines that are list items or table rows stay whole), and:
 * - what is never an answer is dropped: a heading (a short line without a sentence's punctuation, before more text),
 *   navigation ("Home | Shop | Contact": three or more short parts between separators) and boilerplate (©,
 *   "All rights reserved", cookie notices);
 * - each unit scores the question's distinct terms it matches (by stem, or a shared 4+ letter prefix);
 * - the answer is the units scoring at least half the best, in the passage's order, at most MAX_UNITS of them;
 *   a unit that introduces a list (ends with ":") brings the list items after it;
 * - when no unit matches (the passage was chosen on its title), its first content units are the answer.
 * Null when the passage holds nothing but headings and boilerplate: then there is nothing to answer with.
 * Pure and linear in the passage's length.
 */
export function answerSentences(passage: string, question: string, maxChars: number): string | null {
  const units = unitsOf(passage).filter((u) => !neverAnAnswer(u));
  if (units.length === 0) return null;
  const terms = [...new Set(questionTerms(question).map(stemTerm))];
  const scores = units.map((u) => matched(terms, u.text));
  const best = Math.max(...scores);
  const chosen = new Set<number>();
  if (best === 0) {
    for (let i = 0; i < units.length && chosen.size < MAX_UNITS; i++) chosen.add(i);
  } else {
    for (let i = 0; i < units.length && chosen.size < MAX_UNITS; i++) if (scores[i]! >= Math.max(1, best / 2)) chosen.add(i);
  }
  // A unit that introduces a list brings its items (the answer to "which countries?" is the list under "We ship to:").
  for (const i of [...chosen]) {
    if (!units[i]!.text.endsWith(':')) continue;
    for (let j = i + 1; j < units.length && units[j]!.item && chosen.size < MAX_UNITS * 3; j++) chosen.add(j);
  }
  let answer = '';
  let lastLine = -1;
  for (const i of [...chosen].sort((a, b) => a - b)) {
    const unit = units[i]!;
    const separator = answer === '' ? '' : unit.line !== lastLine || unit.item ? '\n' : ' ';
    if (answer !== '' && answer.length + separator.length + unit.text.length > maxChars) break;
    answer += separator + unit.text;
    lastLine = unit.line;
  }
  return answer.length > 0 ? answer : units[0]!.text.slice(0, maxChars);
}

/** Units chosen at most (list items brought by their introduction aside). */
const MAX_UNITS = 3;

interface Unit {
  text: string;
  /** The line it stands on: sentences of one line are joined with a space, of different lines with a line break. */
  line: number;
  /** A list item or table row: a line of its own, kept whole. */
  item: boolean;
  /** Its line holds nothing else (a heading candidate). */
  wholeLine: boolean;
  /** Another line follows it (a heading introduces something; a short last line may be the content itself). */
  followed: boolean;
}

const LIST_ITEM = /^\s*(?:[-*•]|\d+[.)])\s+/;
/** A sentence ends at . ! ? (and a closing quote or bracket) before whitespace and a capital, digit or quote. */
const SENTENCE_END = /(?<=[.!?…]["'”’)\]]?)\s+(?=["'“‘(]?[\p{Lu}\p{N}])/u;

function unitsOf(passage: string): Unit[] {
  const units: Unit[] = [];
  const lines = passage.split('\n');
  let last = lines.length - 1;
  while (last >= 0 && lines[last]!.trim() === '') last--;
  lines.forEach((raw, line) => {
    const text = raw.replace(/\s+/g, ' ').trim();
    if (!text) return;
    const followed = line < last;
    if (LIST_ITEM.test(raw) || raw.includes('\t')) {
      units.push({ text, line, item: true, wholeLine: true, followed });
      return;
    }
    const sentences = text.split(SENTENCE_END).map((s) => s.trim()).filter(Boolean);
    for (const sentence of sentences) units.push({ text: sentence, line, item: false, wholeLine: sentences.length === 1, followed });
  });
  return units;
}

const SEPARATORS = /\s[|·•»›]\s|\s\/\s/;
const BOILERPLATE = /©|\(c\) \d{4}|all rights reserved|we use cookies|this (?:site|website) uses cookies|accept (?:all )?cookies|skip to (?:main )?content/i;

function neverAnAnswer(unit: Unit): boolean {
  const { text } = unit;
  if (BOILERPLATE.test(text)) return true;
  // Navigation: three or more short parts between separators ("Home | Shop | Contact").
  const parts = text.split(SEPARATORS);
  if (parts.length >= 3 && parts.every((p) => p.trim().split(/\s+/).length <= 3)) return true;
  // A heading: a short line of its own without a sentence's ending, with text after it (a list item may be a
  // fragment and answer). The passage's last line is one only when very short ("Warranty" cut off from its text):
  // "Open Monday to Friday 9 to 17" there is the content itself.
  const words = text.split(/\s+/).length;
  if (unit.wholeLine && !unit.item && !/[.!?…:;)"”]$/.test(text) && words <= (unit.followed ? 8 : 3)) return true;
  // Markdown heading syntax left in a passage.
  return /^#{1,6}\s/.test(text);
}

function matched(terms: string[], text: string): number {
  if (terms.length === 0) return 0;
  const own = new Set(searchTerms(text).map(stemTerm));
  let count = 0;
  for (const term of terms) {
    if (own.has(term)) count++;
    else if (term.length >= 4) {
      for (const t of own) {
        if (t.length >= 4 && (t.startsWith(term) || term.startsWith(t))) {
          count++;
          break;
        }
      }
    }
  }
  return count;
}
