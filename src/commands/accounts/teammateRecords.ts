import type { Role } from '../../domain/accounts/team/events.js';
import type { CommandDeps } from '../deps.js';

/** Records handled at once, and read from the read models per page. */
export const RECORDS_PAGE = 100;
/** Work on one kind of record stops after this many pages (RECORDS_PAGE × this records), logging what is left. */
const MAX_PAGES = 1000;

/**
 * A teammate's records in the read models, which a removal or a demotion updates a page at a time. Read models
 * are eventually consistent, so each page is read once they have applied the writes before it (`caughtUp`).
 */
export interface TeammateRecords {
  /** The user's login sessions not yet revoked (one started in the last instant is still refused by the team check). */
  activeLoginSessions(userId: string): Promise<string[]>;
  /** Ids of API tokens the user created that are not revoked. */
  liveApiTokens(companyId: string, userId: string, limit: number): Promise<string[]>;
  /** Ids of the user's pending invitations; with `role`, only those inviting with that role. */
  pendingInvitations(companyId: string, userId: string, limit: number, role?: Role): Promise<string[]>;
  /** Ids of the conversations (open or closed) assigned to the user. */
  assignedConversations(companyId: string, userId: string, limit: number): Promise<string[]>;
  /** Resolves once the read models have applied the event at `position` (best effort: a bounded wait). */
  caughtUp(position: bigint | null): Promise<void>;
}

/** The later of two positions (null: nothing written). */
export const later = (a: bigint | null, b: bigint | null) => (a === null ? b : b === null || a > b ? a : b);

/**
 * Acts on every id `page` yields, a page at a time, reading the next page once the read models have applied
 * the last one's writes. Stops when a page is empty, or changes nothing (the read models are behind: what is
 * left is still refused by the checks, and a page that changed nothing would only come back). Returns the
 * position of its last write.
 */
export async function drain(
  deps: Pick<CommandDeps, 'logger'>,
  caughtUp: TeammateRecords['caughtUp'],
  what: string,
  page: (limit: number) => Promise<string[]>,
  act: (id: string) => Promise<{ position: bigint | null }>,
): Promise<bigint | null> {
  let last: bigint | null = null;
  for (let n = 0; n < MAX_PAGES; n++) {
    const ids = await page(RECORDS_PAGE);
    if (ids.length === 0) return last;
    const done = (await Promise.all(ids.map(act))).reduce<bigint | null>((p, r) => later(p, r.position), null);
    if (done === null) {
      deps.logger.warn({ what, left: ids.length }, "a teammate's records were not all updated: the read models are behind");
      return last;
    }
    last = done;
    await caughtUp(last);
  }
  deps.logger.warn({ what }, "a teammate's records were not all updated: stopped after the page limit");
  return last;
}
