import { randomBytes, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { KeySubject, PersonalDataKey, PersonalDataKeys } from '../../ports/personalDataKeys.js';

/**
 * Keys in their own SQLite file (`keys.sqlite` beside the event log, never inside it), set so a deleted key
 * leaves no copy on disk: `secure_delete` overwrites freed content with zeros, and an erasure checkpoints the
 * WAL and truncates it, so no older page with the key lingers in the log file. WAL, not a rollback journal: the
 * API thread and the processor thread share the file, and a writer must never block a reader (better-sqlite3
 * waits synchronously, on the event loop). Commits are fsynced (`synchronous = FULL`): a key must be durable
 * before the event it encrypts is. Writes are rare (a new customer or conversation, an erasure); reads are
 * cached (cachedPersonalDataKeys.ts).
 *
 * An erasure leaves a tombstone: the scope's row keeps its subject and company, its key becomes an empty blob
 * (not NULL: the column is NOT NULL in files made before tombstones, and SQLite cannot relax that in place).
 * Keying the scope again writes a new key id and key into that row, so the old id is unknown for good.
 */
export function openSqlitePersonalDataKeys(path: string): PersonalDataKeys {
  const db = new Database(path);
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('secure_delete = ON');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE IF NOT EXISTS personal_data_keys (
    key_id TEXT PRIMARY KEY,
    scope TEXT NOT NULL UNIQUE,
    subject_id TEXT NOT NULL,
    company_id TEXT NOT NULL,
    key BLOB NOT NULL
  );
  CREATE INDEX IF NOT EXISTS personal_data_keys_subject ON personal_data_keys (subject_id);`);
  const byScope = db.prepare<[string], { key_id: string; key: Buffer; subject_id: string; company_id: string }>('SELECT key_id, key, subject_id, company_id FROM personal_data_keys WHERE scope = ?');
  const byId = db.prepare<[string], { key: Buffer }>('SELECT key FROM personal_data_keys WHERE key_id = ? AND length(key) > 0');
  const insert = db.prepare('INSERT INTO personal_data_keys (key_id, scope, subject_id, company_id, key) VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope) DO NOTHING');
  // Only a tombstone is re-keyed: a racing writer that keyed it first wins, and both read its key back.
  const rekey = db.prepare('UPDATE personal_data_keys SET key_id = ?, key = ? WHERE scope = ? AND length(key) = 0');
  const erase = db.prepare("UPDATE personal_data_keys SET key = X'' WHERE subject_id = ? AND length(key) > 0");
  const live = (row: { key_id: string; key: Buffer } | undefined): PersonalDataKey | null => (row && row.key.length > 0 ? { keyId: row.key_id, key: row.key } : null);
  return {
    async currentKey(scope) {
      return live(byScope.get(scope));
    },
    async createKey(scope, subject: KeySubject): Promise<PersonalDataKey> {
      const made = insert.run(randomUUID(), scope, subject.subjectId, subject.companyId, randomBytes(32)).changes;
      if (made === 0) rekey.run(randomUUID(), randomBytes(32), scope);
      return live(byScope.get(scope))!;
    },
    async keyById(keyId) {
      return byId.get(keyId)?.key ?? null;
    },
    async subjectOf(scope) {
      const row = byScope.get(scope);
      return row ? { subjectId: row.subject_id, companyId: row.company_id } : null;
    },
    async eraseSubject(subjectId) {
      const n = erase.run(subjectId).changes;
      // The erased keys' old pages are still in the WAL: copy the zeroed pages back and empty the file.
      if (n > 0) db.pragma('wal_checkpoint(TRUNCATE)');
      return n;
    },
    async close() {
      db.close();
    },
  };
}
