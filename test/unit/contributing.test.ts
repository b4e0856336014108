import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * CONTRIBUTING.md stays true: the paths it names exist, and its "An event (end to end)" walk-through names at most
 * 8 files, each quoting code that is really in it (the worked example, ConversationUnassigned, is real code with a
 * real decider test).
 */
const root = new URL('../../', import.meta.url).pathname;
const doc = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');

/** The inline code spans of a markdown line (`x` or ``x with a ` inside``). */
const codeSpans = (line: string) => [...line.matchAll(/(`+)(.+?)\1(?!`)/g)].map((m) => m[2]!.replace(/^ (.*) $/, '$1'));
const isPath = (span: string) => /^(src|test|web|bench|scripts)\/[\w./-]*$/.test(span);
const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

function section(title: string): string {
  const start = doc.indexOf(`### ${title}\n`);
  expect(start, title).toBeGreaterThanOrEqual(0);
  const end = doc.indexOf('\n### ', start + 4);
  return doc.slice(start, end < 0 ? undefined : end);
}

/** The numbered steps of a section: the first line of each. */
const stepLines = (text: string) => text.split('\n').filter((line) => /^\d+\. /.test(line));

describe('CONTRIBUTING.md', () => {
  it('names only paths that exist (outside the dependency-direction section)', () => {
    const withoutGreps = doc.replace(/### Dependency direction[\s\S]*?\n## /, '## ');
    const paths = [...new Set(withoutGreps.split('\n').flatMap(codeSpans).filter(isPath))];
    expect(paths.length).toBeGreaterThan(20);
    expect(paths.filter((p) => !existsSync(join(root, p)))).toEqual([]);
  });

  describe('the walk-through of adding an event', () => {
    const steps = stepLines(section('An event (end to end)'));

    it('names at most 8 files, one per step, each once', () => {
      const files = steps.map((line) => codeSpans(line).find(isPath));
      expect(files.every((f) => f !== undefined)).toBe(true);
      expect(files.length).toBeGreaterThanOrEqual(6);
      expect(files.length).toBeLessThanOrEqual(8);
      expect(new Set(files).size).toBe(files.length);
    });

    it.each(steps.map((line) => [line.slice(0, line.indexOf(':')), line] as const))('%s: the file holds the code the step quotes', (_step, line) => {
      const spans = codeSpans(line);
      const file = spans.find(isPath)!;
      const quotes = spans.slice(spans.indexOf(file) + 1);
      expect(quotes.length, `step "${line}" quotes no code`).toBeGreaterThan(0);
      const source = squash(readFileSync(join(root, file), 'utf8'));
      for (const quote of quotes) expect(source, `${file} should hold: ${quote}`).toContain(squash(quote));
    });

    it('its decider test is a given/when/then test of the example event', () => {
      const test = readFileSync(join(root, 'test/unit/domain/conversations/decider.inbox.test.ts'), 'utf8');
      expect(test).toMatch(/it\('unassign records who had it; unassigning an unassigned conversation records nothing'[\s\S]*?\.then\(\[\s*\{ type: 'ConversationUnassigned'/);
    });
  });
});
