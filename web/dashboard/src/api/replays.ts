// Replay evaluations: a draft agent answers past customer turns again, next to what was recorded.
import { idempotencyKeyFor, query, request, type RequestOptions } from './client.js';
import type { ReplayCancelled, ReplayEstimate, ReplayPage, ReplayReport, ReplaySelection, ReplayStart, ReplayStarted, Reply, replays } from './serverTypes.js';
import type { Page } from './types.js';

export type { ReplayEstimate };
/** The draft to replay with, as the form sends it. */
export type ReplayDraft = ReplaySelection['draft'];
export type Replay = ReplayReport['replay'];
export type ReplayStatus = Replay['status'];
export type ReplayAnswer = ReplayReport['answers'][number];
export type RecordedAnswer = ReplayAnswer['recorded'];
export type DraftAnswer = ReplayAnswer['draft'];

type Opts = RequestOptions;

export const estimateReplay = async (selection: ReplaySelection) => (await request<Reply<typeof replays.estimateReplaySchema>>('POST', '/api/replays/estimate', selection)).estimate;
/** Starts the replay `confirmed` priced (sent again with the same estimate, the key finds the first replay). */
export const startReplay = async (selection: ReplaySelection, confirmed: { costMicros: number }) =>
  (await request<ReplayStarted>('POST', '/api/replays', { ...selection, confirmedCostMicros: confirmed.costMicros } satisfies ReplayStart, { idempotencyKey: idempotencyKeyFor(confirmed) })).replay;
export const cancelReplay = async (id: string) => (await request<ReplayCancelled>('POST', `/api/replays/${encodeURIComponent(id)}/cancel`)).replay;

export async function listReplays(cursor: string | null, o?: Opts): Promise<Page<Replay>> {
  const r = await request<ReplayPage>('GET', `/api/replays${query({ limit: 20, cursor })}`, undefined, o);
  return { items: r.replays, nextCursor: r.nextCursor };
}

export const getReplay = (id: string, cursor: string | null, o?: Opts) =>
  request<ReplayReport>('GET', `/api/replays/${encodeURIComponent(id)}${query({ limit: 100, cursor })}`, undefined, o);
