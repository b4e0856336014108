import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { openPgPool } from '../postgres/pool.js';
import type { Logger } from '../../ports/logger.js';
import type { KeySubject, PersonalDataKey, PersonalDataKeys } from '../../ports/personalDataKeys.js';

/**
 * Keys in a PostgreSQL table of their own (never the events table). A DELETE leaves a dead tuple until VACUUM
 * reclaims it, so an erasure vacuums the table at once (it is small: one row per customer stream); WAL archives
 * and base backups still hold the key until they expire (docs/erasure.md, Backups).
 *
 * An erasure leaves a tombstone: the row keeps scope, subject and company, its key is NULL (the UPDATE's old
 * tuple, the one with the key, is what the VACUUM reclaims). Keying it again writes a new key id and key.
 */
export async function openPgPersonalDataKeys(options: { connectionString: string; applicationName?: string; logger?: Logger }): Promise<PersonalDataKeys> {
  const pool: pg.Pool = openPgPool({ connectionString: options.connectionString, max: 4, ...(options.applicationName ? { applicationName: options.applicationName } : {}), ...(options.logger ? { logger: options.logger } : {}) });
  await pool.query(`CREATE TABLE IF NOT EXISTS personal_data_keys (
    key_id text PRIMARY KEY,
    scope text NOT NULL UNIQUE,
    subject_id text NOT NULL,
    company_id text NOT NULL,
    key bytea
  )`).catch(async (err: { code?: string }) => {
    // Two processes creating it at once: the loser sees a unique violation on the catalog; the table exists.
    if (err.code !== '23505' && err.code !== '42P07') throw err;
  });
  // Tables made before tombstones had the key NOT NULL. Checked first: the ALTER takes the table's exclusive lock.
  const { rows: keyColumn } = await pool.query<{ is_nullable: string }>(
    "SELECT is_nullable FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'personal_data_keys' AND column_name = 'key'",
  );
  if (keyColumn[0]?.is_nullable === 'NO') await pool.query('ALTER TABLE personal_data_keys ALTER COLUMN key DROP NOT NULL');
  await pool.query('CREATE INDEX IF NOT EXISTS personal_data_keys_subject ON personal_data_keys (subject_id)').catch((err: { code?: string }) => {
    if (err.code !== '23505' && err.code !== '42P07') throw err;
  });
  const byScope = async (scope: string) =>
    (await pool.query<{ key_id: string; key: Buffer | null; subject_id: string; company_id: string }>('SELECT key_id, key, subject_id, company_id FROM personal_data_keys WHERE scope = $1', [scope])).rows[0];
  const live = (row: { key_id: string; key: Buffer | null } | undefined): PersonalDataKey | null => (row?.key ? { keyId: row.key_id, key: row.key } : null);
  return {
    async currentKey(scope) {
      return live(await byScope(scope));
    },
    async createKey(scope, subject: KeySubject): Promise<PersonalDataKey> {
      await pool.query('INSERT INTO personal_data_keys (key_id, scope, subject_id, company_id, key) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (scope) DO NOTHING', [
        randomUUID(),
        scope,
        subject.subjectId,
        subject.companyId,
        randomBytes(32),
      ]);
      // A tombstone (erased subject) is keyed again; of racing writers the first wins and all read its key.
      await pool.query('UPDATE personal_data_keys SET key_id = $1, key = $2 WHERE scope = $3 AND key IS NULL', [randomUUID(), randomBytes(32), scope]);
      return live(await byScope(scope))!;
    },
    async keyById(keyId) {
      const { rows } = await pool.query<{ key: Buffer | null }>('SELECT key FROM personal_data_keys WHERE key_id = $1', [keyId]);
      return rows[0]?.key ?? null;
    },
    async subjectOf(scope) {
      const row = await byScope(scope);
      return row ? { subjectId: row.subject_id, companyId: row.company_id } : null;
    },
    async eraseSubject(subjectId) {
      const { rowCount } = await pool.query('UPDATE personal_data_keys SET key = NULL WHERE subject_id = $1 AND key IS NOT NULL', [subjectId]);
      if (rowCount) await pool.query('VACUUM personal_data_keys');
      return rowCount ?? 0;
    },
    async close() {
      await pool.end();
    },
  };
}
