import { z } from 'zod';
import { AGENT_LIMITS, releaseChecksRecord } from '../../domain/agents/events.js';
import { answerThresholdSchema, DEFAULT_ANSWER_THRESHOLD } from '../../domain/answers/evidence.js';
import type { AgentPublicationDoc, AgentVersionDoc } from '../../projections/agentVersions/agentVersionsProjection.js';
import { publishGateFields } from './agentReleases.schemas.js';
import { agentSchema, writable } from './agents.schemas.js';
import { bearerSecurity as security, errorBody, errorResponses, listQuery } from './schemas.js';

const configSchema = z.object({
  systemPrompt: z.string(),
  model: z.string().nullable(),
  temperature: z.number(),
  useKnowledgeBase: z.boolean(),
  handoffMessage: z.string(),
  answerThreshold: answerThresholdSchema,
  /** The company's actions this version may call ([] when it lists none). */
  actionIds: z.array(z.string()),
});

export const versionSchema = z.object({
  version: z.number().int(),
  /** The version it was edited from; null for version 1. */
  basedOn: z.number().int().nullable(),
  /** The settings that differ from `basedOn`. */
  changed: z.array(z.string()),
  config: configSchema,
  createdAt: z.string(),
  /** `user:<id>` of who saved it; null for version 1. */
  createdBy: z.string().nullable(),
  /** Customers are answered by this version. */
  published: z.boolean(),
  /** The next edit builds on this version. */
  draft: z.boolean(),
});

type Pointers = { publishedVersion: number; draftVersion: number };

export const versionView = (d: AgentVersionDoc, p: Pointers): z.infer<typeof versionSchema> => ({
  version: d.version,
  basedOn: d.basedOn,
  changed: d.changed,
  config: { ...d.config, answerThreshold: d.config.answerThreshold ?? DEFAULT_ANSWER_THRESHOLD, actionIds: d.config.actionIds ?? [] },
  createdAt: d.createdAt,
  createdBy: d.createdBy,
  published: d.version === p.publishedVersion,
  draft: d.version === p.draftVersion,
});

const publicationSchema = z.object({
  version: z.number().int(),
  previousVersion: z.number().int(),
  rollback: z.boolean(),
  reason: z.string().nullable(),
  /** The release gate's record: the check relied on, or an owner's override with the failing cases and why. Absent: not gated. */
  checks: releaseChecksRecord.optional(),
  by: z.string().nullable(),
  at: z.string(),
});
export const publicationView = ({ version, previousVersion, rollback, reason, checks, by, at }: AgentPublicationDoc): z.infer<typeof publicationSchema> => ({
  version,
  previousVersion,
  rollback,
  reason,
  ...(checks ? { checks } : {}),
  by,
  at,
});

const pointersSchema = { publishedVersion: z.number().int(), draftVersion: z.number().int(), latestVersion: z.number().int() };

const tags = ['agents'];
const idParams = z.object({ id: z.string().max(64) });
const versionParams = idParams.extend({ version: z.coerce.number().int().min(1).max(1_000_000) });
const errors = { ...errorResponses, 409: errorBody };

export const listVersionsSchema = {
  tags,
  security,
  description: 'The agent’s versions, newest first (keyset-paginated by `cursor`), with which one is published and which is the draft.',
  params: idParams,
  querystring: listQuery,
  response: { 200: z.object({ versions: z.array(versionSchema), nextCursor: z.string().nullable(), ...pointersSchema }), ...errors },
};

export const saveDraftSchema = {
  tags,
  security,
  description: 'Saves a new version from the draft and the given settings, without publishing it: customers keep the published version. Owners and admins.',
  params: idParams,
  body: z.strictObject({
    systemPrompt: writable.systemPrompt.optional(),
    model: writable.model.optional(),
    temperature: writable.temperature.optional(),
    useKnowledgeBase: writable.useKnowledgeBase.optional(),
    handoffMessage: writable.handoffMessage.optional(),
    answerThreshold: writable.answerThreshold.optional(),
    generalAnswers: writable.generalAnswers.optional(),
    afterHoursMessage: writable.afterHoursMessage.optional(),
    handBackAfterMinutes: writable.handBackAfterMinutes.optional(),
    actionIds: writable.actionIds.optional(),
  }),
  response: { 200: z.object({ version: versionSchema }), 201: z.object({ version: versionSchema }), ...errors },
};

export const getVersionSchema = { tags, security, params: versionParams, response: { 200: z.object({ version: versionSchema }), ...errors } };

const fieldDiff = z.object({ field: z.string(), from: z.unknown(), to: z.unknown(), changed: z.boolean() });
export const diffSchema = {
  tags,
  security,
  description: 'Two versions compared field by field (every versioned setting, `changed` where they differ), and the system prompts line by line.',
  params: idParams,
  querystring: z.strictObject({ from: z.coerce.number().int().min(1), to: z.coerce.number().int().min(1) }),
  response: {
    200: z.object({
      diff: z.object({
        from: z.number().int(),
        to: z.number().int(),
        fields: z.array(fieldDiff),
        systemPrompt: z.array(z.object({ op: z.enum(['equal', 'added', 'removed']), line: z.string() })),
      }),
    }),
    ...errors,
  },
};

const released = z.object({ agent: agentSchema, ...pointersSchema });
export type Released = z.infer<typeof released>;

export const publishSchema = {
  tags,
  security,
  description:
    'Customers are answered by this version from the next message on. An older version than the published one that was published before is a rollback and needs a reason. ' +
    'Any other (newer, or older but never published) passes the release gate: with required test cases it names a finished release check of it (`releaseCheckId`) in which none fails, ' +
    'else 409 RELEASE_CHECKS_REQUIRED, RELEASE_CHECKS_PENDING or RELEASE_CHECKS_FAILED (`error.details.failedCases`); an owner may `override` with a `reason`. Owners and admins.',
  params: versionParams,
  body: z.strictObject({ reason: z.string().trim().min(1).max(AGENT_LIMITS.reason).optional(), ...publishGateFields }).nullish(),
  response: { 200: released, ...errors },
};

export const rollbackSchema = {
  tags,
  security,
  description: 'Republishes a version older than the published one that customers were answered with before, recording who, when and why. 409 when it is not older or was never published (publish it through the release gate). Owners and admins.',
  params: idParams,
  body: z.strictObject({ version: z.number().int().min(1), reason: z.string().trim().min(1).max(AGENT_LIMITS.reason) }),
  response: { 200: released, ...errors },
};

export const listPublicationsSchema = {
  tags,
  security,
  description: 'Who published which version when, and why for a rollback; newest first, keyset-paginated by `cursor`.',
  params: idParams,
  querystring: listQuery,
  response: { 200: z.object({ publications: z.array(publicationSchema), nextCursor: z.string().nullable() }), ...errors },
};
