import { deterministicId } from '../../commands/hashing.js';
import {
  ACTION_LIMITS,
  checkArguments,
  mapResponse,
  redactArguments,
  renderRequest,
  toolFor,
  type Arguments,
  type CustomerIdentity,
} from '../../domain/actions/definition.js';
import type { StoredAction } from '../../domain/actions/state.js';
import type { ActionCaller, ActionHttpResult } from '../../ports/actionCaller.js';
import type { LlmTool, LlmToolCall, LlmToolStep } from '../../ports/llm.js';
import type { SecretBox } from '../../ports/secretBox.js';
import type { GeneratedAnswer } from './answerGeneration.js';
import { maskSecrets } from '../../domain/actions/secretMask.js';

/**
 * One answer that may call the company's actions (OpenAI-style tool calling): ask the model; for each call it
 * makes, check the arguments (identity filled by the service, never by the model), record it, and run it (auto),
 * or stop and ask first (confirm: the customer; approve: a teammate); give the results back as data; ask again.
 * At most ACTION_LIMITS.callsPerAnswer calls and ANSWER_TOKEN_BUDGET tokens per answer: past either the model is
 * asked once more without tools, so it answers in words. Every round's usage is summed into the one answer, so
 * the reply's one charge covers them all.
 *
 * Where calls are recorded and how they are made is the caller's (CallSink): a customer's conversation records
 * every step as events and calls the endpoint; replays and test runs record nothing and use the sample response.
 */

/** Tokens (in + out, summed over the rounds) past which one answer offers no more actions. */
export const ANSWER_TOKEN_BUDGET = 60_000;

export interface CallSink {
  /**
   * Records the request, with its refusal when it was refused before the call. Resolves with the refusal the
   * record itself made (a confirm or approve call while another waits, conversationDecider), or null.
   */
  requested(call: RequestedCall, rejection?: string): Promise<string | null>;
  /** Makes an accepted call (auto mode, or confirmed/approved): the text the model reads. */
  execute(call: RequestedCall): Promise<string>;
}

export interface RequestedCall {
  callId: string;
  action: StoredAction;
  /** Checked, identity filled: what the request is rendered from. */
  args: Arguments;
  /** As recorded (identity values replaced by their source). */
  recorded: Record<string, string | number | boolean>;
}

export interface ActionLoop {
  actions: StoredAction[];
  identity: CustomerIdentity;
  replyId: string;
  sink: CallSink;
  /** One model round with these tools and the calls so far. */
  ask(tools: LlmTool[], transcript: LlmToolStep[]): Promise<GeneratedAnswer>;
  /** What an earlier attempt of this answer already called (a retried job): continued, never repeated. */
  seed?: { transcript: LlmToolStep[]; calls: number };
}

export type LoopEnd =
  | { kind: 'answer'; answer: GeneratedAnswer }
  /** A confirm or approve call: the answer stops here until the customer or a teammate decides. */
  | { kind: 'ask'; answer: GeneratedAnswer; call: RequestedCall };

/** A call's id: the same on every attempt of one answer, so a retried job finds the call it already started. */
export const callIdOf = (replyId: string, index: number) => deterministicId(`action-call:${replyId}:${index}`);

export async function runActionLoop(loop: ActionLoop): Promise<LoopEnd> {
  const transcript = [...(loop.seed?.transcript ?? [])];
  let calls = loop.seed?.calls ?? 0;
  const tools = loop.actions.map((a) => toolFor(a) as LlmTool);
  let total: GeneratedAnswer | null = null;
  for (;;) {
    const open = calls < ACTION_LIMITS.callsPerAnswer && (total === null || tokensOf(total) < ANSWER_TOKEN_BUDGET);
    const answer = await loop.ask(open ? tools : [], transcript);
    total = total === null ? answer : summed(total, answer);
    const asked = answer.response.toolCalls ?? [];
    if (!open || asked.length === 0) return { kind: 'answer', answer: { ...answer, billed: total.billed, provenance: total.provenance } };
    const step: LlmToolStep = { calls: [], results: [] };
    for (const toolCall of asked) {
      const result = calls < ACTION_LIMITS.callsPerAnswer ? await oneCall(loop, toolCall, calls++) : { text: `Not done: at most ${ACTION_LIMITS.callsPerAnswer} calls per answer.` };
      if ('ask' in result) return { kind: 'ask', answer: total, call: result.ask };
      step.calls.push(toolCall);
      step.results.push({ callId: toolCall.id, content: result.text });
    }
    transcript.push(step);
  }
}

const tokensOf = (a: GeneratedAnswer) => a.billed.inputTokens + a.billed.outputTokens;

/** Two rounds of one answer as one: usage, cost and time added up, the later round's words. */
function summed(a: GeneratedAnswer, b: GeneratedAnswer): GeneratedAnswer {
  const estimated = a.billed.usageSource === 'estimated' || b.billed.usageSource === 'estimated';
  return {
    ...b,
    billed: { model: b.billed.model, inputTokens: a.billed.inputTokens + b.billed.inputTokens, outputTokens: a.billed.outputTokens + b.billed.outputTokens, usageSource: estimated ? 'estimated' : 'reported' },
    provenance: {
      ...b.provenance,
      latencyMs: a.provenance.latencyMs + b.provenance.latencyMs,
      costMicros: a.provenance.costMicros + b.provenance.costMicros,
      usageEstimated: a.provenance.usageEstimated || b.provenance.usageEstimated,
    },
  };
}

/** One tool call: refused (the reason goes back to the model), made, or held for a yes or an approval. */
async function oneCall(loop: ActionLoop, toolCall: LlmToolCall, index: number): Promise<{ text: string } | { ask: RequestedCall }> {
  const action = loop.actions.find((a) => a.name === toolCall.name);
  if (!action) return { text: `Not done: there is no action named ${toolCall.name.slice(0, 64)}.` };
  const callId = callIdOf(loop.replyId, index);
  const parsed = parseArguments(toolCall.arguments);
  const check = parsed === undefined ? { ok: false as const, error: 'the arguments are not a JSON object' } : checkArguments(action, parsed, loop.identity);
  if (!check.ok) {
    await loop.sink.requested({ callId, action, args: {}, recorded: redactArguments(action, scalarArguments(parsed)) }, check.error);
    return { text: `Not done: ${check.error}.` };
  }
  const call: RequestedCall = { callId, action, args: check.args, recorded: redactArguments(action, check.args) };
  const refused = await loop.sink.requested(call);
  if (refused !== null) return { text: `Not done: ${refused}.` };
  if (action.mode !== 'auto') return { ask: call };
  return { text: await loop.sink.execute(call) };
}

function parseArguments(raw: string): unknown {
  try {
    return JSON.parse(raw === '' ? '{}' : raw);
  } catch {
    return undefined;
  }
}

/** Refused arguments as they can be recorded: scalars kept, anything else as capped JSON text. */
function scalarArguments(value: unknown): Arguments {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value)
      .slice(0, ACTION_LIMITS.parameters)
      .map(([k, v]) => [k, typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : JSON.stringify(v ?? null).slice(0, 200)]),
  );
}

/**
 * What a confirm call asks the customer: a fixed template, never the model's words, so the customer confirms
 * exactly what will run ("Cancel order (order id: 4411)? Reply yes to confirm.").
 */
export function confirmationPrompt(call: Pick<RequestedCall, 'action' | 'recorded'>): string {
  const words = call.action.name.replace(/_/g, ' ').trim();
  const what = words.charAt(0).toUpperCase() + words.slice(1);
  const shown = Object.entries(call.recorded).filter(([k]) => !(k in call.action.identity));
  const details = shown.length > 0 ? ` (${shown.map(([k, v]) => `${k.replace(/_/g, ' ')}: ${String(v)}`).join(', ')})` : '';
  return `${what}${details}? Reply yes to confirm.`;
}

/** Makes a call: the endpoint itself, or the action's sample response (replays, test runs, a mocked playground). */
export type ActionExecutor = (action: StoredAction, args: Arguments, idempotencyKey: string) => Promise<ActionHttpResult & { mocked: boolean }>;

export function liveExecutor(caller: ActionCaller, secretBox: SecretBox): ActionExecutor {
  return async (action, args, idempotencyKey) => {
    const request = renderRequest(action, args);
    // Header values are opened here, for this one request, and go nowhere else: one the endpoint echoes back is
    // masked before the result is recorded (events, action log) or passed on (the model's prompt, the reply).
    const headers = action.headers.map((h) => ({ name: h.name, value: secretBox.open(h.sealedValue) }));
    const result = await caller.call({ ...request, headers, idempotencyKey, timeoutMs: action.timeoutMs });
    const secrets = headers.map((h) => h.value);
    const masked = result.ok ? { ...result, body: maskSecrets(result.body, secrets) } : { ...result, error: maskSecrets(result.error, secrets) };
    return { ...masked, mocked: false };
  };
}

/** `mocks`: a response per action name (a test case's), else the action's sample response. */
export function mockedExecutor(mocks: Record<string, unknown> = {}): ActionExecutor {
  return async (action) => {
    const response = Object.prototype.hasOwnProperty.call(mocks, action.name) ? mocks[action.name] : action.sampleResponse;
    return { ok: true, status: 200, durationMs: 0, body: JSON.stringify(response ?? null), mocked: true };
  };
}

/** What the model reads of a call's outcome: the mapped response, or why it failed in plain words. */
export function resultText(action: StoredAction, result: ActionHttpResult): string {
  return result.ok ? mapResponse(action, result.body, result.cut) : `The call failed: ${result.error}.`;
}

/** A sink that records nothing (replays, test runs): every call is made by `executor`, confirm and approve alike. */
export function unrecordedSink(executor: ActionExecutor, made: { name: string; mocked: boolean }[] = []): CallSink {
  return {
    requested: async () => null,
    execute: async (call) => {
      const result = await executor(call.action, call.args, call.callId);
      made.push({ name: call.action.name, mocked: result.mocked });
      return resultText(call.action, result);
    },
  };
}
