// The action log (GET /api/action-calls) and per-action analytics (GET /api/analytics/actions).
import { query, request, type RequestOptions } from './client.js';
import { allOf, type ActionAnalytics, type ActionAnalyticsRange, type ActionCall, type ActionCallPage, type ActionCallQuery } from './serverTypes.js';
import type { Page } from './types.js';

export type { ActionAnalytics, ActionCall };
export type ActionCallStatus = ActionCall['status'];

/** The status filter's options, in the order the select shows them. */
export const ACTION_CALL_STATUSES = allOf<ActionCallStatus>()([
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
]);

/** The log's filters; '' is the select's "any status". */
export type ActionCallFilter = Pick<ActionCallQuery, 'actionId' | 'conversationId'> & { status?: ActionCallStatus | '' };

export async function listActionCalls(filter: ActionCallFilter, cursor: string | null, o?: RequestOptions & { limit?: number }): Promise<Page<ActionCall>> {
  const result = await request<ActionCallPage>('GET', `/api/action-calls${query({ limit: o?.limit ?? 50, cursor, ...filter })}`, undefined, o);
  return { items: result.calls, nextCursor: result.nextCursor };
}

export type ActionFigures = ActionAnalytics['totals'];

export const getActionAnalytics = (range: ActionAnalyticsRange, o?: RequestOptions) => request<ActionAnalytics>('GET', `/api/analytics/actions${query(range)}`, undefined, o);
