import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { REPLAY_ANSWERS, REPLAYS, type ReplayAnswerDoc, type ReplayDoc } from './replaysProjection.js';

/** The company's replays, newest first. */
export async function listReplays(readStore: ReadStore, companyId: string, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<ReplayDoc>> {
  return readStore.find<ReplayDoc>(REPLAYS, {
    where: { companyId },
    orderBy: [{ field: 'createdAt', direction: 'desc' }],
    limit: page.limit,
    cursor: page.cursor ?? null,
  });
}

/** The replay when it is the company's; null otherwise. */
export async function findCompanyReplay(readStore: ReadStore, companyId: string, replayId: string): Promise<ReplayDoc | null> {
  const doc = await readStore.get<ReplayDoc>(REPLAYS, replayId);
  return doc && doc.companyId === companyId ? doc : null;
}

/** A replay's answers so far, in conversation and turn order. */
export async function listReplayAnswers(readStore: ReadStore, replayId: string, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<ReplayAnswerDoc>> {
  return readStore.find<ReplayAnswerDoc>(REPLAY_ANSWERS, {
    where: { replayId },
    orderBy: [{ field: 'order', direction: 'asc' }],
    limit: page.limit,
    cursor: page.cursor ?? null,
  });
}
