import { z } from 'zod';
import { ACTION_JSON_LIMITS, ACTION_LIMITS, actionFields, actionParameter, identitySource, type ActionFieldsInput } from '../../domain/actions/definition.js';
import type { StoredAction } from '../../domain/actions/state.js';
import { boundedJson } from '../../domain/jsonBounds.js';
import type { ActionDoc } from '../../projections/actions/actionsProjection.js';
import { bearerSecurity as security, errorBody, errorResponses, listQuery } from './schemas.js';

/**
 * The body's fields are the definition's, without their defaults: the domain applies them, and tells a setting
 * given with the wrong mode (a holding reply on an `auto` action) from one left out.
 */
const shape = actionFields.shape;
const given = Object.fromEntries(
  Object.entries(shape).map(([key, field]) => [key, (field instanceof z.ZodDefault ? (field.unwrap() as z.ZodType) : (field as z.ZodType)).optional()]),
) as { [K in keyof typeof shape]: z.ZodOptional<z.ZodType<z.input<(typeof shape)[K]>>> };

/** Bounded before anything walks it (a 100,000-level sample was a 500): 400 naming the field. */
const sampleResponse = boundedJson(ACTION_JSON_LIMITS);

const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'a valid HTTP header name');
// What HTTP allows in a value: a line break would end the header (and smuggle another in), so it is refused at save.
const headerValue = z
  .string()
  .min(1)
  .max(ACTION_LIMITS.headerValue)
  .regex(/^[\t\x20-\x7e\x80-\xff]*$/, 'printable characters only, no line breaks');

const createBody = z.strictObject({
  ...given,
  name: shape.name,
  description: shape.description,
  parameters: shape.parameters,
  method: shape.method,
  urlTemplate: shape.urlTemplate,
  mode: shape.mode,
  sampleResponse,
  /** Sent with every call; values are sealed at once and never shown again. */
  headers: z.array(z.strictObject({ name: headerName, value: headerValue })).max(ACTION_LIMITS.headers).default([]),
});

const updateBody = z.strictObject({
  ...given,
  sampleResponse: sampleResponse.optional(),
  /** Replaces the whole list; a header given without `value` keeps the value it has. */
  headers: z.array(z.strictObject({ name: headerName, value: headerValue.optional() })).max(ACTION_LIMITS.headers).optional(),
});

/** The definition's fields of a body, apart from its headers. */
export function fieldsOf<T extends { headers?: unknown }>(body: T): Omit<T, 'headers'> & Partial<ActionFieldsInput> {
  const { headers: _h, ...fields } = body;
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Omit<T, 'headers'> & Partial<ActionFieldsInput>;
}

export const actionSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string(),
  parameters: z.object({ type: z.literal('object'), properties: z.record(z.string(), actionParameter), required: z.array(z.string()) }),
  identity: z.record(z.string(), identitySource),
  method: z.string(),
  urlTemplate: z.string(),
  /** Names only: a header's value is write-only. */
  headers: z.array(z.object({ name: z.string(), valueSet: z.literal(true) })),
  timeoutMs: z.number().int(),
  responseFields: z.array(z.string()),
  maxResponseChars: z.number().int(),
  mode: z.enum(['auto', 'confirm', 'approve']),
  sampleResponse: z.json(),
  approverRoles: z.array(z.enum(['owner', 'admin', 'agent'])).nullable(),
  holdingReply: z.string(),
  approvalTimeoutMinutes: z.number().int(),
  active: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ActionView = z.infer<typeof actionSchema>;

const isDoc = (a: StoredAction | ActionDoc): a is ActionDoc => 'sampleResponseJson' in a;

export function actionView(a: StoredAction | ActionDoc): ActionView {
  const headerNames = isDoc(a) ? a.headerNames : a.headers.map((h) => h.name);
  return {
    id: isDoc(a) ? a.id : a.actionId,
    name: a.name,
    description: a.description,
    parameters: a.parameters,
    identity: a.identity,
    method: a.method,
    urlTemplate: a.urlTemplate,
    headers: headerNames.map((name) => ({ name, valueSet: true as const })),
    timeoutMs: a.timeoutMs,
    responseFields: a.responseFields,
    maxResponseChars: a.maxResponseChars,
    mode: a.mode,
    sampleResponse: isDoc(a) ? (JSON.parse(a.sampleResponseJson) as z.infer<typeof actionSchema>['sampleResponse']) : a.sampleResponse,
    approverRoles: a.approverRoles,
    holdingReply: a.holdingReply,
    approvalTimeoutMinutes: a.approvalTimeoutMinutes,
    active: a.active,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}

const tags = ['actions'];
const params = z.object({ id: z.string().max(64) });
const one = z.object({ action: actionSchema });

export const listActionsSchema = {
  tags,
  security,
  description: "The company's actions, by name (keyset-paginated by `cursor`). Header values are never shown.",
  querystring: listQuery,
  response: { 200: z.object({ actions: z.array(actionSchema), nextCursor: z.string().nullable() }), ...errorResponses },
};

export const createActionSchema = {
  tags,
  security,
  description:
    `Defines an action an agent may call. Owners and admins. The URL template's address is checked like every outbound address (https in production, ` +
    `no private or loopback address unless ALLOW_PRIVATE_PLATFORM_URLS) and again when each call connects. At most ${ACTION_LIMITS.count} per company ` +
    '(409 QUOTA_EXCEEDED); a name already used is 409 CONFLICT.',
  body: createBody,
  response: { 201: one, 409: errorBody, ...errorResponses },
};

export const getActionSchema = { tags, security, params, response: { 200: one, ...errorResponses } };

export const updateActionSchema = {
  tags,
  security,
  description: 'Changes an action: only the fields given. `headers` replaces the list; a header without `value` keeps its value. Owners and admins.',
  params,
  body: updateBody,
  response: { 200: one, 409: errorBody, ...errorResponses },
};

export const deleteActionSchema = { tags, security, params, response: { 204: z.null(), ...errorResponses } };

const argument = z.union([z.string().max(ACTION_LIMITS.stringArgument), z.number(), z.boolean()]);

export const testActionSchema = {
  tags,
  security,
  description:
    'Calls the action for real, once, and shows what came back: the raw response (capped) and the mapped text the model would read. ' +
    '`parameters`: what the model would fill (default: a sample built from the schema); `identity`: the customer identity the service would fill, ' +
    'given explicitly by the tester. Owners and admins. Header values never appear in the answer.',
  params,
  body: z
    .strictObject({
      parameters: z.record(z.string().max(64), argument).optional(),
      identity: z.strictObject({ 'platform.clientId': z.string().min(1).max(500).optional(), 'webchat.userId': z.string().min(1).max(500).optional(), 'webchat.email': z.string().min(1).max(500).optional() }).optional(),
    })
    .default({}),
  response: {
    200: z.object({
      test: z.object({
        ok: z.boolean(),
        status: z.number().int().nullable(),
        durationMs: z.number(),
        request: z.object({ method: z.string(), url: z.string(), parameters: z.record(z.string(), argument) }),
        raw: z.string().nullable(),
        mapped: z.string().nullable(),
        error: z.string().nullable(),
      }),
    }),
    ...errorResponses,
  },
};
