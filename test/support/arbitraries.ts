import fc from 'fast-check';

/**
 * fast-check generators of hostile input for the parsers and the API-level fuzz tests: broken unicode,
 * deep nesting, prototype-polluting keys, and bodies shaped like the platform's with every field at and
 * around its limits.
 */

/** Strings a parser may choke on: lone surrogates, NUL, RTL marks, emoji, control characters, any code unit. */
export const hostileString = (maxLength = 80) =>
  fc.oneof(
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.array(fc.constantFrom('\u0000', '\ud800', '\udfff', '\u202e', '\ufeff', '🙂', 'é', '"', '\\', '\n', '{', '[', '\u2028'), { maxLength }).map((a) => a.join('')),
  );

/** A JSON value nested up to `maxDepth` levels in one chain of arrays and objects. */
export const nestedJson = (maxDepth = 60) =>
  fc.tuple(fc.integer({ min: 0, max: maxDepth }), fc.array(fc.boolean(), { minLength: maxDepth, maxLength: maxDepth })).map(([depth, kinds]) => {
    let value: unknown = 'leaf';
    for (let i = 0; i < depth; i++) value = kinds[i] ? [value] : { k: value };
    return value;
  });

/** JSON text (not an object: JSON.stringify cannot write an own `__proto__`) with a polluting key somewhere. */
export const pollutedJson = () =>
  fc
    .record({
      key: fc.constantFrom('__proto__', 'constructor', 'prototype'),
      depth: fc.integer({ min: 0, max: 5 }),
      inArray: fc.boolean(),
      messageShaped: fc.boolean(),
    })
    .map(({ key, depth, inArray, messageShaped }) => {
      let inner = `{"${key}":{"polluted":true,"type":"hello","text":"x","clientMessageId":"a"}}`;
      for (let i = 0; i < depth; i++) inner = inArray ? `[${inner}]` : `{"k":${inner}}`;
      const fields = messageShaped ? '"type":"message","text":"hi","clientMessageId":"c1","client_id":1,"channel_id":1,"transport":"t",' : '';
      return `{${fields}"payload":${inner}}`;
    });

/** Platform ids as they may arrive: fine ones, ones at the length limit, huge or fractional numbers, wrong types. */
export const platformIdLike = () =>
  fc.oneof(
    { weight: 4, arbitrary: fc.integer() },
    { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 40 }) },
    { weight: 2, arbitrary: fc.integer({ min: 250, max: 262 }).map((n) => 'i'.repeat(n)) },
    { weight: 1, arbitrary: fc.constantFrom(2 ** 53, 2 ** 53 + 2, -(2 ** 60), 1e300, 1.5, -0, 0) },
    { weight: 1, arbitrary: fc.constantFrom('', null, true, [], {}) },
    { weight: 1, arbitrary: hostileString(30) },
  );

/** Bodies shaped like the platform's webhooks (simple message, native inbox/outbox, status events), fields at their limits. */
export const platformBody = () =>
  fc.record(
    {
      hook_type: fc.oneof(fc.constantFrom('inbox', 'outbox', 'close_dialog', 'close_request', 'dialog_transferred', 'new_client', null), fc.jsonValue({ maxDepth: 1 })),
      type: fc.constantFrom('from_client', 'to_client', 'autoreply', 'system', null, 7),
      text: fc.oneof(
        { weight: 6, arbitrary: fc.string({ maxLength: 60 }) },
        { weight: 2, arbitrary: hostileString() },
        { weight: 1, arbitrary: fc.integer({ min: 65_530, max: 65_540 }).map((n) => 'a'.repeat(n)) },
        { weight: 1, arbitrary: fc.constantFrom(null, '', 42, ['x']) },
      ),
      client_id: platformIdLike(),
      channel_id: platformIdLike(),
      transport: fc.oneof(fc.constantFrom('telegram', 'whatsapp', 'viber'), fc.string({ maxLength: 70 }), fc.constantFrom(null, 5)),
      message_id: platformIdLike(),
      request_id: platformIdLike(),
      dialog_id: platformIdLike(),
      attachments: fc.oneof(
        fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
        fc.integer({ min: 48, max: 102 }).map((n) => Array.from({ length: n }, (_, i) => ({ link: `https://cdn.example/${i}.jpg` }))),
        fc.constantFrom(null, 'x'),
      ),
      client: fc.record(
        {
          id: platformIdLike(),
          name: fc.oneof(fc.string({ maxLength: 40 }), fc.integer({ min: 1020, max: 1030 }).map((n) => 'n'.repeat(n)), fc.constant(null)),
          phone: fc.oneof(fc.string({ maxLength: 70 }), fc.integer(), fc.constant(null)),
          assigned_name: fc.constant(null),
        },
        { requiredKeys: [] },
      ),
      event_time: fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), fc.integer(), fc.string({ maxLength: 70 }), fc.double({ noNaN: true, noDefaultInfinity: true })),
      extra_data: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
    },
    { requiredKeys: [] },
  );

/**
 * Mostly-valid customer messages (simple or native `inbox`), sometimes with one field swapped for a hostile
 * value from platformBody(): these get past the parser often enough to exercise storing and replying.
 */
export const plausibleMessage = () =>
  fc
    .tuple(
      fc.record({
        text: fc.oneof(fc.string({ minLength: 1, maxLength: 80 }), hostileString().filter((s) => s.trim() !== '')),
        client_id: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.stringMatching(/^c-[a-z0-9]{1,8}$/)),
        channel_id: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.constant('ch-1')),
        transport: fc.constantFrom('telegram', 'whatsapp', 'viber', 'sms'),
        message_id: fc.oneof(fc.uuid(), fc.integer({ min: 1, max: 2 ** 40 }), fc.constant(undefined)),
        request_id: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
        dialog_id: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
      }),
      fc.constantFrom<Record<string, unknown>>({}, { hook_type: 'inbox', type: 'from_client' }, { hook_type: 'outbox', type: 'to_client' }),
      fc.option(platformBody(), { freq: 3, nil: null }),
      fc.nat(),
    )
    .map(([base, hook, hostile, pick]) => {
      const body: Record<string, unknown> = { ...base, ...hook };
      if (hostile) {
        const keys = Object.keys(hostile);
        const key = keys[pick % Math.max(1, keys.length)];
        if (key !== undefined) body[key] = hostile[key as keyof typeof hostile];
      }
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      return body;
    });
