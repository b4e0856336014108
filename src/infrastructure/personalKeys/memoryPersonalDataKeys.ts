import { randomBytes, randomUUID } from 'node:crypto';
import type { KeySubject, PersonalDataKey, PersonalDataKeys } from '../../ports/personalDataKeys.js';

interface Row extends KeySubject {
  keyId: string;
  scope: string;
  key: Buffer;
}

/** Keys in a Map (tests, and the memory event store): an erased key's buffer is zeroed before it is dropped. */
export function createMemoryPersonalDataKeys(): PersonalDataKeys {
  const byId = new Map<string, Row>();
  const current = new Map<string, Row>();
  return {
    async currentKey(scope) {
      const row = current.get(scope);
      return row ? { keyId: row.keyId, key: Buffer.from(row.key) } : null;
    },
    async createKey(scope, subject): Promise<PersonalDataKey> {
      const existing = current.get(scope);
      if (existing) return { keyId: existing.keyId, key: Buffer.from(existing.key) };
      const row: Row = { keyId: randomUUID(), scope, key: randomBytes(32), subjectId: subject.subjectId, companyId: subject.companyId };
      byId.set(row.keyId, row);
      current.set(scope, row);
      return { keyId: row.keyId, key: Buffer.from(row.key) };
    },
    async keyById(keyId) {
      const row = byId.get(keyId);
      return row ? Buffer.from(row.key) : null;
    },
    async subjectOf(scope) {
      const row = current.get(scope);
      return row ? { subjectId: row.subjectId, companyId: row.companyId } : null;
    },
    async eraseSubject(subjectId) {
      let n = 0;
      for (const [id, row] of byId) {
        if (row.subjectId !== subjectId) continue;
        row.key.fill(0);
        byId.delete(id);
        if (current.get(row.scope) === row) current.delete(row.scope);
        n++;
      }
      return n;
    },
    async close() {},
  };
}
