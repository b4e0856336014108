import { countOf, percentile } from '../analytics/histogram.js';
import { twoProportionTest, wilsonInterval, type Rate } from '../../domain/analytics/significance.js';
import type { ExperimentAssignment } from '../../domain/agents/experiments.js';
import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { AGENT_EXPERIMENTS, type AgentExperimentDoc, type ArmCounts } from './agentExperimentsProjection.js';

type PageQuery = Pick<FindQuery, 'limit' | 'cursor'>;

/** An agent's experiments, newest first. The caller has checked the agent is the company's. */
export async function listAgentExperiments(readStore: ReadStore, agentId: string, page: PageQuery): Promise<Page<AgentExperimentDoc>> {
  return readStore.find<AgentExperimentDoc>(AGENT_EXPERIMENTS, { where: { agentId }, orderBy: [{ field: 'seq', direction: 'desc' }], limit: page.limit, cursor: page.cursor ?? null });
}

/** One experiment, when it is this agent's (and so the company's). */
export async function findAgentExperiment(readStore: ReadStore, agentId: string, experimentId: string): Promise<AgentExperimentDoc | null> {
  const doc = await readStore.get<AgentExperimentDoc>(AGENT_EXPERIMENTS, experimentId);
  return doc && doc.agentId === agentId ? doc : null;
}

export interface ArmMetrics {
  conversations: number;
  /** Conversations the AI resolved alone, with the Wilson interval at the experiment's level. */
  aiResolution: Rate;
  handoff: Rate;
  firstResponse: { count: number; meanMs: number | null; p50Ms: number | null; p90Ms: number | null };
  costMicros: number;
  /** costMicros / conversations, rounded; null with no conversations. */
  costPerConversationMicros: number | null;
}

export interface ExperimentVerdict {
  /** What is compared: the AI resolution rate of arm b against arm a. */
  metric: 'aiResolutionRate';
  difference: number | null;
  z: number | null;
  pValue: number | null;
  significant: boolean;
  /** The arm with the higher rate once the difference is significant; null while it is not (yet). */
  better: 'a' | 'b' | null;
}

export function armMetrics(c: ArmCounts, level: number): ArmMetrics {
  const measured = countOf(c.firstResponse);
  return {
    conversations: c.conversations,
    aiResolution: wilsonInterval(c.aiResolved, c.conversations, level),
    handoff: wilsonInterval(c.handedOff, c.conversations, level),
    firstResponse: {
      count: measured,
      meanMs: measured > 0 ? Math.round(c.firstResponseTotalMs / measured) : null,
      p50Ms: percentile(c.firstResponse, 0.5),
      p90Ms: percentile(c.firstResponse, 0.9),
    },
    costMicros: c.costMicros,
    costPerConversationMicros: c.conversations > 0 ? Math.round(c.costMicros / c.conversations) : null,
  };
}

/** The verdict on the AI resolution rate: a two-sided two-proportion z-test at the experiment's level. */
export function verdictOf(doc: AgentExperimentDoc): ExperimentVerdict {
  const { a, b } = doc.counts;
  const test = twoProportionTest({ successes: a.aiResolved, trials: a.conversations }, { successes: b.aiResolved, trials: b.conversations }, doc.confidenceLevel);
  const better = test.significant && test.difference !== null && test.difference !== 0 ? (test.difference > 0 ? 'b' : 'a') : null;
  return { metric: 'aiResolutionRate', ...test, better };
}

export const metricsOf = (doc: AgentExperimentDoc, arm: ExperimentAssignment) => armMetrics(doc.counts[arm], doc.confidenceLevel);
