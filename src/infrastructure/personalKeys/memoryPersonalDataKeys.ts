import { randomBytes, randomUUID } from 'node:crypto';
import type { KeySubject, PersonalDataKey, PersonalDataKeys } from '../../ports/personalDataKeys.js';

interface Row extends KeySubject {
  keyId: string;
  scope: string;
  /** null: a tombstone (the subject was erased; the scope remembers whose it was, not the key). */
  key: Buffer | null;
}

/** Keys in a Map (tests, and the memory event store): an erased key's buffer is zeroed before it is dropped. */
export function createMemoryPersonalDataKeys(): PersonalDataKeys {
  const byId = new Map<string, Row>();
  const byScope = new Map<string, Row>();
  return {
    async currentKey(scope) {
      const row = byScope.get(scope);
      return row?.key ? { keyId: row.keyId, key: Buffer.from(row.key) } : null;
    },
    async createKey(scope, subject): Promise<PersonalDataKey> {
      const existing = byScope.get(scope);
      if (existing?.key) return { keyId: existing.keyId, key: Buffer.from(existing.key) };
      // A tombstone keeps its subject: the new key is still the erased customer's (a new id, a new key).
      const owner = existing ?? subject;
      const row: Row = { keyId: randomUUID(), scope, key: randomBytes(32), subjectId: owner.subjectId, companyId: owner.companyId };
      byId.set(row.keyId, row);
      byScope.set(scope, row);
      return { keyId: row.keyId, key: Buffer.from(row.key!) };
    },
    async keyById(keyId) {
      const key = byId.get(keyId)?.key;
      return key ? Buffer.from(key) : null;
    },
    async subjectOf(scope) {
      const row = byScope.get(scope);
      return row ? { subjectId: row.subjectId, companyId: row.companyId } : null;
    },
    async eraseSubject(subjectId) {
      let n = 0;
      for (const [id, row] of byId) {
        if (row.subjectId !== subjectId || !row.key) continue;
        row.key.fill(0);
        row.key = null;
        byId.delete(id);
        n++;
      }
      return n;
    },
    async close() {},
  };
}
