import { defineConfig } from 'vitest/config';

/**
 * Files that measure wall-clock time of a whole process (start-up within 2 s) run after everything else,
 * one at a time, so the other files running in parallel on the same cores do not decide their outcome.
 */
const timed = ['test/e2e/productionBuild.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: timed, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'timed', include: timed, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
