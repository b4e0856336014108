/**
 * The keys that encrypt customers' personal data in the event log (crypto-shredding, docs/erasure.md). A key
 * belongs to one scope (the stream whose events it encrypts: `customer-<id>`, `conversation-<id>`) and one
 * subject (the customer the data is about). Keys live apart from the log, in a store that really deletes:
 * erasing a subject removes every key it has, so the log's ciphertext of that customer can never be read again.
 *
 * What every adapter keeps: a scope has at most one current key (the newest); a key id is never reused; a key
 * erased is gone for every reader of the store (later lookups answer null); `createKey` of a scope that has a
 * key returns that key (two writers racing get the same one).
 *
 * Erasing leaves a tombstone per scope: its subject and company stay, its key material does not (really gone
 * from the store's files). `currentKey` of a tombstone answers null, `subjectOf` still answers the subject, and
 * `createKey` keys it again with a new key under a new id (the erased ids stay unknown to `keyById` for good) —
 * so a customer who writes again into a stream after being erased is encrypted again, never stored plain.
 */
export interface PersonalDataKey {
  keyId: string;
  /** 32 bytes (AES-256). */
  key: Buffer;
}

export interface KeySubject {
  /** The customer the scope's data is about. */
  subjectId: string;
  companyId: string;
}

export interface PersonalDataKeys {
  /** The scope's current key, or null when it has none (never had one, or its subject was erased). */
  currentKey(scope: string): Promise<PersonalDataKey | null>;
  /** The scope's current key, creating it (random, for `subject`; a tombstone keeps its own subject) when it has none. */
  createKey(scope: string, subject: KeySubject): Promise<PersonalDataKey>;
  /** A key by its id (what an encrypted event names), or null once erased. */
  keyById(keyId: string): Promise<Buffer | null>;
  /** The subject of a scope that has or had a key (a tombstone too), or null when it never had one. */
  subjectOf(scope: string): Promise<KeySubject | null>;
  /** Deletes every live key of the subject for good, leaving tombstones; returns how many (0 on a repeat: idempotent). */
  eraseSubject(subjectId: string): Promise<number>;
  close(): Promise<void>;
}
