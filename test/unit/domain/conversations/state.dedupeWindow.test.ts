import { describe, expect, it } from 'vitest';
import {
  dedupeWindowSize,
  DEDUPE_WINDOW_MAX,
  DEDUPE_WINDOW_MIN,
  emptyDedupeWindow,
  findKey,
  rememberKey,
  type DedupeWindow,
} from '../../../../src/domain/conversations/state.js';

const remember = (window: DedupeWindow, from: number, to: number, until: string | null = null) => {
  let w = window;
  for (let i = from; i < to; i++) w = rememberKey(w, `k${i}`, until);
  return w;
};

describe('the dedupe window of a conversation', () => {
  it('given 10,000 keys, remembers at least the newest DEDUPE_WINDOW_MIN and never holds more than DEDUPE_WINDOW_MAX', () => {
    let w = emptyDedupeWindow;
    for (let i = 0; i < 10_000; i++) {
      w = rememberKey(w, `k${i}`, null);
      expect(dedupeWindowSize(w)).toBeLessThanOrEqual(DEDUPE_WINDOW_MAX);
    }
    for (let i = 10_000 - DEDUPE_WINDOW_MIN; i < 10_000; i++) expect(findKey(w, `k${i}`)).toEqual({ key: `k${i}`, until: null });
    expect(findKey(w, 'k0')).toBeUndefined();
    expect(findKey(w, `k${10_000 - DEDUPE_WINDOW_MAX - 1}`)).toBeUndefined();
  });

  it('a key remembered again (its first entry expired) is found with its newest until, in the open chunk or a sealed one', () => {
    const first = rememberKey(emptyDedupeWindow, 'again', '2026-01-01T00:00:00.000Z');
    const twice = rememberKey(remember(first, 0, 3), 'again', '2026-02-01T00:00:00.000Z');
    expect(findKey(twice, 'again')?.until).toBe('2026-02-01T00:00:00.000Z');
    // Both entries sealed into the same chunk, then that chunk among older ones.
    const sealed = remember(twice, 3, 3 + DEDUPE_WINDOW_MIN / 2);
    expect(sealed.open.length).toBeLessThan(DEDUPE_WINDOW_MAX - DEDUPE_WINDOW_MIN);
    expect(findKey(sealed, 'again')?.until).toBe('2026-02-01T00:00:00.000Z');
  });

  it('is immutable: adding to a window leaves the window it came from as it was', () => {
    const before = remember(emptyDedupeWindow, 0, DEDUPE_WINDOW_MIN - 1);
    const snapshot = JSON.stringify({ open: before.open, sealed: before.sealed.map((m) => [...m]) });
    const after = remember(before, DEDUPE_WINDOW_MIN - 1, DEDUPE_WINDOW_MAX * 2);
    expect(JSON.stringify({ open: before.open, sealed: before.sealed.map((m) => [...m]) })).toBe(snapshot);
    expect(findKey(before, 'k0')).toBeDefined();
    expect(findKey(after, 'k0')).toBeUndefined();
    expect(findKey(before, `k${DEDUPE_WINDOW_MAX}`)).toBeUndefined();
  });
});
