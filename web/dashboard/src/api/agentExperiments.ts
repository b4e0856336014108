// Agent experiments: two versions answer at once, split by conversation; ending one publishes the winner.
import type { Agent } from './types.js';
import { query, request, type RequestOptions } from './client.js';

export interface ExperimentRate {
  successes: number;
  trials: number;
  rate: number | null;
  /** Wilson score interval at the experiment's confidence level. */
  low: number | null;
  high: number | null;
}

export interface ArmMetrics {
  conversations: number;
  aiResolution: ExperimentRate;
  handoff: ExperimentRate;
  firstResponse: { count: number; meanMs: number | null; p50Ms: number | null; p90Ms: number | null };
  costMicros: number;
  costPerConversationMicros: number | null;
}

export interface Experiment {
  id: string;
  agentId: string;
  status: 'running' | 'ended';
  confidenceLevel: number;
  arms: { arm: 'a' | 'b'; version: number; share: number; metrics: ArmMetrics }[];
  holdout: { share: number; metrics: ArmMetrics };
  verdict: { metric: 'aiResolutionRate'; difference: number | null; z: number | null; pValue: number | null; significant: boolean; better: 'a' | 'b' | null };
  startedAt: string;
  startedBy: string | null;
  endedAt: string | null;
  endedBy: string | null;
  winner: number | null;
  reason: string | null;
}

export interface ExperimentInput {
  versions: [number, number];
  split: [number, number];
  holdout: number;
  confidenceLevel: number;
  /** The release check of a version newer than the published one (agents with required test cases). */
  releaseCheckId?: string;
}

const base = (agentId: string) => `/api/agents/${encodeURIComponent(agentId)}/experiments`;

export const listExperiments = (agentId: string, page: { cursor?: string | null; limit?: number } = {}, o?: RequestOptions) =>
  request<{ experiments: Experiment[]; nextCursor: string | null }>('GET', `${base(agentId)}${query({ limit: page.limit ?? 20, cursor: page.cursor })}`, undefined, o);
export const startExperiment = async (agentId: string, input: ExperimentInput) => (await request<{ experiment: Experiment }>('POST', base(agentId), input)).experiment;
export const endExperiment = (agentId: string, experimentId: string, winner: number, reason: string) =>
  request<{ experiment: Experiment; agent: Agent; publishedVersion: number }>('POST', `${base(agentId)}/${encodeURIComponent(experimentId)}/end`, { winner, reason });
