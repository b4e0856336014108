import { describe, expect, it } from 'vitest';
import { searchIndexKeys, searchWords, WORDS_FIELD } from '../../src/infrastructure/mongodb/searchWords.js';
import { queryTerms } from '../../src/infrastructure/readStore/fullText.js';
import { RESERVED_FIELDS } from '../../src/ports/readStore.js';

// The MongoDB read store's contract suite runs in CI (MONGODB_URI); what it indexes is checked here too.
describe('MongoDB search words (issue 21, defect 14)', () => {
  const spec = { fields: ['text', 'title'], scope: 'companyId', order: 'seq' };

  it('given text an engine tokenises its own way, then the stored words are the port\'s, so every query term finds them', () => {
    const doc = { id: 'm1', companyId: 'c1', seq: 7, text: 'thanks👍 order_id 100€ Crème', title: 'Order #12' };
    const words = searchWords(doc, spec);
    expect(words).toEqual(['thanks', 'order', 'id', '100', 'creme', '12']);
    for (const query of ['thanks', 'order', '100', 'CREME', 'order_id', 'crème 12']) {
      for (const term of queryTerms(query)) expect(words, query).toContain(term);
    }
  });

  it('a document without text has no words; the field cannot clash with a read model field', () => {
    expect(searchWords({ id: 'm2', companyId: 'c1', seq: 1 }, spec)).toEqual([]);
    expect(RESERVED_FIELDS).toContain(WORDS_FIELD);
  });

  it('is indexed after the scope and before the order, so a page of hits is read in index order', () => {
    expect(searchIndexKeys(spec)).toEqual({ companyId: 1, [WORDS_FIELD]: 1, seq: -1 });
    expect(Object.keys(searchIndexKeys(spec))).toEqual(['companyId', WORDS_FIELD, 'seq']);
  });
});
