import type { KeySubject, PersonalDataKey, PersonalDataKeys } from '../../ports/personalDataKeys.js';

/**
 * A bounded, per-process cache in front of a key store, so encrypting or decrypting an event costs a Map lookup,
 * not a query (constant per message, whatever the number of customers: least recently used keys leave first).
 * A live key is trusted for `ttlMs` at most (another process may erase it); an erased key id is remembered as
 * erased for good (ids are never reused). Erasing through this cache, or `forget()` (the encrypting store calls
 * it on reading a CustomerErased event), drops every cached key of this process at once. A missing current key
 * (null) is never cached: a scope keyed again after an erasure is seen at the next lookup.
 */
export interface CachedPersonalDataKeys extends PersonalDataKeys {
  forget(): void;
  /** Entries held (for tests of the bound). */
  cacheSize(): number;
}

class Lru<V> {
  private readonly map = new Map<string, { value: V; at: number }>();
  constructor(
    private readonly max: number,
    private readonly now: () => number,
  ) {}
  get(key: string, ttlMs: number): V | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    this.map.delete(key);
    if (this.now() - hit.at > ttlMs) return undefined;
    this.map.set(key, hit);
    return hit.value;
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, { value, at: this.now() });
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
  delete(key: string): void {
    this.map.delete(key);
  }
  clear(): void {
    this.map.clear();
  }
  get size(): number {
    return this.map.size;
  }
}

export const isCachedPersonalDataKeys = (keys: PersonalDataKeys): keys is CachedPersonalDataKeys => typeof (keys as CachedPersonalDataKeys).forget === 'function';

export function cachePersonalDataKeys(store: PersonalDataKeys, options: { maxEntries?: number; ttlMs?: number; now?: () => number } = {}): CachedPersonalDataKeys {
  const now = options.now ?? Date.now;
  const max = options.maxEntries ?? 10_000;
  const ttl = options.ttlMs ?? 60_000;
  const byScope = new Lru<PersonalDataKey>(max, now);
  const byId = new Lru<Buffer | null>(max, now);
  const subjects = new Lru<KeySubject | null>(max, now);
  const forget = () => {
    byScope.clear();
    byId.clear();
    subjects.clear();
  };
  return {
    async currentKey(scope) {
      const cached = byScope.get(`s:${scope}`, ttl);
      if (cached) return cached;
      const key = await store.currentKey(scope);
      if (key) {
        byScope.set(`s:${scope}`, key);
        byId.set(key.keyId, key.key);
      }
      return key;
    },
    async createKey(scope, subject) {
      const key = await store.createKey(scope, subject);
      subjects.delete(scope);
      byScope.set(`s:${scope}`, key);
      byId.set(key.keyId, key.key);
      return key;
    },
    async keyById(keyId) {
      const hit = byId.get(keyId, Number.POSITIVE_INFINITY);
      // An erased id (null) stays erased; a live key is re-read after the TTL.
      if (hit === null) return null;
      const live = byId.get(keyId, ttl);
      if (live) return live;
      const key = await store.keyById(keyId);
      byId.set(keyId, key);
      return key;
    },
    async subjectOf(scope) {
      // A scope's subject never changes once set (a tombstone keeps it): cached until evicted. "None" (a scope
      // never keyed, e.g. a conversation from before encryption) only for the TTL, as another process may key it.
      const hit = subjects.get(scope, Number.POSITIVE_INFINITY);
      if (hit) return hit;
      if (hit === null && subjects.get(scope, ttl) === null) return null;
      const subject = await store.subjectOf(scope);
      subjects.set(scope, subject);
      return subject;
    },
    async eraseSubject(subjectId) {
      const n = await store.eraseSubject(subjectId);
      forget();
      return n;
    },
    close: () => store.close(),
    forget,
    cacheSize: () => byScope.size + byId.size + subjects.size,
  };
}
