import { describe, expect, it } from 'vitest';
import { actionFields, checkArguments, definitionProblems, mapResponse, redactArguments, renderRequest, toolFor } from '../../src/domain/actions/definition.js';

const orderLookup = actionFields.parse({
  name: 'lookup_order',
  description: 'Finds an order by its number',
  parameters: {
    type: 'object',
    properties: {
      order_id: { type: 'string', pattern: '[0-9]{1,10}' },
      customer: { type: 'string' },
      include_items: { type: 'boolean' },
      limit: { type: 'integer', minimum: 1, maximum: 10 },
    },
    required: ['order_id', 'customer'],
  },
  identity: { customer: 'platform.clientId' },
  method: 'GET',
  urlTemplate: 'https://shop.example/orders/{order_id}',
  responseFields: ['status', 'items.0.name'],
  mode: 'auto',
  sampleResponse: { status: 'shipped' },
});

describe('an action definition', () => {
  it('given a template naming an undeclared parameter, then it is a problem', () => {
    expect(definitionProblems({ ...orderLookup, urlTemplate: 'https://x.example/{nope}' })).toEqual(['urlTemplate: {nope} is not a parameter']);
    expect(definitionProblems(orderLookup)).toEqual([]);
  });

  it('offers the model only the parameters it may fill', () => {
    const tool = toolFor(orderLookup);
    expect(Object.keys(tool.parameters.properties)).toEqual(['order_id', 'include_items', 'limit']);
    expect(tool.parameters.required).toEqual(['order_id']);
  });
});

describe('a call', () => {
  const identity = { 'platform.clientId': 'client-77' };

  it('given valid arguments, then the service fills the identity parameter', () => {
    expect(checkArguments(orderLookup, { order_id: '4411' }, identity)).toEqual({ ok: true, args: { order_id: '4411', customer: 'client-77' } });
  });

  it('given the model sets an identity parameter (a prompt-injected client id), then it is refused', () => {
    expect(checkArguments(orderLookup, { order_id: '4411', customer: 'someone-else' }, identity)).toEqual({ ok: false, error: 'customer is filled by the service and cannot be given' });
  });

  it('given a customer without the identity, then it is refused', () => {
    expect(checkArguments(orderLookup, { order_id: '4411' }, {})).toMatchObject({ ok: false, error: "the customer's platform.clientId is not verified" });
  });

  it.each([
    [{ order_id: 4411 }, 'order_id: must be a string'],
    [{ order_id: '44a' }, 'order_id: does not match the expected format'],
    [{ order_id: '1', limit: 11 }, 'limit: at most 10'],
    [{ order_id: '1', limit: 1.5 }, 'limit: must be a whole number'],
    [{ order_id: '1', include_items: 'yes' }, 'include_items: must be true or false'],
    [{ order_id: '1', extra: 1 }, 'extra is not a parameter'],
    [{}, 'order_id is required'],
    [[], 'arguments must be an object'],
  ])('given %j, then it is refused: %s', (args, error) => {
    expect(checkArguments(orderLookup, args, identity)).toEqual({ ok: false, error });
  });

  it('renders a GET with the path argument encoded and the rest as query', () => {
    expect(renderRequest(orderLookup, { order_id: 'a/b c', customer: 'c 1' })).toEqual({ method: 'GET', url: 'https://shop.example/orders/a%2Fb%20c?customer=c+1', body: null });
  });

  it('renders a POST with the unused arguments as body', () => {
    expect(renderRequest({ method: 'POST', urlTemplate: 'https://shop.example/orders/{order_id}/cancel' }, { order_id: '1', reason: 'late' })).toEqual({
      method: 'POST',
      url: 'https://shop.example/orders/1/cancel',
      body: { reason: 'late' },
    });
  });

  it('maps the response to the chosen fields, capped', () => {
    expect(mapResponse(orderLookup, JSON.stringify({ status: 'shipped', secretNote: 'x', items: [{ name: 'Mug' }] }))).toBe('{"status":"shipped","items.0.name":"Mug"}');
    expect(mapResponse({ responseFields: [], maxResponseChars: 100 }, 'x'.repeat(500))).toHaveLength(100);
  });

  it('records identity values by their source only', () => {
    expect(redactArguments(orderLookup, { order_id: '4411', customer: 'client-77' })).toEqual({ order_id: '4411', customer: '[platform.clientId]' });
  });
});

describe('attack: a catastrophic parameter pattern (nested repetition), checked against what the model sends', () => {
  const pinned = actionFields.parse({ ...orderLookup, parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '(a+)+b' } }, required: ['order_id'] }, identity: {} });

  it('given "(a+)+b" and the longest argument a call takes (2,000 characters: 1,999 a\'s and a "c"), then it is refused at once, the same way every time', () => {
    // A backtracking engine tries 2^1999 ways to split the a's before it gives up; a linear one reads them once.
    const started = performance.now();
    const verdicts = Array.from({ length: 3 }, () => checkArguments(pinned, { order_id: `${'a'.repeat(1_999)}c` }, {}));
    expect(verdicts).toEqual(Array(3).fill({ ok: false, error: 'order_id: does not match the expected format' }));
    expect(checkArguments(pinned, { order_id: `${'a'.repeat(1_999)}b` }, {})).toEqual({ ok: true, args: { order_id: `${'a'.repeat(1_999)}b` } });
    // Generous for a loaded 2-core machine: the backtracking engine took 21 s at 31 characters, and never ends at 2,000.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('given a longer argument than any parameter takes, then it is refused for its length before any pattern runs', () => {
    expect(checkArguments(pinned, { order_id: `${'a'.repeat(5_000)}c` }, {})).toEqual({ ok: false, error: 'order_id: at most 2000 characters' });
  });
});
