import { z } from 'zod';
import { compilePattern } from '../linearPattern.js';
import { jsonProblem, textNestedDeeperThan, type JsonLimits } from '../jsonBounds.js';

/**
 * A company-defined action: an HTTP call to the company's own systems that an agent may make while it answers
 * ("where is my order 4411?" → GET https://shop.example/orders/4411). The model sees the name, the description and
 * the parameters the model may fill; the service fills the identity parameters itself, validates every call
 * against the parameter schema, renders the request, and shows the model only the mapped, size-capped response.
 *
 * Everything here is pure: the HTTP exchange, secrets and the outbound URL guard live outside the domain.
 */

export const ACTION_LIMITS = {
  /** Actions per company. */
  count: 50,
  /** Actions one agent may use in one answer's tool list. */
  perAgent: 20,
  name: 64,
  description: 1000,
  urlTemplate: 2048,
  headers: 20,
  headerName: 100,
  headerValue: 4000,
  parameters: 20,
  parameterDescription: 500,
  enumValues: 50,
  enumValue: 200,
  stringArgument: 2000,
  responseFields: 30,
  responseFieldPath: 200,
  /** The most of a response the model ever reads, in characters. */
  maxResponseChars: 8000,
  sampleResponseChars: 20_000,
  /**
   * How deeply a sample response, a test case's mock or an endpoint's answer may nest: more than any real API
   * answer, and far below the depth at which walking it (zod, JSON.stringify) overflows the call stack.
   */
  jsonDepth: 32,
  holdingReply: 1000,
  /** Calls one answer may make before it must answer in words. */
  callsPerAnswer: 5,
  minTimeoutMs: 500,
  maxTimeoutMs: 30_000,
  maxApprovalMinutes: 7 * 24 * 60,
} as const;

/** A sample response, or what a test case says an action answers: the same bounds for both. */
export const ACTION_JSON_LIMITS: JsonLimits = { chars: ACTION_LIMITS.sampleResponseChars, depth: ACTION_LIMITS.jsonDepth };

export const DEFAULT_ACTION_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_CHARS = 2000;
export const DEFAULT_APPROVAL_MINUTES = 60;
/** How long a `confirm` action waits for the customer's yes: the customer's next turn, or this long, whichever first. */
export const CONFIRMATION_WINDOW_MINUTES = 30;

/** Names the model calls: like an OpenAI function name, so the tool list needs no mapping. */
export const actionName = z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]{0,63}$/, 'letters, digits and _ (starting with a letter), at most 64');

/** `auto`: read-only lookups, run when the model calls them. `confirm`: the customer says yes first. `approve`: a teammate approves. */
export const actionMode = z.enum(['auto', 'confirm', 'approve']);
export type ActionMode = z.infer<typeof actionMode>;

export const actionMethod = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
export type ActionMethod = z.infer<typeof actionMethod>;

/**
 * Where the service takes an identity parameter from, never from the model: the platform customer's `client_id`,
 * or a web-chat visitor's user id / email once the company's site has signed it (identity verification).
 */
export const identitySource = z.enum(['platform.clientId', 'webchat.userId', 'webchat.email']);
export type IdentitySource = z.infer<typeof identitySource>;

/** The verified identity of the customer a call is made for; a source that is absent cannot be bound. */
export type CustomerIdentity = Partial<Record<IdentitySource, string>>;

const parameterName = z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/, 'letters, digits and _, at most 64');

/** The bounded JSON Schema subset a parameter may use. */
export const actionParameter = z
  .object({
    type: z.enum(['string', 'number', 'integer', 'boolean']),
    description: z.string().max(ACTION_LIMITS.parameterDescription).optional(),
    enum: z
      .array(z.union([z.string().max(ACTION_LIMITS.enumValue), z.number()]))
      .min(1)
      .max(ACTION_LIMITS.enumValues)
      .optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    maxLength: z.number().int().min(1).max(ACTION_LIMITS.stringArgument).optional(),
    pattern: z.string().max(200).optional(),
  })
  .strict();
export type ActionParameter = z.infer<typeof actionParameter>;

export const actionParameters = z
  .object({
    type: z.literal('object'),
    properties: z.record(parameterName, actionParameter),
    required: z.array(parameterName).max(ACTION_LIMITS.parameters).default([]),
  })
  .strict()
  .refine((p) => Object.keys(p.properties).length <= ACTION_LIMITS.parameters, `at most ${ACTION_LIMITS.parameters} parameters`)
  .refine((p) => p.required.every((r) => r in p.properties), 'every required parameter must be one of the properties');
export type ActionParameters = z.infer<typeof actionParameters>;

/** The fields a company edits; header values come in plain text here and are sealed before they enter an event. */
export const actionFields = z.object({
  name: actionName,
  description: z.string().min(1).max(ACTION_LIMITS.description),
  parameters: actionParameters,
  /** Which parameters the service fills from the customer's verified identity; they are hidden from the model. */
  identity: z.record(parameterName, identitySource).default({}),
  method: actionMethod,
  /** `https://shop.example/orders/{order_id}`: `{name}` is replaced by the URL-encoded argument. */
  urlTemplate: z.string().min(1).max(ACTION_LIMITS.urlTemplate),
  timeoutMs: z.number().int().min(ACTION_LIMITS.minTimeoutMs).max(ACTION_LIMITS.maxTimeoutMs).default(DEFAULT_ACTION_TIMEOUT_MS),
  /** Dot paths into the JSON response the model may read (`status`, `items.0.name`); empty: the whole response. */
  responseFields: z.array(z.string().min(1).max(ACTION_LIMITS.responseFieldPath)).max(ACTION_LIMITS.responseFields).default([]),
  maxResponseChars: z.number().int().min(100).max(ACTION_LIMITS.maxResponseChars).default(DEFAULT_MAX_RESPONSE_CHARS),
  mode: actionMode,
  /** What a test run, a replay or a mocked playground session gets instead of calling the endpoint. */
  sampleResponse: z.json(),
  /** `approve` mode: who may approve or refuse; null: any teammate. */
  approverRoles: z.array(z.enum(['owner', 'admin', 'agent'])).min(1).max(3).nullable().default(null),
  /** `approve` mode: what the customer is told while a teammate decides. */
  holdingReply: z.string().min(1).max(ACTION_LIMITS.holdingReply).default('Thanks! A teammate needs to approve this; I will get back to you shortly.'),
  /** `approve` mode: an approval not given in this many minutes hands the conversation to people. */
  approvalTimeoutMinutes: z.number().int().min(1).max(ACTION_LIMITS.maxApprovalMinutes).default(DEFAULT_APPROVAL_MINUTES),
  active: z.boolean().default(true),
});
export type ActionFields = z.infer<typeof actionFields>;
export type ActionFieldsInput = z.input<typeof actionFields>;

/** An action as the domain keeps it: header values sealed (SecretBox), never in plain text. */
export interface ActionDefinition extends ActionFields {
  actionId: string;
  headers: { name: string; sealedValue: string }[];
}

/** Checks what a schema cannot: the template names only declared parameters, identity names declared ones. */
export function definitionProblems(fields: Pick<ActionFields, 'parameters' | 'identity' | 'urlTemplate' | 'sampleResponse'>): string[] {
  const problems: string[] = [];
  const declared = new Set(Object.keys(fields.parameters.properties));
  for (const name of templateNames(fields.urlTemplate)) {
    if (!declared.has(name)) problems.push(`urlTemplate: {${name}} is not a parameter`);
  }
  for (const [name] of Object.entries(fields.identity)) {
    if (!declared.has(name)) problems.push(`identity: ${name} is not a parameter`);
    else if (fields.parameters.properties[name]?.type !== 'string') problems.push(`identity: ${name} must be a string parameter`);
  }
  const sample = jsonProblem(fields.sampleResponse, ACTION_JSON_LIMITS);
  if (sample !== null) problems.push(`sampleResponse: ${sample}`);
  for (const [name, param] of Object.entries(fields.parameters.properties)) {
    // Nothing would pass both: the action could never be called.
    if (param.minimum !== undefined && param.maximum !== undefined && param.minimum > param.maximum) problems.push(`parameters.${name}: minimum is greater than maximum`);
  }
  return problems;
}

export function templateNames(template: string): string[] {
  return [...template.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1] ?? '');
}

/** The tool the model is offered: the parameters it may fill, without the identity ones. */
export function toolFor(def: Pick<ActionFields, 'name' | 'description' | 'parameters' | 'identity'>): {
  name: string;
  description: string;
  parameters: { type: 'object'; properties: Record<string, ActionParameter>; required: string[]; additionalProperties: false };
} {
  const hidden = new Set(Object.keys(def.identity));
  const properties = Object.fromEntries(Object.entries(def.parameters.properties).filter(([k]) => !hidden.has(k)));
  return {
    name: def.name,
    description: def.description,
    parameters: { type: 'object', properties, required: def.parameters.required.filter((r) => !hidden.has(r)), additionalProperties: false },
  };
}

export type Arguments = Record<string, string | number | boolean>;
export type ArgumentCheck = { ok: true; args: Arguments } | { ok: false; error: string };

/**
 * The model's arguments checked against the schema, with the identity parameters filled by the service. The model
 * cannot set an identity parameter: one it sends is refused, so a prompt-injected "client_id" never reaches a call.
 * An identity parameter whose source the customer lacks (an unverified visitor) refuses the call.
 */
export function checkArguments(def: Pick<ActionFields, 'parameters' | 'identity'> & Partial<Pick<ActionFields, 'urlTemplate'>>, modelArgs: unknown, identity: CustomerIdentity): ArgumentCheck {
  if (typeof modelArgs !== 'object' || modelArgs === null || Array.isArray(modelArgs)) return { ok: false, error: 'arguments must be an object' };
  const args: Arguments = {};
  for (const [name, value] of Object.entries(modelArgs)) {
    if (name in def.identity) return { ok: false, error: `${name} is filled by the service and cannot be given` };
    const param = def.parameters.properties[name];
    if (!param) return { ok: false, error: `${name} is not a parameter` };
    const problem = checkValue(param, value);
    if (problem) return { ok: false, error: `${name}: ${problem}` };
    args[name] = value as string | number | boolean;
  }
  for (const [name, source] of Object.entries(def.identity)) {
    const value = identity[source];
    if (value === undefined || value === '') return { ok: false, error: `the customer's ${source} is not verified` };
    args[name] = value;
  }
  const missing = def.parameters.required.find((r) => !(r in args));
  if (missing !== undefined) return { ok: false, error: `${missing} is required` };
  const misplaced = def.urlTemplate === undefined ? null : addressProblem(def.urlTemplate, args);
  if (misplaced !== null) return { ok: false, error: misplaced };
  return { ok: true, args };
}

/** What WHATWG URL parsing treats as "this folder" or "the folder above" in a path. */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * URL-encoding keeps a value inside its path segment, but not "." or "..": the URL parser resolves those, so
 * `/orders/{id}/cancel` with `..` would call `/cancel`. And a template saved before its host was checked with a
 * parameter in mind must not send the call elsewhere. Either refuses the call before it is made.
 */
function addressProblem(urlTemplate: string, args: Arguments): string | null {
  const origin = urlTemplate.match(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/)?.[0] ?? '';
  const path = urlTemplate.slice(origin.length).split(/[?#]/)[0] ?? '';
  for (const segment of path.split('/')) {
    const names = templateNames(segment);
    if (names.length > 0 && DOT_SEGMENT.test(fillTemplate(segment, args))) return `${names.join(', ')}: "." or ".." cannot stand in the address's path`;
  }
  const expected = URL.canParse(fillTemplate(urlTemplate, {})) ? new URL(fillTemplate(urlTemplate, {})).origin : null;
  const rendered = URL.canParse(fillTemplate(urlTemplate, args)) ? new URL(fillTemplate(urlTemplate, args)).origin : null;
  return expected !== null && rendered === expected ? null : 'the arguments would change where the call goes';
}

/** `{name}` replaced by the URL-encoded argument (nothing for an absent one). */
function fillTemplate(template: string, args: Arguments, used?: Set<string>): string {
  return template.replace(/\{([^{}]*)\}/g, (_, name: string) => {
    used?.add(name);
    const value = args[name];
    return value === undefined ? '' : encodeURIComponent(String(value));
  });
}

function checkValue(param: ActionParameter, value: unknown): string | null {
  switch (param.type) {
    case 'string':
      if (typeof value !== 'string') return 'must be a string';
      if (value.length > (param.maxLength ?? ACTION_LIMITS.stringArgument)) return `at most ${param.maxLength ?? ACTION_LIMITS.stringArgument} characters`;
      if (param.pattern !== undefined) {
        const compiled = compilePattern(param.pattern, { caseInsensitive: false });
        if (!compiled.ok) return `its pattern cannot run (${compiled.problem}): the action must be edited`;
        if (!compiled.pattern.testWhole(value)) return 'does not match the expected format';
      }
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return 'must be true or false';
      break;
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (param.type === 'integer' && !Number.isInteger(value)) return 'must be a whole number';
      if (param.minimum !== undefined && value < param.minimum) return `at least ${param.minimum}`;
      if (param.maximum !== undefined && value > param.maximum) return `at most ${param.maximum}`;
      break;
  }
  if (param.enum !== undefined && !param.enum.includes(value as string | number)) return `one of ${param.enum.join(', ')}`;
  return null;
}

export interface RenderedRequest {
  method: ActionMethod;
  url: string;
  /** JSON body for POST/PUT/PATCH/DELETE: the arguments the URL did not use. */
  body: Arguments | null;
}

/** The request a call makes: `{name}` replaced by the URL-encoded argument, the other arguments as query (GET) or JSON body. */
export function renderRequest(def: Pick<ActionFields, 'method' | 'urlTemplate'>, args: Arguments): RenderedRequest {
  const used = new Set<string>();
  const url = fillTemplate(def.urlTemplate, args, used);
  const rest = Object.fromEntries(Object.entries(args).filter(([k]) => !used.has(k)));
  if (def.method !== 'GET') return { method: def.method, url, body: rest };
  const target = new URL(url);
  for (const [k, v] of Object.entries(rest)) target.searchParams.set(k, String(v));
  return { method: def.method, url: target.toString(), body: null };
}

/**
 * What the model reads of a response: the chosen fields (or all of it), as JSON text capped at `maxResponseChars`.
 * A response that is not JSON is passed as text, capped the same way; so is the beginning of one `cut` at the
 * caller's size cap.
 */
export function mapResponse(def: Pick<ActionFields, 'responseFields' | 'maxResponseChars'>, raw: string, cut = false): string {
  if (answerTooDeep(raw)) return TOO_DEEP;
  // Its beginning is no JSON: the chosen fields cannot be read from it (without fields, the beginning is shown).
  if (cut && def.responseFields.length > 0) return CUT_OFF;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // Chosen fields are all the model may read: an HTML error page or a text answer has none of them.
    return def.responseFields.length > 0 ? NOT_JSON : cap(raw, def.maxResponseChars);
  }
  if (def.responseFields.length === 0) return cap(JSON.stringify(parsed), def.maxResponseChars);
  const picked: Record<string, unknown> = {};
  for (const path of def.responseFields) {
    const value = pick(parsed, path);
    if (value !== undefined) picked[path] = value;
  }
  return cap(JSON.stringify(picked), def.maxResponseChars);
}

export const NOT_JSON = 'The answer was not JSON, so none of the chosen fields could be read.';
export const CUT_OFF = 'The answer was too large to read whole, so none of the chosen fields could be read.';
export const TOO_DEEP = `The answer was nested deeper than ${ACTION_LIMITS.jsonDepth} levels, so none of it could be read.`;

/**
 * An answer nested past the depth is not read at all: mapping it (JSON.stringify, like every recursive walk)
 * would overflow the call stack on a hostile one (100,000 levels fit in 195 KB).
 */
export function answerTooDeep(raw: string): boolean {
  return textNestedDeeperThan(raw, ACTION_LIMITS.jsonDepth);
}

function pick(value: unknown, path: string): unknown {
  let at: unknown = value;
  for (const key of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Arguments as recorded on the conversation: identity values replaced by where they came from, and long strings
 * cut, so a read model or a log never holds more of the customer's identity than the conversation already does.
 */
export function redactArguments(def: Pick<ActionFields, 'identity'>, args: Arguments): Record<string, string | number | boolean> {
  return Object.fromEntries(
    Object.entries(args).map(([k, v]) => {
      const source = def.identity[k];
      if (source !== undefined) return [k, `[${source}]`];
      // Never shorter than a valid argument: a confirmed or approved call runs from this record.
      return [k, typeof v === 'string' ? cap(v, ACTION_LIMITS.stringArgument) : v];
    }),
  );
}
