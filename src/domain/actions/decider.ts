import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import { patternProblems } from '../linearPattern.js';
import { refuseSecretToNewDestination } from '../secretDestinations.js';
import { nestedDeeperThan } from '../jsonBounds.js';
import { ACTION_JSON_LIMITS, ACTION_LIMITS, actionFields, definitionProblems, templateNames, type ActionFields, type ActionFieldsInput } from './definition.js';
import { actionsStream, type ActionEvent } from './events.js';
import { evolveActions, initialActionsState, type ActionsState, type StoredAction } from './state.js';

export { actionsStream };

/** A header as a command carries it: the value sealed by the caller (SecretBox), never plain. */
export type SealedHeader = { name: string; sealedValue: string };
/** On update, a header without a value keeps the value it has (write-only: the dashboard never sees it to resend it). */
export type SealedHeaderChange = { name: string; sealedValue?: string };

export type ActionCommand =
  | { type: 'CreateAction'; companyId: string; actionId: string; fields: ActionFieldsInput; headers: SealedHeader[]; by: string; now: string }
  | {
      type: 'UpdateAction';
      companyId: string;
      actionId: string;
      changes: Partial<ActionFieldsInput>;
      /** When present, replaces the whole list (a header left out is removed). */
      headers?: SealedHeaderChange[];
      by: string;
      now: string;
    }
  | { type: 'DeleteAction'; companyId: string; actionId: string; by: string; now: string };

/** Headers the caller sets itself, or that would let a definition change how the request is framed. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'idempotency-key', 'accept']);
/** What the approve mode alone reads: given with another mode, they would silently do nothing. */
const APPROVE_ONLY = ['approverRoles', 'holdingReply', 'approvalTimeoutMinutes'] as const;

const notFound = () => new DomainError('NOT_FOUND', 'Action not found');
const invalid = (message: string) => new DomainError('VALIDATION_ERROR', message);

function parseFields(input: unknown): ActionFields {
  // Before the schema: z.json() walks the sample recursively, and a deep enough one overflows the stack.
  const sample = (input as { sampleResponse?: unknown } | null)?.sampleResponse;
  if (nestedDeeperThan(sample, ACTION_JSON_LIMITS.depth)) throw invalid(`sampleResponse: nested deeper than ${ACTION_JSON_LIMITS.depth} levels`);
  const parsed = actionFields.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(`${issue?.path.map(String).join('.') || 'action'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

const sameOrigin = (template: string) => {
  const filled = (v: string) => template.replace(/\{([^{}]*)\}/g, v);
  return URL.canParse(filled('y')) && new URL(filled('x')).origin === new URL(filled('y')).origin;
};

/** What the schema and definitionProblems leave open: the address's origin, patterns, enums of the right type. */
function extraProblems(fields: ActionFields): string[] {
  const problems: string[] = [];
  // A parameter in the scheme or host would let the model choose where the call goes; only the path and query may vary.
  const origin = fields.urlTemplate.match(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/)?.[0];
  if (origin === undefined) problems.push('urlTemplate: an absolute http(s) address');
  else if (templateNames(origin).length > 0 || origin.includes('{') || origin.includes('}')) problems.push('urlTemplate: the scheme and host cannot hold a parameter');
  else if (!/^https?:\/\//i.test(origin)) problems.push('urlTemplate: an absolute http(s) address');
  else if (!URL.canParse(fields.urlTemplate.replace(/\{([^{}]*)\}/g, 'x'))) problems.push('urlTemplate: not a valid address');
  // An empty host ("https:///{id}") lets the parser take the first path argument as the host.
  else if (!sameOrigin(fields.urlTemplate)) problems.push('urlTemplate: the scheme and host cannot hold a parameter');
  const patterns: { field: string; source: string }[] = [];
  for (const [name, param] of Object.entries(fields.parameters.properties)) {
    if (param.pattern !== undefined) {
      if (param.type !== 'string') problems.push(`parameters.${name}.pattern: only for a string`);
      else patterns.push({ field: `parameters.${name}.pattern`, source: param.pattern });
    }
    if (param.maxLength !== undefined && param.type !== 'string') problems.push(`parameters.${name}.maxLength: only for a string`);
    if ((param.minimum !== undefined || param.maximum !== undefined) && param.type !== 'number' && param.type !== 'integer') {
      problems.push(`parameters.${name}: minimum and maximum only for a number`);
    }
    const expected = param.type === 'string' ? 'string' : param.type === 'boolean' ? 'boolean' : 'number';
    if (param.type === 'boolean' && param.enum !== undefined) problems.push(`parameters.${name}.enum: not for a boolean`);
    else if (param.enum?.some((v) => typeof v !== expected)) problems.push(`parameters.${name}.enum: every value must be a ${expected}`);
  }
  // Matched against what the model sends, whole (anchored), case-sensitive: see linearPattern.ts.
  problems.push(...patternProblems(patterns, { caseInsensitive: false }));
  return problems;
}

function checkDefinition(fields: ActionFields): void {
  const problems = [...definitionProblems(fields), ...extraProblems(fields)];
  if (problems.length > 0) throw invalid(problems.join('; '));
}

function checkHeaders(headers: readonly { name: string }[]): void {
  if (headers.length > ACTION_LIMITS.headers) throw invalid(`headers: at most ${ACTION_LIMITS.headers}`);
  const seen = new Set<string>();
  for (const [i, h] of headers.entries()) {
    const name = h.name.toLowerCase();
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/.test(h.name)) throw invalid(`headers.${i}.name: a valid HTTP header name`);
    if (RESERVED_HEADERS.has(name)) throw invalid(`headers.${i}.name: ${h.name} is set by the service`);
    if (seen.has(name)) throw invalid(`headers.${i}.name: ${h.name} is given twice`);
    seen.add(name);
  }
}

/** An update's headers: a new value sealed by the caller, or the value the header already has. */
function resolveHeaders(known: StoredAction, given: SealedHeaderChange[]): SealedHeader[] {
  checkHeaders(given);
  return given.map((h, i) => {
    if (h.sealedValue !== undefined) return { name: h.name, sealedValue: h.sealedValue };
    const kept = known.headers.find((k) => k.name.toLowerCase() === h.name.toLowerCase());
    if (!kept) throw invalid(`headers.${i}.value: a new header needs its value`);
    return { name: h.name, sealedValue: kept.sealedValue };
  });
}

function nameTaken(state: ActionsState, name: string, except?: string): boolean {
  return [...state.actions.values()].some((a) => a.name.toLowerCase() === name.toLowerCase() && a.actionId !== except);
}

const duplicateName = (name: string) => new DomainError('CONFLICT', `name: ${name} is already the name of another action`);

function checkApproveOnly(mode: ActionFields['mode'], given: Partial<ActionFieldsInput>): void {
  if (mode === 'approve') return;
  const misplaced = APPROVE_ONLY.find((k) => given[k] !== undefined && !(k === 'approverRoles' && given[k] === null));
  if (misplaced !== undefined) throw invalid(`${misplaced}: only for the approve mode`);
}

function decideCreate(command: Extract<ActionCommand, { type: 'CreateAction' }>, state: ActionsState): ActionEvent[] {
  if (state.actions.has(command.actionId)) throw new DomainError('CONFLICT', 'Action already exists');
  const fields = parseFields(command.fields);
  checkApproveOnly(fields.mode, command.fields);
  checkDefinition(fields);
  checkHeaders(command.headers);
  if (nameTaken(state, fields.name)) throw duplicateName(fields.name);
  if (state.actions.size >= ACTION_LIMITS.count) {
    throw new DomainError('QUOTA_EXCEEDED', `A company may keep at most ${ACTION_LIMITS.count} actions; delete one first`);
  }
  const headers = command.headers.map((h) => ({ name: h.name, sealedValue: h.sealedValue }));
  return [{ type: 'ActionCreated', data: { ...fields, headers, actionId: command.actionId, companyId: command.companyId, by: command.by, at: command.now } }];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function decideUpdate(command: Extract<ActionCommand, { type: 'UpdateAction' }>, state: ActionsState): ActionEvent[] {
  const known = state.actions.get(command.actionId);
  if (!known) throw notFound();
  const { actionId: _id, headers: knownHeaders, createdAt: _c, updatedAt: _u, ...current } = known;
  const given = Object.fromEntries(Object.entries(command.changes).filter(([, v]) => v !== undefined)) as Partial<ActionFieldsInput>;
  const merged = parseFields({ ...current, ...given });
  const changes: Partial<ActionFields> = Object.fromEntries(
    Object.entries(merged).filter(([k, v]) => k in given && !same(v, current[k as keyof ActionFields])),
  );
  checkApproveOnly(merged.mode, Object.fromEntries(Object.keys(changes).map((k) => [k, given[k as keyof ActionFieldsInput]])));
  // Leaving the approve mode forgets who approves, so coming back to it later starts from "any teammate".
  if (merged.mode !== 'approve' && current.approverRoles !== null) changes.approverRoles = null;
  checkDefinition(merged);
  if (changes.name !== undefined && nameTaken(state, changes.name, known.actionId)) throw duplicateName(changes.name);
  const headers = command.headers === undefined ? undefined : resolveHeaders(known, command.headers);
  // Header values kept without being given again (all of them when the list is not given) stay with their address.
  const kept = command.headers === undefined ? knownHeaders.map((h) => h.name) : command.headers.filter((h) => h.sealedValue === undefined).map((h) => h.name);
  refuseSecretToNewDestination('headers', `value of ${kept.join(', ')}`, current.urlTemplate, changes.urlTemplate, kept.length > 0);
  const headerChange = headers !== undefined && !same(headers, knownHeaders) ? { headers } : {};
  if (Object.keys(changes).length === 0 && !('headers' in headerChange)) return [];
  return [{ type: 'ActionUpdated', data: { actionId: known.actionId, changes: { ...changes, ...headerChange }, by: command.by, at: command.now } }];
}

export const actionsDecider: Decider<ActionCommand, ActionEvent, ActionsState> = {
  initialState: initialActionsState,
  evolve: evolveActions,
  decide(command, state) {
    if (state.companyId !== null && state.companyId !== command.companyId) throw notFound();
    switch (command.type) {
      case 'CreateAction':
        return decideCreate(command, state);
      case 'UpdateAction':
        return decideUpdate(command, state);
      case 'DeleteAction':
        if (!state.actions.has(command.actionId)) throw notFound();
        return [{ type: 'ActionDeleted', data: { actionId: command.actionId, by: command.by, at: command.now } }];
    }
  },
};
