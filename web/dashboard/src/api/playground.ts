// The agent playground API (README "Answer provenance and the agent playground").
import { query, request, type RequestOptions } from './client.js';
import type { AnswerProvenanceView } from '../components/AnswerSources.js';

export interface PlaygroundTurn {
  question: { id: string; text: string; at: string };
  answer: {
    id: string;
    text: string;
    model: string;
    inputTokens: number;
    outputTokens: number;
    handoff: boolean;
    provenance: AnswerProvenanceView;
    at: string;
  } | null;
  failure: { reason: string; at: string } | null;
}

export interface PlaygroundSession {
  /** `actions`: whether the agent's action calls get sample responses (`mocked`) or reach the company's endpoints (`live`). */
  session: { id: string; agentId: string; startedAt: string; questionCount: number; questionLimit: number; actions: PlaygroundActions };
  turns: PlaygroundTurn[];
}

/** Like a web chat visitor's message. */
export const PLAYGROUND_MAX_TEXT = 16 * 1024;

export type PlaygroundActions = 'mocked' | 'live';
/** Live action calls need an owner or an admin (the server refuses others). */
export const startPlayground = (agentId: string, actions: PlaygroundActions = 'mocked') =>
  request<PlaygroundSession>('POST', `/api/agents/${encodeURIComponent(agentId)}/playground`, { actions });
export const getPlayground = (sessionId: string, o?: RequestOptions) => request<PlaygroundSession>('GET', `/api/playground/${encodeURIComponent(sessionId)}`, undefined, o);
export const askPlayground = async (sessionId: string, text: string) =>
  (await request<{ turn: PlaygroundTurn }>('POST', `/api/playground/${encodeURIComponent(sessionId)}/messages`, { text })).turn;

/** A session as the list shows it (GET /api/playground). */
export interface PlaygroundSessionSummary {
  id: string;
  agentId: string;
  agentName: string | null;
  /** `user:<id>` of the teammate who started it. */
  startedBy: string;
  startedAt: string;
  questionCount: number;
  questionLimit: number;
  /** The first question, shortened; null before any. */
  firstQuestion: string | null;
  lastQuestionAt: string | null;
  lastActivityAt: string;
}

/** The company's playground sessions, newest activity first; one agent's with `agentId`. */
export const listPlaygroundSessions = (filter: { agentId?: string; limit?: number; cursor?: string | null }, o?: RequestOptions) =>
  request<{ sessions: PlaygroundSessionSummary[]; nextCursor: string | null }>('GET', `/api/playground${query({ agentId: filter.agentId, limit: filter.limit ?? 10, cursor: filter.cursor })}`, undefined, o);
