import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The docs keep their promises: every relative link in the repository's Markdown points at a file that exists,
 * and an #anchor into one of our own .md files at a heading it has (GitHub's heading ids). A newcomer following
 * the README into docs/ never lands on a 404 or the top of the wrong page.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function markdownUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(dir, name));
}

const documents = ['README.md', 'CONTRIBUTING.md', 'bench/README.md', 'web/dashboard/README.md', ...markdownUnder('docs')].filter((file) =>
  existsSync(join(root, file)),
);

/** The text outside fenced code blocks, one entry per line. */
function proseLines(markdown: string): string[] {
  let fence: string | null = null;
  const lines: string[] = [];
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (marker && (fence === null || fence === marker)) {
      fence = fence === null ? marker : null;
      continue;
    }
    if (fence === null) lines.push(line);
  }
  return lines;
}

/** GitHub's id for a heading: lower case, punctuation dropped, each space a hyphen. */
function headingId(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const id = headingId(heading);
    const count = seen.get(id) ?? 0;
    seen.set(id, count + 1);
    anchors.add(count === 0 ? id : `${id}-${count}`);
  }
  return anchors;
}

/** Every link target of a Markdown file: [text](target), ![alt](target), <a href>, <img src>. */
function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(markdown)) {
    const prose = line.replace(/`[^`]*`/g, '');
    const markdownLinks = prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g);
    const htmlLinks = prose.matchAll(/<(?:a|img)\s[^>]*?(?:href|src)="([^"]+)"/g);
    for (const m of [...markdownLinks, ...htmlLinks]) if (m[1]) targets.push(m[1]);
  }
  return targets;
}

function problemOf(file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return null;
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  const absolute = pathPart === '' ? join(root, file) : resolve(dirname(join(root, file)), decodeURIComponent(pathPart));
  if (relative(root, absolute).startsWith('..')) return 'leaves the repository';
  if (!existsSync(absolute)) return 'no such file';
  if (anchor === undefined || anchor === '') return null;
  if (!absolute.endsWith('.md') || statSync(absolute).isDirectory()) return null;
  return anchorsOf(absolute).has(decodeURIComponent(anchor).toLowerCase()) ? null : 'no such heading';
}

describe('links in the documentation', () => {
  it('finds the Markdown files it checks', () => {
    expect(documents).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'docs/configuration.md']));
  });

  it('gives headings the ids GitHub gives them', () => {
    expect(headingId('Analytics (`GET /api/analytics`) and the company timezone')).toBe('analytics-get-apianalytics-and-the-company-timezone');
    expect(headingId("A company's own overload")).toBe('a-companys-own-overload');
    expect(headingId('Where the code departs from DESIGN.md (and API.md)')).toBe('where-the-code-departs-from-designmd-and-apimd');
  });

  it('every relative link points at a file, and every #anchor at a heading, in the repository', () => {
    const broken: string[] = [];
    for (const file of documents) {
      for (const target of linkTargets(readFileSync(join(root, file), 'utf8'))) {
        const problem = problemOf(file, target);
        if (problem) broken.push(`${file}: ${target} (${problem})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every repository path the README and docs/ name in code exists', () => {
    const missing: string[] = [];
    for (const file of documents.filter((f) => f === 'README.md' || f.startsWith('docs/'))) {
      for (const line of proseLines(readFileSync(join(root, file), 'utf8'))) {
        for (const m of line.matchAll(/`((?:src|test|web|bench|scripts|docs)\/[\w./-]+)`/g)) {
          const path = m[1] ?? '';
          if (!existsSync(join(root, path))) missing.push(`${file}: ${path}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('the README stays the front door: at most 250 lines, the rest in docs/', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(250);
  });
});
