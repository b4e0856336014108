import type { Doc, FullTextSpec } from '../../ports/readStore.js';
import { textField, wordsOf } from '../readStore/fullText.js';

/** Where a stored document of a full-text collection keeps its search words (a reserved field, see RESERVED_FIELDS). */
export const WORDS_FIELD = '_words';

/**
 * The distinct words of a document's full-text fields, exactly as the port extracts them (readStore/fullText.ts).
 * MongoDB's own text index splits text its own way: `order_id`, `thanks👍` and `100€` were one token each there,
 * so `order`, `thanks` and `100` never found them while SQLite did. The store keeps this array on each document
 * instead, indexed after the scope and before the order, and a search asks for documents holding all its terms.
 */
export function searchWords(doc: Doc, spec: FullTextSpec): string[] {
  const words = new Set<string>();
  for (const field of spec.fields) for (const w of wordsOf(textField(doc, field) ?? '')) words.add(w.word);
  return [...words];
}

/** The index a search reads: one scope, one of its words, highest order first (so the sort and limit are the index's). */
export function searchIndexKeys(spec: FullTextSpec): Record<string, 1 | -1> {
  return { [spec.scope]: 1, [WORDS_FIELD]: 1, [spec.order]: -1 };
}
