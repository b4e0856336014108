// The agent playground API (README "Answer provenance and the agent playground").
import { query, request, type RequestOptions } from './client.js';
import type { PlaygroundAsked, PlaygroundQuestion, PlaygroundSession, PlaygroundSessionPage, PlaygroundStart, ServerLimits } from './serverTypes.js';

export type { PlaygroundSession };
export type PlaygroundTurn = PlaygroundSession['turns'][number];

/** Like a web chat visitor's message. */
export const PLAYGROUND_MAX_TEXT = 16_384 satisfies ServerLimits['playgroundText'];

/** Whether the agent's action calls get sample responses (`mocked`) or reach the company's endpoints (`live`). */
export type PlaygroundActions = PlaygroundSession['session']['actions'];
/** Live action calls need an owner or an admin (the server refuses others). */
export const startPlayground = (agentId: string, actions: PlaygroundActions = 'mocked') =>
  request<PlaygroundSession>('POST', `/api/agents/${encodeURIComponent(agentId)}/playground`, { actions } satisfies PlaygroundStart);
export const getPlayground = (sessionId: string, o?: RequestOptions) => request<PlaygroundSession>('GET', `/api/playground/${encodeURIComponent(sessionId)}`, undefined, o);
export const askPlayground = async (sessionId: string, text: string) =>
  (await request<PlaygroundAsked>('POST', `/api/playground/${encodeURIComponent(sessionId)}/messages`, { text } satisfies PlaygroundQuestion)).turn;

/** A session as the list shows it (GET /api/playground). */
export type PlaygroundSessionSummary = PlaygroundSessionPage['sessions'][number];

/** The company's playground sessions, newest activity first; one agent's with `agentId`. */
export const listPlaygroundSessions = (filter: { agentId?: string; limit?: number; cursor?: string | null }, o?: RequestOptions) =>
  request<PlaygroundSessionPage>('GET', `/api/playground${query({ agentId: filter.agentId, limit: filter.limit ?? 10, cursor: filter.cursor })}`, undefined, o);
