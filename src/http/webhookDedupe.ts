import { createHash } from 'node:crypto';
import type { PlatformId } from '../domain/webhooks/payload.js';

/**
 * Duplicate deliveries (API.md): the same `message_id`, or the same body from the same
 * integration within 24 h, change nothing.
 *
 * The key itself carries no time. A time bucket in the key (e.g. the UTC day) would be
 * deterministic but wrong: a redelivery one second after midnight would look new, and one 23 h
 * later on the same day old. Instead whoever records the key (the conversation aggregate) keeps
 * it with the time it was first seen and asks `isWithinDedupeWindow`; entries older than the
 * window can be forgotten, which also bounds the memory.
 *
 * - With a message id: `msg:<integrationId>:<messageId>`. A number and its string spelling give
 *   the same key on purpose: they name the same platform message. Such a key is a duplicate
 *   forever, not only for 24 h, because the platform never reuses a message id.
 * - Without: `body:<integrationId>:<sha256 hex of "<integrationId>:" + raw bytes>`; the hash is
 *   over the exact bytes the signature covered, so re-serialisation cannot change it.
 */

export const DEDUPE_WINDOW_MS = 24 * 60 * 60 * 1000;

export function webhookDedupeKey(integrationId: number, body: Buffer, messageId?: PlatformId | null): string {
  if (messageId !== undefined && messageId !== null && messageId !== '') {
    return `msg:${integrationId}:${messageId}`;
  }
  const hash = createHash('sha256').update(`${integrationId}:`).update(body).digest('hex');
  return `body:${integrationId}:${hash}`;
}

/** True when a key first seen at `firstSeenAt` still marks a delivery at `now` as a duplicate. */
export function isWithinDedupeWindow(key: string, firstSeenAt: Date, now: Date): boolean {
  if (key.startsWith('msg:')) return true;
  const age = now.getTime() - firstSeenAt.getTime();
  // A clock that stepped backwards still means "just seen", hence no lower bound on age.
  return age < DEDUPE_WINDOW_MS;
}

/**
 * A UUID derived from the dedupe key (SHA-256 based, laid out like a version 5 UUID), for event
 * stores that want UUID event ids: the same delivery always maps to the same event id.
 */
export function dedupeEventId(key: string): string {
  const b = createHash('sha256').update(`webhook-event:${key}`).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
