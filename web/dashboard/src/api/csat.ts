// The satisfaction survey results (GET /api/analytics/csat and /api/analytics/csat/responses).
import { query, request, type RequestOptions } from './client.js';
import type { CsatRange, CsatReport, CsatResponsePage } from './serverTypes.js';

export type { CsatReport };
export type CsatFigures = CsatReport['totals'];
export type CsatResponse = CsatResponsePage['responses'][number];

export const getCsatReport = (range: CsatRange, o?: RequestOptions) => request<CsatReport>('GET', `/api/analytics/csat${query(range)}`, undefined, o);
export const listCsatResponses = (limit: number, o?: RequestOptions) =>
  request<CsatResponsePage>('GET', `/api/analytics/csat/responses${query({ limit })}`, undefined, o);
