import { describe, expect, it } from 'vitest';
import { actionsDecider } from '../../src/domain/actions/decider.js';
import { actionFields, checkArguments, mapResponse, redactArguments, renderRequest, type ActionFieldsInput } from '../../src/domain/actions/definition.js';
import { DomainError } from '../../src/domain/errors.js';

/** Malformed and hostile inputs against an action's definition and its calls: each must be refused before any call. */

const cancel: ActionFieldsInput = {
  name: 'cancel_order',
  description: 'Cancels an order',
  parameters: { type: 'object', properties: { order_id: { type: 'string' }, part: { type: 'string' }, note: { type: 'string' } }, required: ['order_id'] },
  method: 'POST',
  urlTemplate: 'https://shop.example/orders/{order_id}/cancel',
  mode: 'confirm',
  sampleResponse: { ok: true },
};
const def = actionFields.parse(cancel);

describe('a path argument that would climb out of its place in the address', () => {
  it.each(['..', '.'])('given the model sends order_id %j, then the call is refused before it is made', (value) => {
    const check = checkArguments(def, { order_id: value }, {});
    expect(check.ok).toBe(false);
    expect(check).toMatchObject({ error: expect.stringContaining('order_id') });
  });

  it('given two path parameters side by side that together make "..", then the call is refused', () => {
    const joined = actionFields.parse({ ...cancel, urlTemplate: 'https://shop.example/orders/{order_id}{part}/cancel' });
    expect(checkArguments(joined, { order_id: '.', part: '.' }, {}).ok).toBe(false);
  });

  it('given ordinary values with dots (a version, an order "4.1"), then they pass', () => {
    expect(checkArguments(def, { order_id: '4.1' }, {})).toEqual({ ok: true, args: { order_id: '4.1' } });
    expect(checkArguments(def, { order_id: '...' }, {})).toEqual({ ok: true, args: { order_id: '...' } });
  });
});

describe('a path argument that names another place', () => {
  it.each(['@evil.example', 'evil.example/../x', '//evil.example', 'a?admin=1#', '\\evil.example', '%2F..%2F'])('given order_id %j, then it stays inside its segment of the same host', (value) => {
    const check = checkArguments(def, { order_id: value }, {});
    expect(check.ok).toBe(true);
    const url = new URL(renderRequest(def, check.ok ? check.args : {}).url);
    expect(url.host).toBe('shop.example');
    expect(url.pathname).toMatch(/^\/orders\/[^/]+\/cancel$/);
    expect(url.search).toBe('');
  });
});

describe('a template whose host a parameter could fill', () => {
  const save = (urlTemplate: string) => () =>
    actionsDecider.decide(
      { type: 'CreateAction', companyId: '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001', actionId: 'aaaaaaaa-0000-4000-8000-000000000001', fields: { ...cancel, urlTemplate }, headers: [], by: 'user:u1', now: '2025-01-01T10:00:00.000Z' },
      actionsDecider.initialState,
    );

  it.each(['https:///{order_id}/cancel', 'https:////{order_id}', 'https://@/{order_id}'])('given %s, then it is refused at save', (urlTemplate) => {
    expect(save(urlTemplate)).toThrow(DomainError);
  });

  it('given a definition stored before that check, then a call whose rendered host differs from the template is refused', () => {
    const old = { ...def, urlTemplate: 'https:///{order_id}/cancel' };
    expect(checkArguments(old, { order_id: 'evil.example' }, {}).ok).toBe(false);
  });
});

describe("what the model reads of a response that is not the JSON the company mapped", () => {
  it('given responseFields and an HTML error page, then the model reads none of the page', () => {
    const page = '<html><body>Internal error at db-7.internal: password=hunter2</body></html>';
    const mapped = mapResponse({ responseFields: ['status'], maxResponseChars: 2000 }, page);
    expect(mapped).not.toContain('hunter2');
    expect(mapped).not.toContain('db-7');
  });

  it('given no responseFields, then a text answer is read as text, capped', () => {
    expect(mapResponse({ responseFields: [], maxResponseChars: 100 }, 'plain words')).toBe('plain words');
  });
});

describe('the arguments a waiting call is recorded with', () => {
  it('given a valid 1500-character note, then it is recorded whole: the confirmed or approved call runs from this record', () => {
    const note = 'n'.repeat(1500);
    expect(redactArguments(def, { order_id: '1', note })).toEqual({ order_id: '1', note });
  });
});
