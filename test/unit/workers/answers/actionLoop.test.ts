import { describe, expect, it } from 'vitest';
import { ACTION_LIMITS, actionFields } from '../../../../src/domain/actions/definition.js';
import type { StoredAction } from '../../../../src/domain/actions/state.js';
import type { LlmTool, LlmToolCall, LlmToolStep } from '../../../../src/ports/llm.js';
import { ANSWER_TOKEN_BUDGET, callIdOf, confirmationPrompt, mockedExecutor, runActionLoop, unrecordedSink, type CallSink, type RequestedCall } from '../../../../src/workers/answers/actionLoop.js';
import type { GeneratedAnswer } from '../../../../src/workers/answers/answerGeneration.js';

/** The action loop on its own: what the model is offered each round, what is called, and what one answer costs. */

const action = (name: string, mode: 'auto' | 'confirm' | 'approve' = 'auto'): StoredAction => ({
  ...actionFields.parse({
    name,
    description: `${name} things`,
    parameters: { type: 'object', properties: { order_id: { type: 'string' }, client_id: { type: 'string' } }, required: ['order_id'] },
    identity: { client_id: 'platform.clientId' },
    method: 'GET',
    urlTemplate: 'https://shop.example/orders/{order_id}',
    mode,
    sampleResponse: { status: 'sample' },
  }),
  actionId: '00000000-0000-4000-8000-000000000001',
  headers: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

const round = (text: string, toolCalls: LlmToolCall[] = [], tokens = 100): GeneratedAnswer => ({
  response: { text, usage: { inputTokens: tokens, outputTokens: 10 }, model: 'gpt-4o-mini', ...(toolCalls.length ? { toolCalls } : {}) },
  billed: { model: 'gpt-4o-mini', inputTokens: tokens, outputTokens: 10, usageSource: 'reported' },
  provenance: { sources: [], latencyMs: 5, costMicros: 7, usageEstimated: false },
});
const call = (name: string, args: Record<string, unknown>, id = 'call_0'): LlmToolCall => ({ id, name, arguments: JSON.stringify(args) });

/** A model scripted round by round; records what it was offered and the transcript it saw. */
function scripted(rounds: GeneratedAnswer[]) {
  const seen: { tools: string[]; transcript: LlmToolStep[] }[] = [];
  return {
    seen,
    ask: async (tools: LlmTool[], transcript: LlmToolStep[]) => {
      seen.push({ tools: tools.map((t) => t.name), transcript: structuredClone(transcript) });
      return rounds[Math.min(seen.length - 1, rounds.length - 1)]!;
    },
  };
}

/** `refuses`: the refusal the record makes of a call that must wait (another call waits in the conversation). */
function recordingSink(refuses: string | null = null) {
  const requested: { call: RequestedCall; rejection?: string }[] = [];
  const made: { name: string; mocked: boolean }[] = [];
  const inner = unrecordedSink(mockedExecutor(), made);
  const sink: CallSink = {
    requested: async (c, rejection) => {
      requested.push({ call: c, ...(rejection ? { rejection } : {}) });
      return rejection ? null : refuses;
    },
    execute: inner.execute,
  };
  return { sink, requested, made };
}

const loop = (actions: StoredAction[], model: ReturnType<typeof scripted>, sink: CallSink) =>
  runActionLoop({ actions, identity: { 'platform.clientId': 'c-1' }, replyId: 'r-1', sink, ask: model.ask });

describe('one answer', () => {
  it('given a lookup, when the model calls it and then answers, then the call is made with the identity filled, its result given back, and both rounds billed as one', async () => {
    const model = scripted([round('', [call('lookup_order', { order_id: '4411' })]), round('It shipped.')]);
    const { sink, requested, made } = recordingSink();
    const end = await loop([action('lookup_order')], model, sink);

    expect(end.kind).toBe('answer');
    expect(end.answer.response.text).toBe('It shipped.');
    expect(end.answer.billed).toMatchObject({ inputTokens: 200, outputTokens: 20 });
    expect(end.answer.provenance).toMatchObject({ latencyMs: 10, costMicros: 14 });
    expect(requested[0]!.call).toMatchObject({ callId: callIdOf('r-1', 0), args: { order_id: '4411', client_id: 'c-1' }, recorded: { order_id: '4411', client_id: '[platform.clientId]' } });
    expect(made).toEqual([{ name: 'lookup_order', mocked: true }]);
    expect(model.seen[1]!.transcript).toEqual([{ calls: [call('lookup_order', { order_id: '4411' })], results: [{ callId: 'call_0', content: '{"status":"sample"}' }] }]);
  });

  it('given a call of an action the agent does not have, when made, then nothing is recorded and the model is told', async () => {
    const model = scripted([round('', [call('delete_everything', {})]), round('Sorry.')]);
    const { sink, requested } = recordingSink();
    await loop([action('lookup_order')], model, sink);
    expect(requested).toEqual([]);
    expect(model.seen[1]!.transcript[0]!.results[0]!.content).toBe('Not done: there is no action named delete_everything.');
  });

  it('given arguments that are not JSON, when called, then the call is refused and recorded as such', async () => {
    const model = scripted([round('', [{ id: 'call_0', name: 'lookup_order', arguments: '{order' }]), round('Sorry.')]);
    const { sink, requested, made } = recordingSink();
    await loop([action('lookup_order')], model, sink);
    expect(requested[0]!.rejection).toBe('the arguments are not a JSON object');
    expect(made).toEqual([]);
  });

  it('given a model calling more than the cap in one round, when it runs, then the calls past the cap are not made', async () => {
    const many = Array.from({ length: ACTION_LIMITS.callsPerAnswer + 2 }, (_, i) => call('lookup_order', { order_id: String(i) }, `call_${i}`));
    const model = scripted([round('', many), round('Done.')]);
    const { sink, made } = recordingSink();
    const end = await loop([action('lookup_order')], model, sink);
    expect(made).toHaveLength(ACTION_LIMITS.callsPerAnswer);
    expect(model.seen[1]!.tools).toEqual([]);
    expect(end.answer.response.text).toBe('Done.');
  });

  it('given a round past the token budget, when the model would call again, then it is offered no action and answers in words', async () => {
    const model = scripted([round('', [call('lookup_order', { order_id: '1' })], ANSWER_TOKEN_BUDGET), round('In words.')]);
    const { sink } = recordingSink();
    await loop([action('lookup_order')], model, sink);
    expect(model.seen.map((s) => s.tools)).toEqual([['lookup_order'], []]);
  });

  it('given a confirm action, when called, then the answer stops before any call with the call to ask about', async () => {
    const model = scripted([round('', [call('cancel_order', { order_id: '4411' })])]);
    const { sink, made } = recordingSink();
    const end = await loop([action('cancel_order', 'confirm')], model, sink);
    expect(end.kind).toBe('ask');
    expect(made).toEqual([]);
    if (end.kind === 'ask') expect(confirmationPrompt(end.call)).toBe('Cancel order (order id: 4411)? Reply yes to confirm.');
  });

  it('given another call waiting in the conversation, when the model asks for an approve call, then the record refuses it, nothing is asked, and the model answers knowing why', async () => {
    const model = scripted([round('', [call('refund_order', { order_id: '4412' })]), round('Your cancellation still waits for a teammate; I can ask for the refund after.')]);
    const { sink, made } = recordingSink("another action is waiting for a teammate's approval: ask again once it is decided");
    const end = await loop([action('refund_order', 'approve')], model, sink);
    expect(end.kind).toBe('answer');
    expect(made).toEqual([]);
    expect(model.seen[1]!.transcript.at(-1)!.results).toEqual([
      { callId: 'call_0', content: "Not done: another action is waiting for a teammate's approval: ask again once it is decided." },
    ]);
  });
});

describe('mocked calls (replays, test runs, a mocked playground)', () => {
  it("given a test case's mock for an action, then a call answers with it; an action without one answers with its sample", async () => {
    const model = scripted([round('', [call('lookup_order', { order_id: '4411' }, 'call_0'), call('cancel_order', { order_id: '4411' }, 'call_1')]), round('Done.')]);
    const made: { name: string; mocked: boolean }[] = [];
    await runActionLoop({ actions: [action('lookup_order'), action('cancel_order')], identity: { 'platform.clientId': 'c-1' }, replyId: 'r-1', sink: unrecordedSink(mockedExecutor({ lookup_order: { status: 'lost' } }), made), ask: model.ask });
    expect(model.seen[1]!.transcript.at(-1)!.results.map((r) => r.content)).toEqual(['{"status":"lost"}', '{"status":"sample"}']);
    expect(made).toEqual([{ name: 'lookup_order', mocked: true }, { name: 'cancel_order', mocked: true }]);
  });
});
