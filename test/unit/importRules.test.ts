/**
 * The import rules of CONTRIBUTING.md ("Dependency direction"), written in .dependency-cruiser.cjs, hold for every
 * file of src/, and the dashboard (web/) takes only types from it. The same check from a shell: `npx depcruise src web`.
 */
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';

/**
 * Violations being removed on another branch of the same restructuring, tolerated until it lands. An entry that no
 * longer occurs fails the test: delete it then (this list is meant to be empty).
 */
const pending: Array<{ rule: string; from: string; to: string }> = [];

/** `from → to`, or the whole circle for a circular import. */
function pathOf(v: IViolation): string {
  if (v.cycle && v.cycle.length > 0) return [v.from, ...v.cycle.map((step) => step.name)].join(' → ');
  return `${v.from} → ${v.to}${v.dependencyTypes?.includes('type-only') ? ' (type-only)' : ''}`;
}

async function cruiseSources(): Promise<ICruiseResult> {
  const cwd = process.cwd();
  process.chdir(fileURLToPath(new URL('../..', import.meta.url))); // the config's paths (^src/...) are relative to the repository
  try {
    const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
    const tsConfig = extractTSConfig('tsconfig.json');
    return (await cruise(['src', 'web'], options, undefined, { tsConfig })).output as ICruiseResult;
  } finally {
    process.chdir(cwd);
  }
}

describe('import rules', () => {
  it('src/ and web/ break none of the rules in .dependency-cruiser.cjs', { timeout: 120_000 }, async () => {
    const result = await cruiseSources();
    // A misconfigured resolver would see no imports at all, and every rule would pass.
    expect(result.summary.totalCruised).toBeGreaterThan(100);
    // The dashboard's rules see its type imports from the server (else they would pass on nothing).
    const serverTypes = result.modules.find((m) => m.source === 'web/dashboard/src/api/serverTypes.ts');
    const fromSchemas = serverTypes?.dependencies.filter((d) => /^src\/http\/routes\/.+\.schemas\.ts$/.test(d.resolved)) ?? [];
    expect(fromSchemas.length).toBeGreaterThan(0);
    const isPending = (v: IViolation) => pending.some((p) => p.rule === v.rule.name && p.from === v.from && p.to === v.to);
    const violations = result.summary.violations.filter((v) => !isPending(v));
    const reasons = new Map((result.summary.ruleSetUsed?.forbidden ?? []).map((rule) => [rule.name, rule.comment]));
    const lines = violations.map((v) => `- ${v.rule.name}: ${pathOf(v)}\n    why: ${reasons.get(v.rule.name) ?? '(no comment)'}`);
    if (lines.length > 0) expect.fail(`${lines.length} import rule violation(s) (rules and their exceptions: .dependency-cruiser.cjs)\n${lines.join('\n')}`);
    const gone = pending.filter((p) => !result.summary.violations.some((v) => p.rule === v.rule.name && p.from === v.from && p.to === v.to));
    expect(gone, 'pending violations that no longer occur: delete them from `pending` in this file').toEqual([]);
  });
});
