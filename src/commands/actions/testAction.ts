import { randomUUID } from 'node:crypto';
import {
  ACTION_LIMITS,
  answerTooDeep,
  checkArguments,
  mapResponse,
  renderRequest,
  type ActionParameter,
  type Arguments,
  type CustomerIdentity,
} from '../../domain/actions/definition.js';
import { DomainError } from '../../domain/errors.js';
import { maskSecrets } from '../../domain/actions/secretMask.js';
import type { StoredAction } from '../../domain/actions/state.js';
import type { ActionCaller } from '../../ports/actionCaller.js';
import type { EventStore } from '../../ports/eventStore.js';
import type { SecretBox } from '../../ports/secretBox.js';
import { loadCompanyAction } from './streamReads.js';

/** The most of a raw test response shown: enough to see its shape, never a whole large answer. */
export const TEST_RAW_CHARS = 20_000;

export interface TestActionDeps {
  eventStore: EventStore;
  secretBox: SecretBox;
  actionCaller: ActionCaller;
}

export interface ActionTestResult {
  ok: boolean;
  status: number | null;
  durationMs: number;
  request: { method: string; url: string; parameters: Arguments };
  raw: string | null;
  mapped: string | null;
  error: string | null;
}

/** A value each parameter accepts, for a test without given parameters: the first enum value, the minimum, a word. */
function sampleValue(param: ActionParameter): string | number | boolean {
  if (param.enum !== undefined && param.enum.length > 0) return param.enum[0]!;
  switch (param.type) {
    case 'boolean':
      return false;
    case 'integer':
      return Math.ceil(param.minimum ?? 1);
    case 'number':
      return param.minimum ?? 1;
    case 'string':
      return 'sample';
  }
}

/** The sample the Test button sends: the required parameters the model would fill, each with a value it accepts. */
export function sampleArguments(action: Pick<StoredAction, 'parameters' | 'identity'>): Arguments {
  return Object.fromEntries(
    action.parameters.required.filter((name) => !(name in action.identity)).map((name) => [name, sampleValue(action.parameters.properties[name]!)]),
  );
}

const cap = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * Calls one of the company's actions for real, once, as the model would (arguments checked, identity filled by
 * the service: here given by the tester), and shows the raw and the mapped response. Nothing is recorded on any
 * conversation: it is a teammate trying the definition.
 */
export async function testAction(
  deps: TestActionDeps,
  companyId: string,
  actionId: string,
  input: { parameters?: Record<string, string | number | boolean>; identity?: CustomerIdentity },
): Promise<ActionTestResult> {
  const action = await loadCompanyAction(deps.eventStore, companyId, actionId);
  if (!action) throw new DomainError('NOT_FOUND', 'Action not found');
  const checked = checkArguments(action, input.parameters ?? sampleArguments(action), input.identity ?? {});
  if (!checked.ok) throw new DomainError('VALIDATION_ERROR', `parameters: ${checked.error}`);
  const rendered = renderRequest(action, checked.args);
  const headers = action.headers.map((h) => ({ name: h.name, value: deps.secretBox.open(h.sealedValue) }));
  // Any header value the endpoint echoed back is blanked: a test never shows a secret, even one the API repeats.
  const secrets = headers.map((h) => h.value);
  const result = await deps.actionCaller.call({ ...rendered, headers, idempotencyKey: `test-${randomUUID()}`, timeoutMs: action.timeoutMs });
  const request = { method: rendered.method, url: rendered.url, parameters: checked.args };
  if (!result.ok) return { ok: false, status: result.status, durationMs: result.durationMs, request, raw: null, mapped: null, error: maskSecrets(result.error, secrets) };
  const raw = cap(maskSecrets(result.body, secrets), TEST_RAW_CHARS);
  if (answerTooDeep(result.body)) {
    return { ok: false, status: result.status, durationMs: result.durationMs, request, raw, mapped: null, error: `the answer is nested deeper than ${ACTION_LIMITS.jsonDepth} levels, which the model cannot read` };
  }
  return {
    ok: true,
    status: result.status,
    durationMs: result.durationMs,
    request,
    raw,
    mapped: maskSecrets(mapResponse(action, result.body, result.cut), secrets),
    error: null,
  };
}
