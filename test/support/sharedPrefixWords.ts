/**
 * A knowledge base built to make prefix and typo search expensive: `prefixes` 4-letter stems, each the start of
 * `perPrefix` distinct indexed words ("bdfg" → "bdfgbbb", "bdfgbbc", …), in documents of at most 20,000 distinct
 * words (a document's term cap). No vowels, so stemming keeps every word as it is. The query naming every
 * prefix expands each of its terms to every word under it.
 */
const LETTERS = 'bcdfghjklmnpqrtvwxz';

export function prefixesOf(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${LETTERS[i % 19]}${LETTERS[Math.floor(i / 19) % 19]}tr`);
}

export function sharedPrefixDocuments(prefixes: string[], perPrefix: number): Array<{ title: string; content: string }> {
  const words: string[] = [];
  for (let n = 0; n < perPrefix; n++) {
    const suffix = [n % 19, Math.floor(n / 19) % 19, Math.floor(n / 361) % 19].map((i) => LETTERS[i]).join('');
    for (const prefix of prefixes) words.push(prefix + suffix);
  }
  const docs: Array<{ title: string; content: string }> = [];
  for (let i = 0; i < words.length; i += 20_000) {
    const slice = words.slice(i, i + 20_000);
    // Paragraphs of 60 words, so the document chunks into ordinary passages.
    const paragraphs: string[] = [];
    for (let p = 0; p < slice.length; p += 60) paragraphs.push(slice.slice(p, p + 60).join(' '));
    docs.push({ title: `Catalogue part ${docs.length + 1}`, content: paragraphs.join('\n\n') });
  }
  return docs;
}
