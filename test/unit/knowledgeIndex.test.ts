import { beforeEach, describe, expect, it } from 'vitest';
import { chunkTexts } from '../../src/domain/knowledge/chunking.js';
import { prefixesOf, sharedPrefixDocuments } from '../support/sharedPrefixWords.js';
import { createKnowledgeIndex, makeSnippet, MAX_TERMS_PER_DOCUMENT, termsToIndex, type KnowledgeIndex } from '../../src/infrastructure/search/knowledgeIndex.js';

const refunds = {
  id: 'doc-refunds',
  title: 'Refund policy',
  chunks: chunkTexts({
    title: 'Refund policy',
    content:
      '## Timelines\nRefunds are processed within 5 business days after we receive the returned item.\n\n' +
      '## Exceptions\nGift cards and downloadable software cannot be refunded.',
  }),
};
const shipping = {
  id: 'doc-shipping',
  title: 'Shipping',
  chunks: ['Orders ship from our warehouse in Lyon. Delivery takes 2 to 4 days within Europe.'],
};
const passwords = {
  id: 'doc-password',
  title: 'Account help',
  chunks: ['To reset your password, open Settings, choose Security and click "Reset password".'],
};

describe('knowledge index', () => {
  let index: KnowledgeIndex;
  beforeEach(() => {
    index = createKnowledgeIndex();
    for (const doc of [refunds, shipping, passwords]) index.addDocument('company-a', doc);
  });

  it('finds the best chunk first with its document, chunk index and a positive score', () => {
    const results = index.search('company-a', 'How long do refunds take?');
    expect(results[0]).toMatchObject({ documentId: 'doc-refunds', title: 'Refund policy', chunkIndex: 0 });
    expect(results[0]?.text).toContain('processed within 5 business days');
    expect(results[0]?.score).toBeGreaterThan(0);
    for (let i = 1; i < results.length; i++) {
      expect(results[i - 1]!.score).toBeGreaterThanOrEqual(results[i]!.score);
    }
  });

  it('matches prefixes and typos for words of 4+ characters, but not short words fuzzily', () => {
    expect(index.search('company-a', 'passw')[0]?.documentId).toBe('doc-password'); // prefix
    expect(index.search('company-a', 'pasword')[0]?.documentId).toBe('doc-password'); // 1 typo
    expect(index.search('company-a', 'warehuose')[0]?.documentId).toBe('doc-shipping'); // transposition = 2 edits, 9 chars
    expect(index.search('company-a', 'gitf')).toEqual([]); // 4 chars: 1 edit allowed, a transposition is 2
  });

  it('boosts the title field', () => {
    const idx = createKnowledgeIndex();
    idx.addDocument('c', { id: 'body', title: 'General', chunks: ['Something about invoices and other things here.'] });
    idx.addDocument('c', { id: 'title', title: 'Invoices', chunks: ['Something about billing and other things here.'] });
    expect(idx.search('c', 'invoices').map((r) => r.documentId)).toEqual(['title', 'body']);
  });

  it('ignores stop words: a query made only of them returns nothing', () => {
    expect(index.search('company-a', 'how do I')).toEqual([]);
    expect(index.search('company-a', '   ')).toEqual([]);
  });

  it('reports coverage: the fraction of query terms that matched', () => {
    const [best] = index.search('company-a', 'refund gift cards unicorns');
    expect(best?.documentId).toBe('doc-refunds');
    expect(best?.chunkIndex).toBe(1);
    expect(best?.coverage).toBeCloseTo(3 / 4);
  });

  it('limits results (default 5)', () => {
    const idx = createKnowledgeIndex();
    for (let i = 0; i < 8; i++) idx.addDocument('c', { id: `d${i}`, title: `Doc ${i}`, chunks: ['common words here'] });
    expect(idx.search('c', 'common')).toHaveLength(5);
    expect(idx.search('c', 'common', { limit: 2 })).toHaveLength(2);
  });

  it('never returns another company’s documents', () => {
    index.addDocument('company-b', {
      id: 'doc-b',
      title: 'Secret refund rules of B',
      chunks: ['Company B refunds everything within 1 day.'],
    });
    const a = index.search('company-a', 'refunds');
    const b = index.search('company-b', 'refunds');
    expect(a.map((r) => r.documentId)).not.toContain('doc-b');
    expect(b.map((r) => r.documentId)).toEqual(['doc-b']);
    expect(index.search('company-c', 'refunds')).toEqual([]);
    // Same document id in two companies stays separate too.
    index.addDocument('company-b', { ...shipping, chunks: ['B ships from Oslo.'] });
    expect(index.search('company-a', 'Oslo')).toEqual([]);
    expect(index.search('company-a', 'Lyon')[0]?.documentId).toBe('doc-shipping');
    index.removeDocument('company-b', 'doc-shipping');
    expect(index.search('company-a', 'Lyon')[0]?.documentId).toBe('doc-shipping');
  });

  it('removes a document and replaces one re-added with the same id', () => {
    index.removeDocument('company-a', 'doc-password');
    expect(index.search('company-a', 'password')).toEqual([]);
    index.removeDocument('company-a', 'doc-password'); // idempotent
    index.removeDocument('nobody', 'doc-password');

    index.addDocument('company-a', { ...shipping, chunks: ['Orders ship from Berlin now.'] });
    expect(index.search('company-a', 'Lyon')).toEqual([]);
    expect(index.search('company-a', 'Berlin')[0]?.documentId).toBe('doc-shipping');
    expect(index.chunkCount('company-a')).toBe(refunds.chunks.length + 1);
  });

  it('gives a snippet of about 200 characters around the best match', () => {
    const filler = (word: string, n: number) => Array.from({ length: n }, () => word).join(' ');
    const text = `${filler('lorem', 80)} our warranty covers batteries for two years ${filler('ipsum', 80)}`;
    const idx = createKnowledgeIndex();
    idx.addDocument('c', { id: 'w', title: 'Terms', chunks: [text] });
    const [hit] = idx.search('c', 'battery warranty');
    expect(hit?.snippet).toContain('warranty covers batteries');
    expect(hit?.snippet.length).toBeLessThanOrEqual(202);
    expect(hit?.snippet.startsWith('…')).toBe(true);
    expect(hit?.snippet.endsWith('…')).toBe(true);
  });

  it('snippet: short bodies whole, heading context left out, beginning when only the title matched', () => {
    expect(index.search('company-a', 'gift cards')[0]?.snippet).toBe(
      'Gift cards and downloadable software cannot be refunded.',
    );
    const long = `${'alpha '.repeat(60)}end`;
    expect(makeSnippet(long, ['zzz'])).toMatch(/^alpha alpha .*…$/);
  });

  describe('bounded input', () => {
    const longWord = 'a'.repeat(65_536);

    it('a query of one 65,536-character word returns [] instead of throwing', () => {
      expect(() => index.search('company-a', longWord)).not.toThrow();
      expect(index.search('company-a', longWord)).toEqual([]);
    });

    it('a huge word next to real words is dropped; the real words still search', () => {
      const [best] = index.search('company-a', `${longWord} refunds ${'b'.repeat(65)}`);
      expect(best?.documentId).toBe('doc-refunds');
      expect(best?.coverage).toBe(1); // the dropped words do not count as unmatched terms
    });

    it('uses only the first 32 distinct terms of a long query', () => {
      const filler = Array.from({ length: 40 }, (_, i) => `filler${i}`).join(' ');
      expect(index.search('company-a', `${filler} password`)).toEqual([]);
      expect(index.search('company-a', `password ${filler}`)[0]?.documentId).toBe('doc-password');
    });

    it('does not index words longer than 64 characters', () => {
      const idx = createKnowledgeIndex();
      const word = `z${'q'.repeat(64)}`;
      idx.addDocument('c', { id: 'd', title: 'T', chunks: [`${word} and kettle`] });
      expect(idx.search('c', word)).toEqual([]);
      expect(idx.search('c', 'kettle')).toHaveLength(1);
    });

    it(`indexes at most ${MAX_TERMS_PER_DOCUMENT} distinct terms per document, the most frequent first`, () => {
      const rare = Array.from({ length: MAX_TERMS_PER_DOCUMENT + 5_000 }, (_, i) => `rare${i.toString(36)}`);
      const chunks: string[] = [];
      for (let i = 0; i < rare.length; i += 100) chunks.push(`kettle kettle ${rare.slice(i, i + 100).join(' ')}`);
      const allowed = termsToIndex({ title: 'Catalogue', chunks });
      expect(allowed?.size).toBe(MAX_TERMS_PER_DOCUMENT);
      expect(allowed?.has('kettle')).toBe(true);
      expect(allowed?.has('catalogue')).toBe(true);
      expect(termsToIndex({ title: 'Small', chunks: ['a few words only'] })).toBeNull();

      const idx = createKnowledgeIndex();
      idx.addDocument('c', { id: 'catalogue', title: 'Catalogue', chunks });
      expect(idx.search('c', 'kettle', { limit: 1 })[0]?.documentId).toBe('catalogue');
      expect(idx.search('c', 'rare0', { limit: 1 })[0]?.documentId).toBe('catalogue'); // early, kept
    });
  });

  describe("a search's cost is bounded by its query, however big the index", () => {
    const prefixes = prefixesOf(32);
    const query = prefixes.join(' ');
    const timeOf = (idx: KnowledgeIndex) => {
      idx.search('c', query); // warm
      const started = performance.now();
      for (let i = 0; i < 3; i++) idx.search('c', query);
      return (performance.now() - started) / 3;
    };
    const indexOf = (perPrefix: number) => {
      const idx = createKnowledgeIndex();
      sharedPrefixDocuments(prefixes, perPrefix).forEach((doc, i) => idx.addDocument('c', { id: `d${i}`, title: doc.title, chunks: chunkTexts(doc) }));
      return idx;
    };

    it('given 32 query terms that each prefix thousands of indexed words, when searched, then it costs about what it costs over a small index', () => {
      const small = timeOf(indexOf(40));
      const big = indexOf(3_000); // 96,000 distinct words
      const large = timeOf(big);
      // Before: each term expanded to every word under it (~3,000) and scored them all: ~50× the small index's cost.
      expect(large, `small index ${small.toFixed(1)} ms, large ${large.toFixed(1)} ms per search`).toBeLessThan(Math.max(5 * small, 60));
      const [best] = big.search('c', prefixes[0]!);
      expect(best?.coverage).toBe(1); // prefix matching still works
    }, 60_000);
  });
});
