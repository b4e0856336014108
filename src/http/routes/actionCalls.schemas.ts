import { z } from 'zod';
import { actionMode } from '../../domain/actions/definition.js';
import { ACTION_CALL_STATUSES, type ActionCallDoc } from '../../projections/actionCalls/actionCallsProjection.js';
import { bearerSecurity as security, errorResponses, listQuery } from './schemas.js';

const tags = ['actions'];

export const actionCallSchema = z.object({
  callId: z.string(),
  conversationId: z.string().nullable().describe('the customer conversation; null for a live playground call'),
  playgroundSessionId: z.string().nullable().describe('a live playground call: the playground session it was made from (no conversation was written); null otherwise'),
  replyId: z.string(),
  actionId: z.string(),
  actionName: z.string(),
  mode: actionMode,
  arguments: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).describe('as recorded: identity values replaced by their source ([platform.clientId]), long strings cut'),
  agentVersion: z.number().int().nullable(),
  status: z.enum(ACTION_CALL_STATUSES),
  confirmationPrompt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  declinedWhy: z.enum(['no', 'other_reply', 'silence']).nullable(),
  decidedBy: z.string().nullable().describe('the teammate who approved or refused'),
  decidedAt: z.string().nullable(),
  reason: z.string().nullable().describe("the refusal's reason"),
  mocked: z.boolean().nullable(),
  httpStatus: z.number().int().nullable(),
  durationMs: z.number().int().nullable(),
  response: z.string().nullable().describe('the mapped response the model read, at most 2000 characters'),
  responseTruncated: z.boolean(),
  error: z.string().nullable(),
  outcomeUnknown: z.boolean(),
  requestedAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type ActionCallView = z.infer<typeof actionCallSchema>;

export const actionCallView = ({ id: _id, companyId: _companyId, ...call }: ActionCallDoc): ActionCallView => ({ ...call, playgroundSessionId: call.playgroundSessionId ?? null });

export const listActionCallsSchema = {
  tags,
  security,
  description:
    "The company's action log: every call its agents made or asked to make (and every live playground call, with its `playgroundSessionId`), the most recently requested first, keyset-paginated by `cursor`; narrowed by `actionId`, `status` and `conversationId` (together they all apply). Every role.",
  querystring: listQuery.extend({
    actionId: z.uuid().optional(),
    status: z.enum(ACTION_CALL_STATUSES).optional(),
    conversationId: z.uuid().optional(),
  }),
  response: { 200: z.object({ calls: z.array(actionCallSchema), nextCursor: z.string().nullable() }), ...errorResponses },
};

export const getActionCallSchema = {
  tags,
  security,
  description: "One action call of the company's; another company's is 404. Every role.",
  params: z.object({ callId: z.string().max(64) }),
  response: { 200: z.object({ call: actionCallSchema }), ...errorResponses },
};

const dateParam = z.string().max(10).describe('YYYY-MM-DD, a local date in the company timezone');
const figures = {
  calls: z.number().int().describe('calls the agents asked for (ActionCallRequested), and live playground calls'),
  succeeded: z.number().int(),
  failed: z.number().int(),
  rejected: z.number().int().describe('refused by the service before any call (schema, identity, unknown action)'),
  declined: z.number().int().describe('confirm: the customer said no, something else, or nothing'),
  approved: z.number().int(),
  refused: z.number().int().describe('approve: a teammate refused'),
  expired: z.number().int().describe('approve: nobody decided in time'),
  playground: z.number().int().describe('of the calls, those made live from the playground (no customer conversation)'),
  durationP50Ms: z.number().int().nullable(),
  durationP95Ms: z.number().int().nullable(),
};

export const actionAnalyticsSchema = {
  tags: ['analytics'],
  security,
  description:
    'Per-action figures from `from` to `to` (local dates in the company timezone, both included, at most 366 days; default the last 30 days): calls, outcomes, approvals and refusals, and p50/p95 call durations (from a fixed histogram: within ±12 %). Each outcome counts on the day it happened. Every role.',
  querystring: z.strictObject({ from: dateParam.optional(), to: dateParam.optional() }),
  response: {
    200: z.object({
      timezone: z.string(),
      from: z.string(),
      to: z.string(),
      totals: z.object(figures),
      byAction: z.array(z.object({ actionId: z.string(), actionName: z.string(), ...figures })),
    }),
    ...errorResponses,
  },
};
