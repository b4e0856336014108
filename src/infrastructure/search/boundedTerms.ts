/**
 * What one search may cost, whatever the index holds. minisearch expands every query term of 4+ characters to
 * every indexed word it prefixes and every word within its fuzzy distance, and scores every passage of each: with
 * 240,000 indexed words sharing prefixes, a 32-term query cost ~1 s of the one index thread. Here a search sees the
 * company's term dictionary through a bounded view:
 * - a query term matches by prefix at most `prefixTerms` words: the shortest (closest, weighted most by
 *   minisearch) of the first `prefixScan` the dictionary holds under it;
 * - at most `fuzzyStems` query terms also match with typos, those the dictionary does not hold as such first (a
 *   typo is a word the index does not know), each at most `fuzzyTerms` words, the closest first;
 * - the passages scored through prefix and typo matches are capped: `postings` (word, passage) pairs in all,
 *   less those of the query's own words, shared equally between its terms.
 * The query's own words (and synonyms) are always scored: their number is bounded by the query (MAX_QUERY_TERMS).
 */
export const SEARCH_BOUNDS = { prefixTerms: 24, prefixScan: 256, fuzzyStems: 8, fuzzyTerms: 16, postings: 100_000 };

/** minisearch's term dictionary (a radix tree, its `SearchableMap`): word → field id → passage id → frequency. */
type Postings = Map<number, Map<number, number>>;
interface TermDictionary {
  get(term: string): Postings | undefined;
  atPrefix(prefix: string): Iterable<[string, Postings]>;
  fuzzyGet(term: string, maxDistance: number): Map<string, [Postings, number]>;
}

const postingsOf = (data: Postings | undefined) => {
  let n = 0;
  if (data) for (const passages of data.values()) n += passages.size;
  return n;
};

/**
 * Runs `search` (a minisearch search of `stems`, prefix and fuzzy as configured, and of `exactTerms` without) with
 * the index's dictionary seen through the bounded view. minisearch reads its dictionary through `_index` only
 * (get, atPrefix, fuzzyGet while searching); everything else is passed through.
 */
export function searchBounded<T>(mini: object, stems: string[], exactTerms: string[], search: () => T): T {
  const internals = mini as unknown as { _index: TermDictionary };
  const full = internals._index;
  let own = 0;
  for (const term of new Set([...stems, ...exactTerms])) own += postingsOf(full.get(term));
  const perStem = Math.max(0, SEARCH_BOUNDS.postings - own) / Math.max(1, stems.length);
  const spent = new Map<string, number>();
  /** Whether the stem may score this expansion's passages (and counts them if so). */
  const admit = (stem: string, data: Postings) => {
    const used = (spent.get(stem) ?? 0) + postingsOf(data);
    if (used > perStem) return false;
    spent.set(stem, used);
    return true;
  };
  const typos = [...stems.filter((s) => full.get(s) === undefined), ...stems.filter((s) => full.get(s) !== undefined)];
  const fuzzyAllowed = new Set(typos.slice(0, SEARCH_BOUNDS.fuzzyStems));
  internals._index = new Proxy(full, {
    get(target, property) {
      if (property === 'atPrefix') return (prefix: string) => prefixMatches(target, prefix, admit);
      if (property === 'fuzzyGet') return (term: string, distance: number) => (fuzzyAllowed.has(term) ? fuzzyMatches(target, term, distance, admit) : new Map());
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  try {
    return search();
  } finally {
    internals._index = full;
  }
}

function prefixMatches(dictionary: TermDictionary, prefix: string, admit: (stem: string, data: Postings) => boolean): Array<[string, Postings]> {
  const seen: Array<[string, Postings]> = [];
  for (const entry of dictionary.atPrefix(prefix)) {
    if (entry[0] !== prefix) seen.push(entry);
    if (seen.length >= SEARCH_BOUNDS.prefixScan) break;
  }
  seen.sort((a, b) => a[0].length - b[0].length);
  const kept: Array<[string, Postings]> = [];
  for (const entry of seen) {
    if (kept.length >= SEARCH_BOUNDS.prefixTerms) break;
    if (admit(prefix, entry[1])) kept.push(entry);
  }
  return kept;
}

function fuzzyMatches(dictionary: TermDictionary, term: string, distance: number, admit: (stem: string, data: Postings) => boolean): Map<string, [Postings, number]> {
  // Words it prefixes are the prefix search's (which kept the closest); the word itself is the exact match.
  const found = [...dictionary.fuzzyGet(term, distance)].filter(([word]) => !word.startsWith(term));
  found.sort((a, b) => a[1][1] - b[1][1] || a[0].length - b[0].length);
  const kept = new Map<string, [Postings, number]>();
  for (const [word, match] of found) {
    if (kept.size >= SEARCH_BOUNDS.fuzzyTerms) break;
    if (admit(term, match[0])) kept.set(word, match);
  }
  return kept;
}
