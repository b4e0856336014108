// Agent experiments: two versions answer at once, split by conversation; ending one publishes the winner.
import { query, request, type RequestOptions } from './client.js';
import type { Experiment, ExperimentEnd, ExperimentEnded, ExperimentInput, ExperimentPage, ExperimentStarted } from './serverTypes.js';

export type { Experiment, ExperimentInput };
export type ArmMetrics = Experiment['holdout']['metrics'];
/** A rate with its Wilson score interval at the experiment's confidence level. */
export type ExperimentRate = ArmMetrics['aiResolution'];

const base = (agentId: string) => `/api/agents/${encodeURIComponent(agentId)}/experiments`;

export const listExperiments = (agentId: string, page: { cursor?: string | null; limit?: number } = {}, o?: RequestOptions) =>
  request<ExperimentPage>('GET', `${base(agentId)}${query({ limit: page.limit ?? 20, cursor: page.cursor })}`, undefined, o);
export const startExperiment = async (agentId: string, input: ExperimentInput) => (await request<ExperimentStarted>('POST', base(agentId), input)).experiment;
export const endExperiment = (agentId: string, experimentId: string, winner: number, reason: string) =>
  request<ExperimentEnded>('POST', `${base(agentId)}/${encodeURIComponent(experimentId)}/end`, { winner, reason } satisfies ExperimentEnd);
