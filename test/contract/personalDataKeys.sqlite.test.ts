import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { openSqlitePersonalDataKeys } from '../../src/infrastructure/personalKeys/sqlitePersonalDataKeys.js';
import type { PersonalDataKeys } from '../../src/ports/personalDataKeys.js';
import { personalDataKeysContract } from './personalDataKeysContract.js';

personalDataKeysContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keys-'));
  const opened: PersonalDataKeys[] = [];
  const open = () => {
    const k = openSqlitePersonalDataKeys(join(dir, 'keys.sqlite'));
    opened.push(k);
    return k;
  };
  return {
    keys: open(),
    another: async () => open(),
    cleanup: async () => {
      for (const k of opened) await k.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

it('an erased key leaves no copy of its bytes in any file of the directory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keys-'));
  try {
    const keys = openSqlitePersonalDataKeys(join(dir, 'keys.sqlite'));
    const subjectId = randomUUID();
    const made = [];
    for (let i = 0; i < 20; i++) made.push(await keys.createKey(`conversation-${i}`, { subjectId, companyId: randomUUID() }));
    const kept = await keys.createKey('customer-kept', { subjectId: randomUUID(), companyId: randomUUID() });
    const everything = () => Buffer.concat(readdirSync(dir).map((f) => readFileSync(join(dir, f))));
    expect(everything().includes(made[3]!.key)).toBe(true);
    expect(await keys.eraseSubject(subjectId)).toBe(20);
    const bytes = everything();
    for (const k of made) expect(bytes.includes(k.key)).toBe(false);
    expect(bytes.includes(kept.key)).toBe(true);
    // Keyed again after the erasure (a returning customer) and erased again: the new key leaves no copy either.
    const again = await keys.createKey('conversation-3', { subjectId, companyId: randomUUID() });
    expect(everything().includes(again.key)).toBe(true);
    expect(await keys.eraseSubject(subjectId)).toBe(1);
    expect(everything().includes(again.key)).toBe(false);
    await keys.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
