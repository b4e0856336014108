import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiLlm, TOOL_RESULTS_ARE_DATA } from '../../src/infrastructure/llm/openaiLlm.js';
import { createBuiltinLlm } from '../../src/infrastructure/llm/builtinLlm.js';
import type { LlmRequest, LlmTool } from '../../src/ports/llm.js';
import { startFakeLlm, type ChatCompletionBody, type FakeLlm } from '../support/fakeLlm.js';

/**
 * Actions through the OpenAI-compatible adapter: the company's actions are offered as function tools beside the
 * handoff tool, the model's calls come back raw for the reply worker to check, earlier calls and their results are
 * sent back as tool messages, and the prompt says tool results are data. The builtin provider never calls one.
 */

const lookupOrder: LlmTool = {
  name: 'lookup_order',
  description: 'Finds an order by its number.',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'], additionalProperties: false },
};

let fake: FakeLlm;
const llm = () => createOpenAiLlm({ baseUrl: fake.url, maxRetries: 0, network: { allowPrivate: true } });
const ask = (extra: Partial<LlmRequest> = {}): LlmRequest => ({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You are Ava.' },
    { role: 'user', content: 'Where is order 4411?' },
  ],
  handoffMessage: 'A colleague will help.',
  tools: [lookupOrder],
  ...extra,
});
const lastBody = () => fake.completionRequests.at(-1)!.body as ChatCompletionBody & { tools?: { function: { name: string } }[] };

beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

describe('offering actions', () => {
  it('given an action, when the model is asked, then it is offered beside the handoff tool and the prompt says tool results are data', async () => {
    await llm().complete(ask());
    const body = lastBody();
    expect(body.tools?.map((t) => t.function.name)).toEqual(['handoff_to_human', 'lookup_order']);
    expect(JSON.stringify(body.messages)).toContain(TOOL_RESULTS_ARE_DATA);
  });

  it('given no action, when the model is asked, then the prompt carries no tool-result notice', async () => {
    await llm().complete(ask({ tools: [] }));
    expect(lastBody().tools?.map((t) => t.function.name)).toEqual(['handoff_to_human']);
    expect(JSON.stringify(lastBody().messages)).not.toContain(TOOL_RESULTS_ARE_DATA);
  });
});

describe('reading calls', () => {
  it('given a model that calls the action, when its reply is read, then the call comes back raw with its id and no answer', async () => {
    fake.reply = () => ({ content: null, toolCalls: [{ name: 'lookup_order', arguments: '{"order_id":"4411"}' }] });
    const response = await llm().complete(ask());
    expect(response.toolCalls).toEqual([{ id: 'call_0', name: 'lookup_order', arguments: '{"order_id":"4411"}' }]);
    expect(response.text).toBe('');
    expect(response.handoff).toBeUndefined();
  });

  it('given a streamed reply calling the action, when it is read, then the argument fragments are put together', async () => {
    fake.reply = () => ({ content: null, toolCalls: [{ name: 'lookup_order', arguments: '{"order_id":"4411"}' }] });
    const deltas: string[] = [];
    const response = await llm().complete(ask({ onDelta: (t) => deltas.push(t) }));
    expect(response.toolCalls).toEqual([{ id: 'call_0', name: 'lookup_order', arguments: '{"order_id":"4411"}' }]);
  });

  it('given a model that calls the action and hands off at once, when read, then the handoff wins', async () => {
    fake.reply = () => ({ content: null, toolCalls: [{ name: 'lookup_order', arguments: '{}' }, { name: 'handoff_to_human', arguments: '{"reason":"angry"}' }] });
    const response = await llm().complete(ask());
    expect(response).toMatchObject({ handoff: true, text: 'A colleague will help.' });
    expect(response.toolCalls).toBeUndefined();
  });
});

describe('the transcript', () => {
  it('given an earlier call and its result, when asked again, then they follow the messages as an assistant tool call and a tool message', async () => {
    fake.reply = 'Order 4411 ships tomorrow.';
    const response = await llm().complete(
      ask({ toolTranscript: [{ calls: [{ id: 'call_0', name: 'lookup_order', arguments: '{"order_id":"4411"}' }], results: [{ callId: 'call_0', content: '{"status":"packed"}' }] }] }),
    );
    expect(response.text).toBe('Order 4411 ships tomorrow.');
    const messages = lastBody().messages as unknown as Record<string, unknown>[];
    expect(messages.slice(-2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'lookup_order', arguments: '{"order_id":"4411"}' } }] },
      { role: 'tool', tool_call_id: 'call_0', content: '{"status":"packed"}' },
    ]);
  });

  it('given a grounded request with an action result, when the model answers citing no passage, then the answer is sent (the result grounds it)', async () => {
    fake.reply = '{"citations": [], "answer": "Order 4411 ships tomorrow.", "handoff": false, "handoffReason": null}';
    const response = await llm().complete(
      ask({
        passages: [{ title: 'Shipping', text: 'We ship in 3 days.', score: 1 }],
        toolTranscript: [{ calls: [{ id: 'call_0', name: 'lookup_order', arguments: '{}' }], results: [{ callId: 'call_0', content: '{"status":"packed"}' }] }],
      }),
    );
    expect(response).toMatchObject({ text: 'Order 4411 ships tomorrow.' });
    expect(response.handoff).not.toBe(true);
  });
});

describe('the builtin provider', () => {
  it('given actions offered, when it answers, then it calls none', async () => {
    const response = await createBuiltinLlm().complete(ask({ passages: [{ title: 'Orders', text: 'Orders ship in 3 days.', score: 5, coverage: 1, evidence: 1 }] }));
    expect(response.toolCalls).toBeUndefined();
  });
});
