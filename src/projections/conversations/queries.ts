import { DomainError } from '../../domain/errors.js';
import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { CONVERSATION_READS, conversationReadId, unreadFor, type ConversationReadDoc } from './conversationReadsProjection.js';
import { CONVERSATIONS, MESSAGES, type ConversationDoc, type MessageDoc } from './conversationsProjection.js';
import { INTEGRATIONS, type IntegrationDoc } from '../integrations/integrationsProjection.js';
import { SLA_CONVERSATIONS, type SlaConversationDoc } from '../sla/slaProjection.js';

/** The inbox views, each an equality filter on an indexed field of the read model (no scan of history). */
export const INBOX_VIEWS = ['mine', 'unassigned', 'needs_human', 'snoozed'] as const;
export type InboxView = (typeof INBOX_VIEWS)[number];

/** Messages of one conversation shown at once: the newest ones. */
const MESSAGES_SHOWN = 500;
/** Unread counts per view look at this many of the view's conversations at most (the rest: `unreadCapped`). */
const VIEW_UNREAD_SCAN = 200;

/** Who looks at the inbox: their company, and their user id for "mine" and their read markers. */
export interface InboxReader {
  companyId: string;
  userId: string;
}

export interface ConversationFilter {
  view?: InboxView | undefined;
  state?: 'active' | 'paused' | 'closed' | undefined;
  integrationId?: number | undefined;
  stageId?: string | undefined;
  /** With a view or alone: the team filter's indexes do not combine it with the three above. */
  teamId?: string | undefined;
}

/** A conversation with the reader's read marker (null: never opened). */
export interface ReadConversation {
  conversation: ConversationDoc;
  read: ConversationReadDoc | null;
  /** Its running SLA clocks (projections/sla); null when the read model has not seen it. */
  sla?: SlaConversationDoc | null;
}

function viewQuery(view: InboxView, companyId: string, userId: string): Pick<FindQuery, 'where' | 'orderBy'> {
  switch (view) {
    case 'mine':
      return { where: { companyId, openAssignee: userId }, orderBy: [{ field: 'lastMessageAt', direction: 'desc' }] };
    case 'unassigned':
      return { where: { companyId, openAssignee: '' }, orderBy: [{ field: 'lastMessageAt', direction: 'desc' }] };
    case 'needs_human':
      // A queue: whoever has waited longest comes first.
      return { where: { companyId, needsHuman: true }, orderBy: [{ field: 'handoffSince', direction: 'asc' }] };
    case 'snoozed':
      // Out of the open queues until their time: the soonest back first.
      return { where: { companyId, snoozed: true }, orderBy: [{ field: 'snoozedUntil', direction: 'asc' }] };
  }
}

/** The conversation when it belongs to `companyId`; another company's is answered like a missing one. */
export async function findCompanyConversation(readStore: ReadStore, companyId: string, id: string): Promise<ConversationDoc | null> {
  const doc = await readStore.get<ConversationDoc>(CONVERSATIONS, id);
  return doc && doc.companyId === companyId ? doc : null;
}

/** How far the teammate has read the conversation (null: never opened). */
export async function conversationReadOf(readStore: ReadStore, conversationId: string, userId: string): Promise<ConversationReadDoc | null> {
  return readStore.get<ConversationReadDoc>(CONVERSATION_READS, conversationReadId(conversationId, userId));
}

/** The caller's read markers of these conversations (one lookup per listed conversation: bounded by the page). */
async function withReads(readStore: ReadStore, userId: string, docs: ConversationDoc[]): Promise<ReadConversation[]> {
  const reads = await Promise.all(docs.map((d) => conversationReadOf(readStore, d.id, userId)));
  return docs.map((conversation, i) => ({ conversation, read: reads[i] ?? null }));
}

/** …and their SLA clocks (one more lookup per listed conversation). */
async function withReadsAndSla(readStore: ReadStore, userId: string, docs: ConversationDoc[]): Promise<ReadConversation[]> {
  const [read, sla] = await Promise.all([withReads(readStore, userId, docs), Promise.all(docs.map((d) => readStore.get<SlaConversationDoc>(SLA_CONVERSATIONS, d.id)))]);
  return read.map((r, i) => ({ ...r, sla: sla[i] ?? null }));
}

/** The company's conversations, newest activity first (or a view's own order), with the reader's read markers. */
export async function listConversations(
  readStore: ReadStore,
  reader: InboxReader,
  filter: ConversationFilter,
  page: Pick<FindQuery, 'limit' | 'cursor'>,
): Promise<Page<ReadConversation>> {
  const view = filter.view ? viewQuery(filter.view, reader.companyId, reader.userId) : null;
  if (filter.teamId && (filter.state || filter.integrationId !== undefined || filter.stageId)) {
    throw new DomainError('VALIDATION_ERROR', 'teamId combines with a view only, not with state, integrationId or stageId');
  }
  const found = await readStore.find<ConversationDoc>(CONVERSATIONS, {
    where: {
      ...view?.where,
      companyId: reader.companyId,
      ...(filter.state ? { sessionState: filter.state } : {}),
      ...(filter.integrationId !== undefined ? { integrationId: filter.integrationId } : {}),
      ...(filter.stageId ? { stageId: filter.stageId } : {}),
      ...(filter.teamId ? { teamId: filter.teamId } : {}),
    },
    orderBy: view?.orderBy ?? [{ field: 'lastMessageAt', direction: 'desc' }],
    limit: page.limit,
    cursor: page.cursor,
  });
  return { items: await withReadsAndSla(readStore, reader.userId, found.items), nextCursor: found.nextCursor };
}

export interface InboxViewCount {
  count: number;
  unread: number;
  unreadCapped: boolean;
}

async function countView(readStore: ReadStore, reader: InboxReader, view: InboxView): Promise<InboxViewCount> {
  const query = viewQuery(view, reader.companyId, reader.userId);
  const [count, page] = await Promise.all([
    readStore.count(CONVERSATIONS, query.where),
    readStore.find<ConversationDoc>(CONVERSATIONS, { ...query, limit: VIEW_UNREAD_SCAN }),
  ]);
  const read = await withReads(readStore, reader.userId, page.items);
  const unread = read.filter((r) => unreadFor(r.conversation, r.read) > 0).length;
  return { count, unread, unreadCapped: page.nextCursor !== null };
}

/** Each inbox view's size, and how many of its first conversations hold customer messages the reader has not read. */
export async function inboxViewCounts(readStore: ReadStore, reader: InboxReader): Promise<Record<InboxView, InboxViewCount>> {
  const [mine, unassigned, needsHuman, snoozed] = await Promise.all([
    countView(readStore, reader, 'mine'),
    countView(readStore, reader, 'unassigned'),
    countView(readStore, reader, 'needs_human'),
    countView(readStore, reader, 'snoozed'),
  ]);
  return { mine, unassigned, needs_human: needsHuman, snoozed };
}

/** Up to `limit` ids of the conversations (open or closed) `userId` owns: what their removal gives back, a page at a time. */
export async function conversationIdsAssignedTo(readStore: ReadStore, companyId: string, userId: string, limit: number): Promise<string[]> {
  const page = await readStore.find<ConversationDoc>(CONVERSATIONS, { where: { companyId, assigneeId: userId }, limit });
  return page.items.map((d) => d.id);
}

/** The conversation's newest messages, oldest first. */
export async function recentMessages(readStore: ReadStore, conversationId: string): Promise<MessageDoc[]> {
  const page = await readStore.find<MessageDoc>(MESSAGES, {
    where: { conversationId },
    orderBy: [{ field: 'seq', direction: 'desc' }],
    limit: MESSAGES_SHOWN,
  });
  return page.items.reverse();
}

/** One message by id, or null. */
export async function findMessage(readStore: ReadStore, messageId: string): Promise<MessageDoc | null> {
  return readStore.get<MessageDoc>(MESSAGES, messageId);
}

/** Integrations one agent answers, at most: the release check looks at their conversations. */
const AGENT_INTEGRATIONS_READ = 50;

/**
 * The ids of the `limit` conversations with the newest activity on the integrations `agentId` answers now
 * (what a release check replays). One page per such integration, each bounded by `limit`.
 */
export async function recentAgentConversationIds(readStore: ReadStore, companyId: string, agentId: string, limit: number): Promise<string[]> {
  const integrations = await readStore.find<IntegrationDoc>(INTEGRATIONS, { where: { companyId, agentId }, limit: AGENT_INTEGRATIONS_READ });
  const pages = await Promise.all(
    integrations.items.map((i) =>
      readStore.find<ConversationDoc>(CONVERSATIONS, { where: { companyId, integrationId: i.integrationId }, orderBy: [{ field: 'lastMessageAt', direction: 'desc' }], limit }),
    ),
  );
  return pages
    .flatMap((p) => p.items)
    .sort((a, b) => b.lastMessageAt.localeCompare(a.lastMessageAt) || a.id.localeCompare(b.id))
    .slice(0, limit)
    .map((c) => c.id);
}

/**
 * Snoozed conversations, soonest back first, across companies, a page at a time (the snooze sweep). One indexed
 * equality and order: `snoozed`, then `snoozedUntil`; the sweep stops at the first one not due yet.
 */
export async function snoozesByWakeTime(readStore: ReadStore, limit: number, cursor: string | null): Promise<Page<ConversationDoc>> {
  return readStore.find<ConversationDoc>(CONVERSATIONS, { where: { snoozed: true }, orderBy: [{ field: 'snoozedUntil', direction: 'asc' }], limit, cursor });
}
