/**
 * The newest dedupe keys of a conversation's accepted deliveries, and until when each counts (null: forever).
 *
 * Folded once per message for the life of a conversation, so adding and looking up must cost the same with 10 keys
 * or 200: keys go into a small open chunk (copied on add, at most CHUNK entries); a full chunk is sealed into a
 * frozen Map, and only the newest SEALED_KEPT sealed chunks are kept. The window is immutable like the rest of the
 * state (a decider may hold an older state), and holds at least CHUNK × SEALED_KEPT of the newest keys. An older
 * redelivery is caught by the store's unique index on its deterministic event ids.
 */
export interface DedupeEntry {
  readonly key: string;
  readonly until: string | null;
}

export interface DedupeWindow {
  readonly open: readonly DedupeEntry[];
  /** Oldest first. */
  readonly sealed: readonly ReadonlyMap<string, string | null>[];
}

const CHUNK = 25;
const SEALED_KEPT = 8;
/** The window never holds more keys than this. */
export const DEDUPE_WINDOW_MAX = CHUNK * (SEALED_KEPT + 1);
/** …nor forgets any of this many newest keys. */
export const DEDUPE_WINDOW_MIN = CHUNK * SEALED_KEPT;

export const emptyDedupeWindow: DedupeWindow = { open: [], sealed: [] };

export function rememberKey(window: DedupeWindow, key: string, until: string | null): DedupeWindow {
  const open = [...window.open, { key, until }];
  if (open.length < CHUNK) return { open, sealed: window.sealed };
  const chunk: ReadonlyMap<string, string | null> = new Map(open.map((e) => [e.key, e.until]));
  const sealed = window.sealed.length < SEALED_KEPT ? [...window.sealed, chunk] : [...window.sealed.slice(1), chunk];
  return { open: [], sealed };
}

/** The newest entry for `key` in the window, or undefined when the window does not hold it. */
export function findKey(window: DedupeWindow, key: string): DedupeEntry | undefined {
  for (let i = window.open.length - 1; i >= 0; i--) if (window.open[i]!.key === key) return window.open[i];
  for (let i = window.sealed.length - 1; i >= 0; i--) {
    const until = window.sealed[i]!.get(key);
    if (until !== undefined) return { key, until };
  }
  return undefined;
}

export const dedupeWindowSize = (window: DedupeWindow) => window.open.length + window.sealed.reduce((n, chunk) => n + chunk.size, 0);
