// The action log (GET /api/action-calls) and per-action analytics (GET /api/analytics/actions).
import { query, request, type RequestOptions } from './client.js';
import type { Page } from './types.js';

export const ACTION_CALL_STATUSES = [
  'requested',
  'waiting_confirmation',
  'waiting_approval',
  'confirmed',
  'approved',
  'running',
  'succeeded',
  'failed',
  'rejected',
  'declined',
  'refused',
  'expired',
] as const;
export type ActionCallStatus = (typeof ACTION_CALL_STATUSES)[number];

export interface ActionCall {
  callId: string;
  /** null: a live playground call (playgroundSessionId says which session). */
  conversationId: string | null;
  playgroundSessionId?: string | null;
  actionId: string;
  actionName: string;
  mode: 'auto' | 'confirm' | 'approve';
  arguments: Record<string, string | number | boolean>;
  status: ActionCallStatus;
  confirmationPrompt: string | null;
  expiresAt: string | null;
  declinedWhy: 'no' | 'other_reply' | 'silence' | null;
  decidedBy: string | null;
  decidedAt: string | null;
  reason: string | null;
  mocked: boolean | null;
  httpStatus: number | null;
  durationMs: number | null;
  response: string | null;
  responseTruncated: boolean;
  error: string | null;
  outcomeUnknown: boolean;
  requestedAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

export interface ActionCallFilter {
  actionId?: string;
  status?: ActionCallStatus | '';
  conversationId?: string;
}

export async function listActionCalls(filter: ActionCallFilter, cursor: string | null, o?: RequestOptions & { limit?: number }): Promise<Page<ActionCall>> {
  const result = await request<{ calls: ActionCall[]; nextCursor: string | null }>('GET', `/api/action-calls${query({ limit: o?.limit ?? 50, cursor, ...filter })}`, undefined, o);
  return { items: result.calls, nextCursor: result.nextCursor };
}

export interface ActionFigures {
  calls: number;
  succeeded: number;
  failed: number;
  rejected: number;
  declined: number;
  approved: number;
  refused: number;
  expired: number;
  /** Of the calls, those made live from the playground. */
  playground: number;
  durationP50Ms: number | null;
  durationP95Ms: number | null;
}
export interface ActionAnalytics {
  timezone: string;
  from: string;
  to: string;
  totals: ActionFigures;
  byAction: (ActionFigures & { actionId: string; actionName: string })[];
}

export const getActionAnalytics = (range: { from?: string; to?: string }, o?: RequestOptions) => request<ActionAnalytics>('GET', `/api/analytics/actions${query(range)}`, undefined, o);
