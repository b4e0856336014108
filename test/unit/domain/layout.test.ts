import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * One shape per aggregate (CONTRIBUTING.md, "Layout"): every folder of src/domain with a decider.ts also has its
 * events.ts and state.ts, and a given/when/then test at the mirrored path under test/unit/domain.
 */
const root = new URL('../../../', import.meta.url).pathname;
const domain = join(root, 'src/domain');

function deciderFolders(dir: string): string[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  const here = entries.some((e) => e.isFile() && e.name === 'decider.ts') && dir !== domain ? [dir] : [];
  return [...here, ...entries.filter((e) => e.isDirectory()).flatMap((e) => deciderFolders(join(dir, e.name)))];
}

describe('src/domain layout', () => {
  const folders = deciderFolders(domain).map((d) => relative(domain, d));

  it('finds every aggregate', () => {
    expect(folders.length).toBeGreaterThanOrEqual(22);
  });

  it.each(folders)('%s has events.ts, state.ts and decider.ts', (folder) => {
    for (const file of ['events.ts', 'state.ts', 'decider.ts']) expect(existsSync(join(domain, folder, file)), `src/domain/${folder}/${file}`).toBe(true);
  });

  it.each(folders)('%s/decider.ts has a given/when/then decider.test.ts at its mirrored path under test/unit/domain', (folder) => {
    const test = join(root, 'test/unit/domain', folder, 'decider.test.ts');
    expect(existsSync(test), relative(root, test)).toBe(true);
    expect(readFileSync(test, 'utf8')).toMatch(/specFor\(/);
  });
});
