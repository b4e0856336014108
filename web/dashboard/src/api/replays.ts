// Replay evaluations: a draft agent answers past customer turns again, next to what was recorded.
import type { AnswerProvenanceView } from '../components/AnswerSources.js';
import { idempotencyKeyFor, query, request, type RequestOptions } from './client.js';
import type { AnswerThreshold, Page } from './types.js';

export interface ReplayDraft {
  basedOnAgentId: string | null;
  systemPrompt: string;
  model: string | null;
  temperature: number;
  useKnowledgeBase: boolean;
  handoffMessage?: string;
  /** The answer setting to replay with: how another setting would have answered. */
  answerThreshold?: AnswerThreshold;
  generalAnswers?: boolean;
}

export interface ReplayEstimate {
  messages: number;
  conversations: { conversationId: string; messages: number }[];
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
  provider: 'builtin' | 'openai';
  model: string;
}

export type ReplayStatus = 'running' | 'completed' | 'cancelled' | 'failed';

export interface Replay {
  id: string;
  status: ReplayStatus;
  draft: ReplayDraft;
  provider: 'builtin' | 'openai';
  model: string;
  conversations: { conversationId: string; messages: number }[];
  progress: { done: number; total: number };
  failedAnswers: number;
  estimatedCostMicros: number;
  spentCostMicros: number;
  inputTokens: number;
  outputTokens: number;
  failure: { reason: string; message: string } | null;
  createdAt: string;
  finishedAt: string | null;
}

export type RecordedAnswer =
  | { kind: 'agent'; messageId: string; text: string; model: string; inputTokens: number; outputTokens: number; handoff: boolean; provenance?: AnswerProvenanceView }
  | { kind: 'operator'; text: string }
  | { kind: 'unanswered'; reason: string }
  | { kind: 'none' };

export type DraftAnswer =
  | { status: 'answered'; text: string; model: string; inputTokens: number; outputTokens: number; handoff: boolean; provenance: AnswerProvenanceView }
  | { status: 'failed'; error: string };

export interface ReplayAnswer {
  conversationId: string;
  turn: number;
  messageIds: string[];
  customerText: string;
  customerAt: string;
  recorded: RecordedAnswer;
  draft: DraftAnswer;
}

type Opts = RequestOptions;
type Selection = { draft: ReplayDraft; conversationIds: string[] };

export const estimateReplay = async (selection: Selection) => (await request<{ estimate: ReplayEstimate }>('POST', '/api/replays/estimate', selection)).estimate;
/** Starts the replay `confirmed` priced (sent again with the same estimate, the key finds the first replay). */
export const startReplay = async (selection: Selection, confirmed: { costMicros: number }) =>
  (await request<{ replay: Replay }>('POST', '/api/replays', { ...selection, confirmedCostMicros: confirmed.costMicros }, { idempotencyKey: idempotencyKeyFor(confirmed) })).replay;
export const cancelReplay = async (id: string) => (await request<{ replay: Replay }>('POST', `/api/replays/${encodeURIComponent(id)}/cancel`)).replay;

export async function listReplays(cursor: string | null, o?: Opts): Promise<Page<Replay>> {
  const r = await request<{ replays: Replay[]; nextCursor: string | null }>('GET', `/api/replays${query({ limit: 20, cursor })}`, undefined, o);
  return { items: r.replays, nextCursor: r.nextCursor };
}

export const getReplay = (id: string, cursor: string | null, o?: Opts) =>
  request<{ replay: Replay; answers: ReplayAnswer[]; nextCursor: string | null }>('GET', `/api/replays/${encodeURIComponent(id)}${query({ limit: 100, cursor })}`, undefined, o);
