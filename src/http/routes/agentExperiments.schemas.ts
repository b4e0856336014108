import { z } from 'zod';
import { AGENT_LIMITS } from '../../domain/agents/events.js';
import { armShare, CONFIDENCE_LEVELS, DEFAULT_CONFIDENCE_LEVEL, holdoutPercent } from '../../domain/agents/experiments.js';
import type { AgentExperimentDoc } from '../../projections/agentExperiments/agentExperimentsProjection.js';
import { metricsOf, verdictOf } from '../../projections/agentExperiments/queries.js';
import { publishGateFields } from './agentReleases.schemas.js';
import { agentSchema } from './agents.schemas.js';
import { bearerSecurity as security, errorBody, errorResponses, listQuery } from './schemas.js';

const rateSchema = z.object({
  successes: z.number().int(),
  trials: z.number().int(),
  rate: z.number().nullable(),
  /** The Wilson score interval at the experiment's confidence level. */
  low: z.number().nullable(),
  high: z.number().nullable(),
});

const metricsSchema = z.object({
  conversations: z.number().int(),
  aiResolution: rateSchema,
  handoff: rateSchema,
  firstResponse: z.object({ count: z.number().int(), meanMs: z.number().nullable(), p50Ms: z.number().nullable(), p90Ms: z.number().nullable() }),
  costMicros: z.number().int(),
  costPerConversationMicros: z.number().int().nullable(),
});

export const experimentSchema = z.object({
  id: z.uuid(),
  agentId: z.uuid(),
  status: z.enum(['running', 'ended']),
  confidenceLevel: z.number(),
  arms: z.array(z.object({ arm: z.enum(['a', 'b']), version: z.number().int(), share: z.number().int(), metrics: metricsSchema })),
  holdout: z.object({ share: z.number().int(), metrics: metricsSchema }),
  verdict: z.object({
    metric: z.literal('aiResolutionRate'),
    difference: z.number().nullable(),
    z: z.number().nullable(),
    pValue: z.number().nullable(),
    significant: z.boolean(),
    better: z.enum(['a', 'b']).nullable(),
  }),
  startedAt: z.string(),
  startedBy: z.string().nullable(),
  endedAt: z.string().nullable(),
  endedBy: z.string().nullable(),
  winner: z.number().int().nullable(),
  reason: z.string().nullable(),
});
export type ExperimentView = z.infer<typeof experimentSchema>;

export const experimentView = (d: AgentExperimentDoc): ExperimentView => ({
  id: d.id,
  agentId: d.agentId,
  status: d.status,
  confidenceLevel: d.confidenceLevel,
  arms: d.arms.map(({ arm, version, share }) => ({ arm, version, share, metrics: metricsOf(d, arm) })),
  holdout: { share: d.holdout, metrics: metricsOf(d, 'holdout') },
  verdict: verdictOf(d),
  startedAt: d.startedAt,
  startedBy: d.startedBy,
  endedAt: d.endedAt,
  endedBy: d.endedBy,
  winner: d.winner,
  reason: d.reason,
});

const tags = ['agents'];
const idParams = z.object({ id: z.string().max(64) });
const experimentParams = idParams.extend({ experimentId: z.string().max(64) });
const errors = { ...errorResponses, 409: errorBody };
const version = z.number().int().min(1);
const level = z.union(CONFIDENCE_LEVELS.map((l) => z.literal(l)) as unknown as [z.ZodLiteral<number>, z.ZodLiteral<number>, ...z.ZodLiteral<number>[]]);

export const listExperimentsSchema = {
  tags,
  security,
  description: 'The agent’s experiments, newest first (keyset-paginated by `cursor`), each with its live metrics per arm.',
  params: idParams,
  querystring: listQuery,
  response: { 200: z.object({ experiments: z.array(experimentSchema), nextCursor: z.string().nullable() }), ...errors },
};

export const getExperimentSchema = { tags, security, params: experimentParams, response: { 200: z.object({ experiment: experimentSchema }), ...errors } };

export const startExperimentSchema = {
  tags,
  security,
  description:
    'Splits the agent’s conversations between two versions (`split`: percent of the AI-answered ones for each, adding up to 100) and hands `holdout` percent straight to people. One experiment per agent at a time (409). ' +
    'A version newer than the published one, or an older one never published, passes the release gate as a publish does (`releaseCheckId` of its check, or an owner’s `override` with a `reason`). Owners and admins.',
  params: idParams,
  body: z.strictObject({
    versions: z.tuple([version, version]),
    split: z.tuple([armShare, armShare]).refine(([a, b]) => a + b === 100, 'the two shares add up to 100'),
    holdout: holdoutPercent.default(0),
    confidenceLevel: level.default(DEFAULT_CONFIDENCE_LEVEL),
    ...publishGateFields,
    /** With `override`: why the owner starts it whatever the checks say. */
    reason: z.string().trim().min(1).max(AGENT_LIMITS.reason).optional(),
  }),
  response: { 201: z.object({ experiment: experimentSchema }), ...errors },
};

export const endExperimentSchema = {
  tags,
  security,
  description: 'Ends the running experiment and publishes `winner` (one of its two versions), recorded like any publish with who, when and `reason`. Owners and admins.',
  params: experimentParams,
  body: z.strictObject({ winner: version, reason: z.string().trim().min(1).max(AGENT_LIMITS.reason) }),
  response: {
    200: z.object({ experiment: experimentSchema, agent: agentSchema, publishedVersion: z.number().int(), draftVersion: z.number().int(), latestVersion: z.number().int() }),
    ...errors,
  },
};
