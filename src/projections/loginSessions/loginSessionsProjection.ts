import { loginSessionEvents } from '../../domain/logins/events.js';
import type { Doc, Page, ReadStore } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/** Which login sessions (refresh-token families) a user has open, so removing a teammate can end them all. */
export interface LoginSessionDoc extends Doc {
  userId: string;
  companyId: string;
  active: boolean;
}

export const LOGIN_SESSIONS = 'loginSessions';

export const loginSessionsProjection = defineProjection(loginSessionEvents, {
  name: 'loginSessions',
  collections: [{ name: LOGIN_SESSIONS, indexes: [['userId', 'active']] }],
  eventTypes: ['SessionStarted', 'SessionRevoked'],
  async apply(event, ctx) {
    if (event.type === 'SessionStarted') {
      ctx.put(LOGIN_SESSIONS, { id: event.data.sessionId, userId: event.data.userId, companyId: event.data.companyId, active: true } satisfies LoginSessionDoc);
      return;
    }
    const doc = await ctx.get<LoginSessionDoc>(LOGIN_SESSIONS, event.stream.slice('session-'.length));
    if (doc) ctx.put(LOGIN_SESSIONS, { ...doc, active: false });
  },
});

/** Every login session of the user not yet revoked (expired ones included: revoking them costs nothing). */
export async function activeLoginSessionIds(readStore: ReadStore, userId: string): Promise<string[]> {
  const ids: string[] = [];
  for (let cursor: string | null = null; ; ) {
    const page: Page<LoginSessionDoc> = await readStore.find<LoginSessionDoc>(LOGIN_SESSIONS, { where: { userId, active: true }, limit: 200, cursor });
    ids.push(...page.items.map((d) => d.id));
    if (!page.nextCursor) return ids;
    cursor = page.nextCursor;
  }
}
