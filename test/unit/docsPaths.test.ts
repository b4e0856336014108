import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The guides name files by path, in prose and in code spans, not only as links: every `src/…` or `test/…` path that
 * docs/architecture.md, CONTRIBUTING.md and docs/testing.md name exists, so a file moved or merged away fails here
 * rather than leaving a newcomer looking for it. Paths with a placeholder (`<aggregate>`, `*`, `…`) are patterns,
 * not files, and are not checked.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const guides = ['docs/architecture.md', 'CONTRIBUTING.md', 'docs/testing.md'];

/** Every src/… or test/… path a text names, without the punctuation that ends the sentence around it. */
export function namedPaths(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/(?<![\w./-])(?:src|test)\/[^\s`'"(),;:\]|]*/g)) {
    const path = match[0].replace(/[.]+$/, '');
    if (/[<>*…{}]/.test(path)) continue;
    found.add(path);
  }
  return [...found];
}

describe('paths the guides name', () => {
  it('finds paths in prose, code spans and code blocks, and skips patterns', () => {
    expect(namedPaths('see `src/processing/reactor.ts`, then src/workers/replies/. And test/unit/x.test.ts.')).toEqual([
      'src/processing/reactor.ts',
      'src/workers/replies/',
      'test/unit/x.test.ts',
    ]);
    expect(namedPaths('src/domain/<aggregate>/events.ts and test/e2e/*.browser.test.ts')).toEqual([]);
  });

  for (const guide of guides) {
    it(`every src/ and test/ path ${guide} names exists`, () => {
      const text = readFileSync(resolve(root, guide), 'utf8');
      const paths = namedPaths(text);
      expect(paths.length).toBeGreaterThan(0);
      const missing = paths.filter((p) => !existsSync(resolve(root, p)));
      expect(missing, `${guide} names paths that do not exist`).toEqual([]);
    });
  }
});
