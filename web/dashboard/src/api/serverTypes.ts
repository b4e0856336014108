// The server's request and response shapes, inferred from the zod schemas its routes validate with, so a change on the
// server fails the dashboard's type-check instead of drifting from a copy. Every import here is `import type`: erased at
// build, no server code or zod reaches the browser bundle. This is the only dashboard module that imports from src/
// (.dependency-cruiser.cjs, rules dashboard-*).
import type { z } from 'zod';
import type * as actionCalls from '../../../../src/http/routes/actionCalls.schemas.js';
import type * as agentExperiments from '../../../../src/http/routes/agentExperiments.schemas.js';

type RouteSchema = { response: Record<number, z.ZodType> };

/** The JSON a route answers with `status` (200 unless given). */
export type Reply<S extends RouteSchema, Status extends keyof S['response'] = 200> = z.output<S['response'][Status]>;
/** What a route accepts as its body: defaults may be left out. */
export type Body<S extends { body: z.ZodType }> = z.input<S['body']>;
/** What a route accepts in its query string. */
export type Query<S extends { querystring: z.ZodType }> = z.input<S['querystring']>;

/**
 * A dashboard list of a server enum's values (for a select): fails the type-check when the server adds a value the
 * list lacks, or when the list names one the server does not know.
 */
export const allOf =
  <T extends string>() =>
  <const L extends readonly T[]>(list: L & ([T] extends [L[number]] ? unknown : { missing: Exclude<T, L[number]> })): L =>
    list;

// The action log and per-action analytics.
export type ActionCall = Reply<typeof actionCalls.getActionCallSchema>['call'];
export type ActionCallPage = Reply<typeof actionCalls.listActionCallsSchema>;
export type ActionCallQuery = Query<typeof actionCalls.listActionCallsSchema>;
export type ActionAnalytics = Reply<typeof actionCalls.actionAnalyticsSchema>;
export type ActionAnalyticsRange = Query<typeof actionCalls.actionAnalyticsSchema>;

// Agent experiments.
export type Experiment = Reply<typeof agentExperiments.getExperimentSchema>['experiment'];
export type ExperimentPage = Reply<typeof agentExperiments.listExperimentsSchema>;
export type ExperimentInput = Body<typeof agentExperiments.startExperimentSchema>;
export type ExperimentStarted = Reply<typeof agentExperiments.startExperimentSchema, 201>;
export type ExperimentEnded = Reply<typeof agentExperiments.endExperimentSchema>;
export type ExperimentEnd = Body<typeof agentExperiments.endExperimentSchema>;
