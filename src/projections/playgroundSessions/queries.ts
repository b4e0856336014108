import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { agentNames } from '../agents/queries.js';
import { PLAYGROUND_SESSIONS, type PlaygroundSessionDoc } from './playgroundSessionsProjection.js';

/** A session as the list shows it: with its agent's current name (null once the agent is deleted). */
export interface PlaygroundSessionEntry {
  session: PlaygroundSessionDoc;
  agentName: string | null;
}

/** The company's playground sessions (every teammate's), newest activity first; of one agent when `agentId` is given. */
export async function listPlaygroundSessions(
  readStore: ReadStore,
  companyId: string,
  filter: { agentId?: string | undefined },
  page: Pick<FindQuery, 'limit' | 'cursor'>,
): Promise<Page<PlaygroundSessionEntry>> {
  const found = await readStore.find<PlaygroundSessionDoc>(PLAYGROUND_SESSIONS, {
    where: { companyId, ...(filter.agentId ? { agentId: filter.agentId.toLowerCase() } : {}) },
    orderBy: [{ field: 'lastActivityAt', direction: 'desc' }],
    limit: page.limit,
    cursor: page.cursor ?? null,
  });
  // One read per distinct agent, at most a page's worth.
  const names = await agentNames(readStore, found.items.map((d) => d.agentId));
  return { items: found.items.map((session) => ({ session, agentName: names.get(session.agentId) ?? null })), nextCursor: found.nextCursor };
}
