import { DEFAULT_AVAILABILITY } from '../../domain/accounts/availability/state.js';
import { initialAutoAssignmentState, type AutoAssignmentState } from '../../domain/company/autoAssignment/state.js';
import type { ReadStore } from '../../ports/readStore.js';
import { DESK_CONVERSATIONS, DESK_SETTINGS, DESK_TEAMMATES, type DeskConversationDoc, type DeskSettingsDoc, type DeskTeammateDoc } from './assignmentDeskProjection.js';

/** The company's automatic assignment settings as the read model has them (off until configured). */
export async function deskSettings(readStore: ReadStore, companyId: string): Promise<AutoAssignmentState> {
  const doc = await readStore.get<DeskSettingsDoc>(DESK_SETTINGS, companyId);
  return doc ? { enabled: doc.enabled, capacity: doc.capacity } : initialAutoAssignmentState;
}

/** The `limit` conversations that have waited longest for an owner, oldest first: one indexed lookup. */
export async function longestWaiting(readStore: ReadStore, companyId: string, limit: number): Promise<DeskConversationDoc[]> {
  const page = await readStore.find<DeskConversationDoc>(DESK_CONVERSATIONS, {
    where: { companyId, waiting: true },
    orderBy: [{ field: 'waitingSince', direction: 'asc' }],
    limit,
  });
  return page.items;
}

/** The head of one team's queue ('' : conversations for no team), oldest first: one indexed lookup. */
export async function longestWaitingFor(readStore: ReadStore, companyId: string, queue: string, limit: number): Promise<DeskConversationDoc[]> {
  const page = await readStore.find<DeskConversationDoc>(DESK_CONVERSATIONS, {
    where: { companyId, queue, waiting: true },
    orderBy: [{ field: 'waitingSince', direction: 'asc' }],
    limit,
  });
  return page.items;
}

const PAGE = 200;

/**
 * The round-robin's order: the company's members who are online, the one given a conversation longest ago (never
 * first) first. Bounded by the team's size, not its history.
 */
export async function onlineTeammates(readStore: ReadStore, companyId: string): Promise<DeskTeammateDoc[]> {
  const out: DeskTeammateDoc[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: DeskTeammateDoc[]; nextCursor: string | null } = await readStore.find<DeskTeammateDoc>(DESK_TEAMMATES, {
      where: { companyId, member: true, availability: 'online' },
      orderBy: [{ field: 'lastAssignedAt', direction: 'asc' }],
      limit: PAGE,
      cursor,
    });
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

export interface DeskView {
  availability: DeskTeammateDoc['availability'];
  openAssigned: number;
}

/** Availability and open load of the given teammates (a page of the team list), by user id. */
export async function deskViews(readStore: ReadStore, companyId: string, userIds: string[]): Promise<Map<string, DeskView>> {
  const docs = await Promise.all(userIds.map((id) => readStore.get<DeskTeammateDoc>(DESK_TEAMMATES, id)));
  const views = new Map<string, DeskView>();
  userIds.forEach((id, i) => {
    const doc = docs[i];
    views.set(id, doc && doc.companyId === companyId ? { availability: doc.availability, openAssigned: doc.open } : { availability: DEFAULT_AVAILABILITY, openAssigned: 0 });
  });
  return views;
}
