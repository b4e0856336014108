import { describe, expect, it } from 'vitest';
import {
  chunkDocument,
  chunkTexts,
  normalizeTerm,
  searchTerms,
  stripHeadingContext,
  tokenize,
} from '../../../../src/domain/knowledge/chunking.js';

const sentence = (i: number) => `Sentence number ${i} explains one more detail about the product.`;
const paragraph = (from: number, count: number) =>
  Array.from({ length: count }, (_, k) => sentence(from + k)).join(' ');

describe('chunkDocument', () => {
  it('keeps a short plain-text document as one chunk', () => {
    const chunks = chunkDocument({ title: 'Hours', content: 'We are open from 9 to 5.\n\nClosed on Sundays.' });
    expect(chunks).toEqual([
      { index: 0, headings: [], body: 'We are open from 9 to 5.\n\nClosed on Sundays.', text: 'We are open from 9 to 5.\n\nClosed on Sundays.' },
    ]);
  });

  it('returns no chunk for empty or whitespace-only content', () => {
    expect(chunkDocument({ title: 'x', content: '' })).toEqual([]);
    expect(chunkDocument({ title: 'x', content: '  \n\n \r\n ' })).toEqual([]);
    expect(chunkDocument({ title: 'x', content: '# Only a heading\n\n## And another' })).toEqual([]);
  });

  it('splits markdown on headings and prefixes each chunk with its heading path', () => {
    const content = [
      '# Billing',
      'General billing information.',
      '## Refunds',
      'Refunds take 5 days.',
      '### Exceptions',
      'Gift cards are not refundable.',
      '## Invoices',
      'Invoices are emailed monthly.',
    ].join('\n');
    const chunks = chunkDocument({ title: 'Help centre', content });
    expect(chunks.map((c) => c.headings)).toEqual([
      ['Billing'],
      ['Billing', 'Refunds'],
      ['Billing', 'Refunds', 'Exceptions'],
      ['Billing', 'Invoices'],
    ]);
    expect(chunks[2]?.text).toBe('## Billing › Refunds › Exceptions\n\nGift cards are not refundable.');
    expect(chunks[3]?.body).toBe('Invoices are emailed monthly.');
    expect(chunks.map((c) => c.index)).toEqual([0, 1, 2, 3]);
  });

  it('leaves a heading equal to the document title out of the path', () => {
    const chunks = chunkDocument({ title: 'Shipping FAQ', content: '# Shipping FAQ\n\n## Costs\nFree over $50.' });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.text).toBe('## Costs\n\nFree over $50.');
  });

  it('understands setext headings, ignores # without a space and thematic breaks', () => {
    const content = 'Returns\n=======\n#hashtag is text\n\n---\n\nKeep the receipt.';
    const chunks = chunkDocument({ title: 'Doc', content });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.headings).toEqual(['Returns']);
    expect(chunks[0]?.body).toBe('#hashtag is text\n\nKeep the receipt.');
  });

  it('does not parse headings inside fenced code blocks and keeps the block whole', () => {
    const code = '```bash\n# not a heading\ncurl https://example.com\n\n# still code\n```';
    const chunks = chunkDocument({ title: 'Doc', content: `## Install\n${code}\nDone.` });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.headings).toEqual(['Install']);
    expect(chunks[0]?.body).toBe(`${code}\n\nDone.`);
  });

  it('packs paragraphs into chunks of at most maxChars, splitting long paragraphs on sentences', () => {
    const content = [paragraph(1, 10), paragraph(11, 10), paragraph(21, 10)].join('\n\n');
    const chunks = chunkDocument({ title: 'Doc', content }, { maxChars: 800, overlapChars: 100 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.body.length).toBeLessThanOrEqual(800);
      // Every chunk starts and ends on a sentence boundary.
      expect(chunk.body).toMatch(/^Sentence number \d+/);
      expect(chunk.body).toMatch(/\.$/);
    }
    // Nothing is lost: every sentence appears in some chunk.
    const all = chunks.map((c) => c.body).join('\n');
    for (let i = 1; i <= 30; i++) expect(all).toContain(sentence(i));
  });

  it('overlaps consecutive chunks of a section by whole trailing sentences', () => {
    const content = paragraph(1, 40);
    const chunks = chunkDocument({ title: 'Doc', content }, { maxChars: 400, overlapChars: 100 });
    expect(chunks.length).toBeGreaterThan(2);
    for (let i = 1; i < chunks.length; i++) {
      const previous = chunks[i - 1]?.body ?? '';
      const current = chunks[i]?.body ?? '';
      const firstSentence = /^.*?\.(?=\s|$)/.exec(current)?.[0] ?? '';
      expect(firstSentence.length).toBeGreaterThan(0);
      expect(firstSentence.length).toBeLessThanOrEqual(100);
      expect(previous.endsWith(firstSentence)).toBe(true);
    }
  });

  it('does not overlap across sections', () => {
    const content = `## A\n${paragraph(1, 3)}\n## B\n${paragraph(4, 3)}`;
    const chunks = chunkDocument({ title: 'Doc', content }, { maxChars: 800 });
    expect(chunks).toHaveLength(2);
    expect(chunks[1]?.body).toBe(paragraph(4, 3));
  });

  it('splits a sentence longer than maxChars on words, and a huge word by hard cuts', () => {
    const longSentence = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const hugeWord = 'x'.repeat(250);
    const chunks = chunkDocument({ title: 'Doc', content: `${longSentence}\n\n${hugeWord}` }, { maxChars: 100 });
    for (const chunk of chunks) expect(chunk.body.length).toBeLessThanOrEqual(100);
    const joined = chunks.map((c) => c.body).join(' ');
    for (let i = 0; i < 200; i++) expect(joined).toMatch(new RegExp(`\\bword${i}\\b`));
    expect(chunks.map((c) => c.body).join('').replace(/[^x]/g, '').length).toBeGreaterThanOrEqual(250);
  });

  it('is deterministic and normalises line endings', () => {
    const content = `# T\r\n${paragraph(1, 30)}\r\n\r\n${paragraph(31, 30)}`;
    const a = chunkDocument({ title: 'Doc', content });
    const b = chunkDocument({ title: 'Doc', content: content.replace(/\r\n/g, '\n') });
    expect(a).toEqual(b);
    expect(chunkDocument({ title: 'Doc', content })).toEqual(a);
  });

  it('chunkTexts returns the indexed texts; stripHeadingContext recovers the body', () => {
    const doc = { title: 'Doc', content: '## Refunds\nRefunds take 5 days.\n\nPlain.' };
    const texts = chunkTexts(doc);
    expect(texts).toEqual(['## Refunds\n\nRefunds take 5 days.\n\nPlain.']);
    expect(stripHeadingContext(texts[0] ?? '')).toBe('Refunds take 5 days.\n\nPlain.');
    expect(stripHeadingContext('No heading here.')).toBe('No heading here.');
  });
});

describe('search terms', () => {
  it('lower-cases, folds accents, drops stop words and single letters', () => {
    expect(searchTerms("How do I reset MY Password? It's the café's Wi-Fi, 24/7")).toEqual([
      'reset',
      'password',
      'cafe',
      'wi',
      'fi',
      '24',
      '7',
    ]);
  });

  it('tokenize keeps raw tokens; normalizeTerm rejects stop words', () => {
    expect(tokenize('Hello, wörld!  x2')).toEqual(['Hello', 'wörld', 'x2']);
    expect(normalizeTerm('The')).toBeNull();
    expect(normalizeTerm('Éclair')).toBe('eclair');
  });
});

describe('chunkDocument on hostile 1 MiB inputs (linear time)', () => {
  const MiB = 1024 * 1024;
  const distinctWords = () => {
    const words: string[] = [];
    let size = 0;
    for (let i = 0; size < MiB - 16; i++) {
      const word = `w${(i * 2654435761 % 4294967296).toString(36)}`;
      words.push(word);
      size += word.length + 1;
    }
    return words.join(' ');
  };
  const cases: [string, () => string][] = [
    ['one paragraph of distinct words, no sentence ends', distinctWords],
    ['one paragraph of 95,000 short lines', () => 'short line\n'.repeat(95_000)],
    ['a long run of spaces inside a paragraph', () => `x${' '.repeat(MiB - 2)}y`],
    ['a heading line full of spaces', () => `# a${' '.repeat(MiB - 20)}b\nSome text.`],
  ];
  it.each(cases)('%s: chunked in well under a second', (_label, make) => {
    const content = make();
    const started = performance.now();
    const chunks = chunkDocument({ title: 'Hostile', content });
    const elapsed = performance.now() - started;
    expect(chunks.length).toBeGreaterThanOrEqual(1);
    for (const chunk of chunks) expect(chunk.body.length).toBeLessThanOrEqual(800);
    // Was 20 s to hours (quadratic); linear is ~0.1–0.3 s. Generous for a loaded CI machine.
    expect(elapsed).toBeLessThan(1500);
  });
});
