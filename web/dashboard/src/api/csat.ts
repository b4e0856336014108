// The satisfaction survey results (GET /api/analytics/csat and /api/analytics/csat/responses).
import { query, request, type RequestOptions } from './client.js';

export interface CsatFigures {
  requested: number;
  responses: number;
  average: number | null;
  scores: number[];
}
export interface CsatReport {
  timezone: string;
  from: string;
  to: string;
  totals: CsatFigures;
  byAgent: (CsatFigures & { agentId: string })[];
  byTeammate: (CsatFigures & { userId: string })[];
  byIntegration: (CsatFigures & { integrationId: number })[];
}
export interface CsatResponse {
  id: string;
  conversationId: string;
  integrationId: number;
  rating: number;
  comment: string | null;
  via: 'webchat' | 'platform';
  agentId: string | null;
  teammateId: string | null;
  at: string;
}

export const getCsatReport = (range: { from: string; to: string }, o?: RequestOptions) => request<CsatReport>('GET', `/api/analytics/csat${query(range)}`, undefined, o);
export const listCsatResponses = (limit: number, o?: RequestOptions) =>
  request<{ responses: CsatResponse[]; nextCursor: string | null }>('GET', `/api/analytics/csat/responses${query({ limit })}`, undefined, o);
