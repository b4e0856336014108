import type { ReadStore } from '../../ports/readStore.js';
import { PENDING_ACTION_CALLS, type PendingActionCallDoc } from './pendingActionCallsProjection.js';

/** Waiting calls, earliest deadline first, a page at a time; the caller stops at the first one not yet due. */
export function pendingCallsByDeadline(readStore: ReadStore, limit: number, cursor: string | null) {
  return readStore.find<PendingActionCallDoc>(PENDING_ACTION_CALLS, { orderBy: [{ field: 'expiresAt', direction: 'asc' }], limit, cursor });
}
