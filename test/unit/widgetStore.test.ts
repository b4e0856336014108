import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex, storageIdentity, Store } from '../../web/widget/src/store.js';

/** The widget's visitor token slots: one per identity the page vouches for, the old shared slot only for anonymous pages. */

const SLOT = 'mas-webchat:https://agents.example.com:7';
let items: Map<string, string>;

beforeEach(() => {
  items = new Map();
  (globalThis as { localStorage?: unknown }).localStorage = {
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => void items.set(k, v),
    removeItem: (k: string) => void items.delete(k),
  };
});

afterEach(() => {
  delete (globalThis as { localStorage?: unknown }).localStorage;
});

describe('the slot of an identity', () => {
  it.each(['', 'u-ann', 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(64), 'ünïcødé 🙂', 'x'.repeat(1000)])(
    'names a signed user by the SHA-256 of her id (%#), never by the id itself',
    (userId) => {
      expect(sha256Hex(userId)).toBe(createHash('sha256').update(userId).digest('hex'));
      expect(storageIdentity(userId)).toBe(`user-${sha256Hex(userId)}`);
    },
  );

  it('an unsigned page is anonymous, and two users never share a slot', () => {
    expect(storageIdentity(undefined)).toBe('anonymous');
    expect(storageIdentity('u-ann')).not.toBe(storageIdentity('u-bob'));
  });
});

describe('a token stored before slots per identity', () => {
  beforeEach(() => items.set(SLOT, JSON.stringify({ visitorId: 'v-old', visitorToken: 't-old', outbox: [] })));

  it('given the old shared slot, when an anonymous page stores its identity, then the old slot moves into its own and is gone', () => {
    const anonymous = new Store(`${SLOT}:anonymous`, SLOT);
    expect(anonymous.read().visitorToken).toBe('t-old');
    anonymous.setIdentity('v-new', 't-new');
    expect(items.has(SLOT)).toBe(false);
    expect(JSON.parse(items.get(`${SLOT}:anonymous`)!)).toMatchObject({ visitorId: 'v-new', visitorToken: 't-new' });
  });

  it("given the old shared slot, when a signed page reads and clears its own, then it never sees the old token and leaves it alone", () => {
    const ann = new Store(`${SLOT}:${storageIdentity('u-ann')}`);
    expect(ann.read().visitorToken).toBeUndefined();
    ann.setIdentity('v-ann', 't-ann');
    ann.clearIdentity();
    expect(JSON.parse(items.get(SLOT)!).visitorToken).toBe('t-old');
  });

  it("given ann's slot, when the anonymous slot is cleared and replaced, then ann's token is untouched", () => {
    const ann = new Store(`${SLOT}:${storageIdentity('u-ann')}`);
    ann.setIdentity('v-ann', 't-ann');
    const anonymous = new Store(`${SLOT}:anonymous`, SLOT);
    anonymous.clearIdentity();
    anonymous.setIdentity('v-anon', 't-anon');
    expect(ann.read()).toMatchObject({ visitorId: 'v-ann', visitorToken: 't-ann' });
  });
});
