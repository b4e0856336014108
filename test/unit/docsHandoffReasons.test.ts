import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { handoffReason } from '../../src/domain/conversations/state.js';

/**
 * Every page that lists the "Needs human" reasons lists all of them, as the code's enum has them: a webhook
 * consumer or a report reader switching on the reason meets no value the docs never named.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(resolve(root, file), 'utf8');
const reasonsIn = (text: string) => [...text.matchAll(/`?([a-z_]+)`?/g)].map((m) => m[1]!).filter((w) => w.includes('_'));

describe('the handoff reasons in the docs', () => {
  const all = [...handoffReason.options].sort();

  it('docs/api/outbound-webhooks.md: the conversation.handed_off row names every reason', () => {
    const row = read('docs/api/outbound-webhooks.md')
      .split('\n')
      .find((line) => line.startsWith('| `conversation.handed_off`'));
    const listed = /reason: (.*) \|$/.exec(row ?? '')?.[1] ?? '';
    expect(reasonsIn(listed).sort()).toEqual(all);
  });

  it('docs/api/conversations.md: the handoff object names every reason', () => {
    const listed = /handoff: \{reason: ([a-z_|]+),/.exec(read('docs/api/conversations.md'))?.[1] ?? '';
    expect(listed.split('|').sort()).toEqual(all);
  });

  it('docs/api/analytics.md: handoffReasons names every reason', () => {
    const line = read('docs/api/analytics.md')
      .split('\n')
      .find((l) => l.startsWith('| `handedOff`, `handoffReasons`'));
    const listed = /\(([^)]*experiment_holdout[^)]*)\)/.exec(line ?? '')?.[1] ?? '';
    expect(reasonsIn(listed).sort()).toEqual(all);
  });
});
