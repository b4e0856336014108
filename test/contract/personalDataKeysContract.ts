/**
 * The PersonalDataKeys contract: every adapter keeps one current key per scope, finds a key by its id, and
 * forgets every key of an erased subject for good (and for every other reader of the same store).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { PersonalDataKeys } from '../../src/ports/personalDataKeys.js';

export interface PersonalDataKeysFixture {
  keys: PersonalDataKeys;
  /** Another instance on the same store (another process); the same one where there is none. */
  another(): Promise<PersonalDataKeys>;
  cleanup(): Promise<void>;
}

export function personalDataKeysContract(name: string, factory: () => Promise<PersonalDataKeysFixture>): void {
  describe(`PersonalDataKeys contract: ${name}`, () => {
    let fixture: PersonalDataKeysFixture | undefined;
    afterEach(async () => {
      await fixture?.cleanup();
      fixture = undefined;
    });
    const open = async () => (fixture = await factory());
    const subject = () => ({ subjectId: randomUUID(), companyId: randomUUID() });

    it('a scope has no key until one is created; creating again returns the same 32-byte key', async () => {
      const { keys } = await open();
      const s = subject();
      expect(await keys.currentKey('conversation-a')).toBeNull();
      const first = await keys.createKey('conversation-a', s);
      expect(first.key).toHaveLength(32);
      const again = await keys.createKey('conversation-a', subject());
      expect(again.keyId).toBe(first.keyId);
      expect(Buffer.compare(again.key, first.key)).toBe(0);
      expect(await keys.currentKey('conversation-a')).toEqual({ keyId: first.keyId, key: first.key });
      expect(await keys.subjectOf('conversation-a')).toEqual(s);
      expect(Buffer.compare((await keys.keyById(first.keyId))!, first.key)).toBe(0);
      expect(await keys.keyById(randomUUID())).toBeNull();
    });

    it('scopes get different keys; racing creators of one scope all get the one key', async () => {
      const { keys, another } = await open();
      const other = await another();
      const s = subject();
      const made = await Promise.all([keys.createKey('customer-x', s), other.createKey('customer-x', s), keys.createKey('customer-x', s)]);
      expect(new Set(made.map((k) => k.keyId)).size).toBe(1);
      const y = await keys.createKey('customer-y', s);
      expect(y.keyId).not.toBe(made[0]!.keyId);
      expect(Buffer.compare(y.key, made[0]!.key)).not.toBe(0);
    });

    it('erasing a subject deletes all its keys, for every reader; other subjects keep theirs; a repeat erases nothing', async () => {
      const { keys, another } = await open();
      const erased = subject();
      const kept = subject();
      const a = await keys.createKey('customer-e', erased);
      const b = await keys.createKey('conversation-e', erased);
      const c = await keys.createKey('customer-k', kept);
      const other = await another();
      expect(await other.keyById(a.keyId)).not.toBeNull();
      expect(await keys.eraseSubject(erased.subjectId)).toBe(2);
      for (const reader of [keys, other]) {
        expect(await reader.keyById(a.keyId)).toBeNull();
        expect(await reader.keyById(b.keyId)).toBeNull();
        expect(await reader.currentKey('customer-e')).toBeNull();
        // The tombstone: the scope still knows whose it was (so a returning customer's data is keyed again).
        expect(await reader.subjectOf('conversation-e')).toEqual(erased);
        expect(await reader.keyById(c.keyId)).not.toBeNull();
      }
      expect(await keys.eraseSubject(erased.subjectId)).toBe(0);
      // A scope written again after the erasure gets a new key: the old ciphertext stays unreadable.
      const fresh = await keys.createKey('customer-e', erased);
      expect(fresh.keyId).not.toBe(a.keyId);
      expect(await keys.keyById(a.keyId)).toBeNull();
    });

    it('an erased scope is a tombstone: no key, its subject kept; keying it again makes a new key that a new erasure removes', async () => {
      const { keys, another } = await open();
      const s = subject();
      const old = await keys.createKey('conversation-t', s);
      expect(await keys.eraseSubject(s.subjectId)).toBe(1);
      expect(await keys.currentKey('conversation-t')).toBeNull();
      expect(await keys.subjectOf('conversation-t')).toEqual(s);
      expect(await keys.eraseSubject(s.subjectId)).toBe(0);
      const other = await another();
      const made = await Promise.all([keys.createKey('conversation-t', s), other.createKey('conversation-t', s)]);
      expect(made[1]!.keyId).toBe(made[0]!.keyId);
      const fresh = made[0]!;
      expect(fresh.keyId).not.toBe(old.keyId);
      expect(fresh.key).toHaveLength(32);
      expect(Buffer.compare(fresh.key, old.key)).not.toBe(0);
      for (const reader of [keys, other]) {
        expect(await reader.currentKey('conversation-t')).toEqual({ keyId: fresh.keyId, key: fresh.key });
        expect(await reader.keyById(old.keyId)).toBeNull();
        expect(Buffer.compare((await reader.keyById(fresh.keyId))!, fresh.key)).toBe(0);
      }
      expect(await keys.eraseSubject(s.subjectId)).toBe(1);
      for (const reader of [keys, other]) {
        expect(await reader.keyById(fresh.keyId)).toBeNull();
        expect(await reader.keyById(old.keyId)).toBeNull();
        expect(await reader.currentKey('conversation-t')).toBeNull();
        expect(await reader.subjectOf('conversation-t')).toEqual(s);
      }
      expect(await keys.eraseSubject(s.subjectId)).toBe(0);
    });
  });
}
