import { describe, expect, it } from 'vitest';
import { actionsDecider, type ActionCommand } from '../../../../src/domain/actions/decider.js';
import { ACTION_LIMITS, actionFields, type ActionFieldsInput } from '../../../../src/domain/actions/definition.js';
import { actionEvents, type ActionEvent } from '../../../../src/domain/actions/events.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(actionsDecider);
const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const other = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0002';
const id = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, '0')}`;
const at = '2025-01-01T10:00:00.000Z';
const later = '2025-01-02T10:00:00.000Z';
const by = 'user:u1';

const lookup: ActionFieldsInput = {
  name: 'lookup_order',
  description: 'Finds an order by its number',
  parameters: { type: 'object', properties: { order_id: { type: 'string' }, customer: { type: 'string' } }, required: ['order_id'] },
  identity: { customer: 'platform.clientId' },
  method: 'GET',
  urlTemplate: 'https://shop.example/orders/{order_id}',
  mode: 'auto',
  sampleResponse: { status: 'shipped' },
};
const sealed = { name: 'Authorization', sealedValue: 'v1:sealed-token' };

const create = (n: number, fields: Partial<ActionFieldsInput> = {}, headers = [sealed]): ActionCommand => ({
  type: 'CreateAction',
  companyId: company,
  actionId: id(n),
  fields: { ...lookup, ...fields },
  headers,
  by,
  now: at,
});
const created = (n: number, fields: Partial<ActionFieldsInput> = {}, headers = [sealed]): ActionEvent => ({
  type: 'ActionCreated',
  data: { ...actionFields.parse({ ...lookup, ...fields }), headers, actionId: id(n), companyId: company, by, at },
});
const update = (n: number, changes: Partial<ActionFieldsInput>, headers?: { name: string; sealedValue?: string }[]): ActionCommand => ({
  type: 'UpdateAction',
  companyId: company,
  actionId: id(n),
  changes,
  ...(headers ? { headers } : {}),
  by,
  now: later,
});
const updated = (n: number, changes: Record<string, unknown>): ActionEvent => ({
  type: 'ActionUpdated',
  data: { actionId: id(n), changes, by, at: later } as Extract<ActionEvent, { type: 'ActionUpdated' }>['data'],
});

describe('actions decider: create', () => {
  it('given no actions, when one is created, then it is recorded whole, with the defaults and the sealed header', () => {
    const state = spec.given([]).when(create(1)).then([created(1)]);
    const stored = state.actions.get(id(1))!;
    expect(stored).toMatchObject({ name: 'lookup_order', timeoutMs: 10_000, active: true, approverRoles: null, headers: [sealed] });
  });

  it('given an action, when another takes its name (in any case), then CONFLICT', () => {
    spec.given([created(1)]).when(create(2, { name: 'Lookup_Order' })).thenThrows('CONFLICT');
  });

  it('given a deleted action, when its name is used again, then it is created', () => {
    const deleted: ActionEvent = { type: 'ActionDeleted', data: { actionId: id(1), by, at } };
    spec.given([created(1), deleted]).when(create(2)).then([created(2)]);
  });

  it('given 50 actions, when the 51st is created, then QUOTA_EXCEEDED', () => {
    const history = Array.from({ length: 50 }, (_, i) => created(i + 1, { name: `action_${i}` }));
    spec.given(history).when(create(99, { name: 'one_more' })).thenThrows('QUOTA_EXCEEDED');
  });

  it('when the definition breaks the schema subset, then VALIDATION_ERROR', () => {
    const refused: Partial<ActionFieldsInput>[] = [
      { name: 'has space' },
      { parameters: { type: 'object', properties: { q: { type: 'array' } }, required: [] } as never },
      { parameters: { type: 'object', properties: { q: { type: 'string', format: 'email' } }, required: [] } as never },
      { parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['missing'] } },
      { parameters: { type: 'object', properties: { q: { type: 'string', pattern: '([' } }, required: [] }, identity: {}, urlTemplate: 'https://shop.example/q' },
      { parameters: { type: 'object', properties: { q: { type: 'integer', enum: ['a'] } }, required: [] }, identity: {}, urlTemplate: 'https://shop.example/q' },
      { parameters: { type: 'object', properties: { q: { type: 'boolean', maxLength: 3 } }, required: [] }, identity: {}, urlTemplate: 'https://shop.example/q' },
      { timeoutMs: 60_000 },
      { mode: 'sometimes' as never },
    ];
    for (const fields of refused) spec.given([]).when(create(1, fields)).thenThrows('VALIDATION_ERROR');
  });

  it('when a parameter pattern needs a backtracking engine (a backreference, a lookaround), then VALIDATION_ERROR naming the parameter and what is not supported', () => {
    for (const [pattern, why] of [
      ['(a)\\1', 'backreference'],
      ['(?=[0-9])[0-9a-z]+', 'lookahead and lookbehind'],
      ['(?!x)[a-z]+', 'lookahead and lookbehind'],
      ['(?<=#)[0-9]+', 'lookahead and lookbehind'],
    ] as const) {
      const fields = { parameters: { type: 'object' as const, properties: { q: { type: 'string' as const, pattern } }, required: [] }, identity: {}, urlTemplate: 'https://shop.example/q' };
      expect(() => actionsDecider.decide(create(1, fields), actionsDecider.initialState), pattern).toThrowError(
        expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringMatching(new RegExp(`^parameters\\.q\\.pattern: .*${why}`)) }),
      );
    }
  });

  it('when a parameter pattern is too large for the pattern engine (a repeat count past 1000, or a program past the limit), then VALIDATION_ERROR naming it', () => {
    for (const pattern of ['[0-9]{1001}', '[a-z]{250}[0-9]{250}']) {
      const fields = { parameters: { type: 'object' as const, properties: { q: { type: 'string' as const, pattern } }, required: [] }, identity: {}, urlTemplate: 'https://shop.example/q' };
      expect(() => actionsDecider.decide(create(1, fields), actionsDecider.initialState), pattern).toThrowError(
        expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^parameters\.q\.pattern: /) }),
      );
    }
  });

  it('when a parameter pattern uses the syntax both engines share, then it is saved: classes, counts, groups, named groups, alternatives, \\u escapes', () => {
    for (const pattern of ['[0-9]{1,10}', '\\d{4}-\\d{2}-\\d{2}', '(?<year>\\d{4})', '[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}', 'yes|no', '[\\w.+-]+@[\\w-]+\\.[a-z]{2,}', '\\u00e9t\\u00e9', '\\p{L}+', '(a+)+b']) {
      const fields = { parameters: { type: 'object' as const, properties: { q: { type: 'string' as const, pattern } }, required: [] }, identity: {}, urlTemplate: 'https://shop.example/q' };
      expect(actionsDecider.decide(create(1, fields), actionsDecider.initialState).map((e) => e.type), pattern).toEqual(['ActionCreated']);
    }
  });

  it('when a number parameter has a minimum above its maximum (nothing could pass), then VALIDATION_ERROR naming it', () => {
    const fields = { parameters: { type: 'object' as const, properties: { n: { type: 'integer' as const, minimum: 10, maximum: 1 } }, required: [] }, identity: {}, urlTemplate: 'https://shop.example/q' };
    spec.given([]).when(create(1, fields)).thenThrows('VALIDATION_ERROR', /parameters\.n: minimum is greater than maximum/);
    spec.given([]).when(create(1, { ...fields, parameters: { ...fields.parameters, properties: { n: { type: 'integer', minimum: 1, maximum: 1 } } } })).then([created(1, { ...fields, parameters: { ...fields.parameters, properties: { n: { type: 'integer', minimum: 1, maximum: 1 } } } })]);
  });

  it('when the sample response is nested past the depth (even 100,000 levels) or is too long, then VALIDATION_ERROR naming it, on create and on update', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    for (const sampleResponse of [deep, nestedArrays(ACTION_LIMITS.jsonDepth + 1), 'x'.repeat(ACTION_LIMITS.sampleResponseChars)]) {
      spec.given([]).when(create(1, { sampleResponse: sampleResponse as never })).thenThrows('VALIDATION_ERROR', /^sampleResponse: /);
      spec.given([created(1)]).when(update(1, { sampleResponse: sampleResponse as never })).thenThrows('VALIDATION_ERROR', /^sampleResponse: /);
    }
    spec.given([]).when(create(1, { sampleResponse: nestedArrays(ACTION_LIMITS.jsonDepth) as never })).then([created(1, { sampleResponse: nestedArrays(ACTION_LIMITS.jsonDepth) as never })]);
  });

  it('when the URL template names an undeclared parameter, puts one in the host, or is not an http(s) address, then VALIDATION_ERROR', () => {
    for (const urlTemplate of ['https://shop.example/orders/{nope}', 'https://{order_id}.shop.example/x', 'ftp://shop.example/{order_id}', '/orders/{order_id}']) {
      expect(() => actionsDecider.decide(create(1, { urlTemplate }), actionsDecider.initialState), urlTemplate).toThrowError(
        expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringContaining('urlTemplate') }),
      );
    }
  });

  it('when an identity parameter is undeclared or not a string, then VALIDATION_ERROR', () => {
    spec.given([]).when(create(1, { identity: { who: 'webchat.email' } })).thenThrows('VALIDATION_ERROR');
    spec
      .given([])
      .when(create(1, { parameters: { type: 'object', properties: { order_id: { type: 'string' }, customer: { type: 'integer' } }, required: [] } }))
      .thenThrows('VALIDATION_ERROR');
  });

  it('when approver roles, a holding reply or an approval timeout come with a mode other than approve, then VALIDATION_ERROR', () => {
    spec.given([]).when(create(1, { mode: 'auto', approverRoles: ['owner'] })).thenThrows('VALIDATION_ERROR');
    spec.given([]).when(create(1, { mode: 'confirm', holdingReply: 'Hold on' })).thenThrows('VALIDATION_ERROR');
    spec.given([]).when(create(1, { mode: 'auto', approvalTimeoutMinutes: 5 })).thenThrows('VALIDATION_ERROR');
    spec.given([]).when(create(1, { mode: 'approve', approverRoles: ['owner'], holdingReply: 'Hold on' })).then([created(1, { mode: 'approve', approverRoles: ['owner'], holdingReply: 'Hold on' })]);
  });

  it('when headers repeat a name, name one the service sets, or are too many, then VALIDATION_ERROR', () => {
    spec.given([]).when(create(1, {}, [sealed, { name: 'authorization', sealedValue: 'v1:x' }])).thenThrows('VALIDATION_ERROR');
    spec.given([]).when(create(1, {}, [{ name: 'Idempotency-Key', sealedValue: 'v1:x' }])).thenThrows('VALIDATION_ERROR');
    spec.given([]).when(create(1, {}, Array.from({ length: 21 }, (_, i) => ({ name: `X-H${i}`, sealedValue: 'v1:x' })))).thenThrows('VALIDATION_ERROR');
  });
});

describe('actions decider: update and delete', () => {
  it('given an action, when fields change, then only what changed is recorded; no change, no event', () => {
    spec.given([created(1)]).when(update(1, { description: 'Looks an order up', timeoutMs: 10_000 })).then([updated(1, { description: 'Looks an order up' })]);
    spec.given([created(1)]).when(update(1, { description: lookup.description, method: 'GET' })).then([]);
  });

  it('given an update, when it is read back, then the fields it did not name keep their values (no defaults on read)', () => {
    const history = [created(1, { timeoutMs: 3000, active: false }), updated(1, { description: 'New words' })];
    const reread = history.map((e) => ({ ...e, data: actionEvents[e.type].parse(e.data) }) as ActionEvent);
    const state = reread.reduce(actionsDecider.evolve, actionsDecider.initialState);
    expect(state.actions.get(id(1))).toMatchObject({ description: 'New words', timeoutMs: 3000, active: false });
  });

  it('given a header, when the update names it without a value, then it keeps its sealed value; a new header without one is refused', () => {
    spec
      .given([created(1)])
      .when(update(1, {}, [{ name: 'Authorization' }, { name: 'X-Shop', sealedValue: 'v1:shop' }]))
      .then([updated(1, { headers: [sealed, { name: 'X-Shop', sealedValue: 'v1:shop' }] })]);
    spec.given([created(1)]).when(update(1, {}, [{ name: 'X-New' }])).thenThrows('VALIDATION_ERROR');
    spec.given([created(1)]).when(update(1, {}, [])).then([updated(1, { headers: [] })]);
  });

  it('given an approve action, when it leaves the approve mode, then who approves is forgotten', () => {
    spec
      .given([created(1, { mode: 'approve', approverRoles: ['admin'] })])
      .when(update(1, { mode: 'confirm' }))
      .then([updated(1, { mode: 'confirm', approverRoles: null })]);
    spec.given([created(1)]).when(update(1, { holdingReply: 'Wait' })).thenThrows('VALIDATION_ERROR');
  });

  it('given two actions, when one is renamed to the other, then CONFLICT; a template that names no parameter any more is checked', () => {
    spec.given([created(1), created(2, { name: 'other' })]).when(update(2, { name: 'lookup_order' })).thenThrows('CONFLICT');
    spec.given([created(1)]).when(update(1, { urlTemplate: 'https://shop.example/{missing}' })).thenThrows('VALIDATION_ERROR');
  });

  it("an unknown action, or another company's stream, is NOT_FOUND", () => {
    spec.given([]).when({ type: 'DeleteAction', companyId: company, actionId: id(5), by, now: at }).thenThrows('NOT_FOUND');
    spec.given([]).when(update(5, { description: 'x' })).thenThrows('NOT_FOUND');
    spec.given([created(1)]).when({ type: 'DeleteAction', companyId: other, actionId: id(1), by, now: at }).thenThrows('NOT_FOUND');
  });

  it('given an action, when it is deleted, then ActionDeleted', () => {
    spec.given([created(1)]).when({ type: 'DeleteAction', companyId: company, actionId: id(1), by, now: later }).then([{ type: 'ActionDeleted', data: { actionId: id(1), by, at: later } }]);
  });
});

describe('header secrets stay with their address', () => {
  const moved = 'https://elsewhere.example/orders/{order_id}';

  it('given an action with a header, when only its address moves to another host, then VALIDATION_ERROR: the header value must come again', () => {
    spec.given([created(1)]).when(update(1, { urlTemplate: moved })).thenThrows('VALIDATION_ERROR');
    spec.given([created(1)]).when(update(1, { urlTemplate: moved }, [{ name: 'Authorization' }])).thenThrows('VALIDATION_ERROR');
    spec.given([created(1)]).when(update(1, { urlTemplate: 'http://shop.example/orders/{order_id}' })).thenThrows('VALIDATION_ERROR');
    spec.given([created(1)]).when(update(1, { urlTemplate: 'https://shop.example:8443/orders/{order_id}' })).thenThrows('VALIDATION_ERROR');
  });

  it('given an action with a header, when its address moves with the value given again (or the header removed), then both change', () => {
    const fresh = { name: 'Authorization', sealedValue: 'v1:sealed-new' };
    spec.given([created(1)]).when(update(1, { urlTemplate: moved }, [fresh])).then([updated(1, { urlTemplate: moved, headers: [fresh] })]);
    spec.given([created(1)]).when(update(1, { urlTemplate: moved }, [])).then([updated(1, { urlTemplate: moved, headers: [] })]);
    spec.given([created(1, {}, [])]).when(update(1, { urlTemplate: moved })).then([updated(1, { urlTemplate: moved })]);
  });

  it('given an action with a header, when the path changes on the same host, then the stored value stays', () => {
    spec.given([created(1)]).when(update(1, { urlTemplate: 'https://shop.example/v2/orders/{order_id}' })).then([updated(1, { urlTemplate: 'https://shop.example/v2/orders/{order_id}' })]);
    spec.given([created(1)]).when(update(1, { urlTemplate: 'https://SHOP.example:443/v2/orders/{order_id}' })).then([updated(1, { urlTemplate: 'https://SHOP.example:443/v2/orders/{order_id}' })]);
  });
});

function nestedArrays(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}
