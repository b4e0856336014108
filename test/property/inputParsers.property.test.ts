import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyWebhookJson, classifyWebhookPayload, MAX_TEXT_LENGTH, type WebhookPayload } from '../../src/domain/platformWebhooks/payload.js';
import { conversationEvents } from '../../src/domain/conversations/events.js';
import { parseClientFrame, WEBCHAT_MAX_TEXT_LENGTH } from '../../src/http/webchatFrames.js';
import { signWebhookBody, verifyWebhookSignature } from '../../src/http/platformWebhooks/webhookSignature.js';
import { platformBody, pollutedJson, nestedJson, hostileString } from '../support/arbitraries.js';

/**
 * Property-based tests of the input parsers: whatever arrives (any bytes, any JSON, deep nesting, huge numbers,
 * unicode, `__proto__` / `constructor` keys), each answers with a typed result and never throws.
 * fast-check prints the seed and the shrunk counterexample when a property fails; rerun with it via
 * `fc.assert(..., { seed, path })`.
 */
const KINDS: WebhookPayload['kind'][] = ['customer_message', 'operator_message', 'status_event', 'ignored', 'invalid'];

function assertTypedPayload(p: WebhookPayload) {
  expect(KINDS).toContain(p.kind);
  if (p.kind === 'invalid') expect(typeof p.issues).toBe('string');
  if (p.kind === 'customer_message' || p.kind === 'operator_message') {
    const m = p.message;
    expect(['string', 'number']).toContain(typeof m.clientId);
    expect(['string', 'number']).toContain(typeof m.channelId);
    expect(typeof m.transport).toBe('string');
    expect(m.text.length).toBeLessThanOrEqual(MAX_TEXT_LENGTH);
    // `raw` is plain JSON with no prototype-polluting key, at any depth.
    expect(JSON.stringify(m.raw)).not.toMatch(/"(__proto__|constructor|prototype)":/);
  }
}

describe('property: the webhook payload parser', () => {
  it('any string (including broken JSON and arbitrary bytes read as UTF-8) gives a typed result', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), hostileString(), fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('utf8'))), (text) => {
        assertTypedPayload(classifyWebhookJson(text));
      }),
      { numRuns: 1500 },
    );
  });

  it('any JSON value, nested or not, gives a typed result', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue({ maxDepth: 6 }), nestedJson()), (value) => {
        assertTypedPayload(classifyWebhookJson(JSON.stringify(value)));
        assertTypedPayload(classifyWebhookPayload(value));
      }),
      { numRuns: 800 },
    );
  });

  it('nesting deeper than the limit is refused as invalid, whatever the depth (no stack overflow)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 33, max: 50_000 }), fc.constantFrom('[', '{"a":'), (depth, open) => {
        const close = open === '[' ? ']' : '}';
        const text = `{"text":"hi","client_id":1,"channel_id":1,"transport":"t","x":${open.repeat(depth)}1${close.repeat(depth)}}`;
        const p = classifyWebhookJson(text);
        expect(p.kind).toBe('invalid');
      }),
      { numRuns: 60 },
    );
  });

  it('a body with __proto__, constructor or prototype anywhere is invalid and pollutes nothing', () => {
    fc.assert(
      fc.property(pollutedJson(), (text) => {
        const p = classifyWebhookJson(text);
        expect(p.kind === 'invalid' || p.kind === 'ignored').toBe(true);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('a platform-shaped body that is accepted fits the MessageReceived event it becomes (ids, text, attachments, client)', () => {
    // The parser's limits must not be looser than the event schema's, or an accepted webhook fails to store (a 500).
    fc.assert(
      fc.property(platformBody(), (body) => {
        const p = classifyWebhookPayload(body);
        assertTypedPayload(p);
        if (p.kind !== 'customer_message' && p.kind !== 'operator_message') return;
        const m = p.message;
        const dedupeKey = m.messageId !== undefined ? `msg:${String(m.messageId)}` : `body:${'0'.repeat(64)}`;
        const platform = Object.fromEntries(
          Object.entries({ messageId: m.messageId, requestId: m.requestId, dialogId: m.dialogId, eventTime: m.eventTime }).filter(([, v]) => v !== undefined),
        );
        const data = {
          messageId: '00000000-0000-4000-8000-000000000000',
          dedupeKey,
          dedupeUntil: null,
          text: m.text,
          ...(m.attachments ? { attachments: m.attachments } : {}),
          ...(m.client ? { client: m.client } : {}),
          platform,
          at: '2025-01-01T00:00:00.000Z',
        };
        const parsed = conversationEvents.MessageReceived.safeParse(data);
        expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.map((i) => i.path.join('.') + ': ' + i.message))).toBe(true);
        const customer = conversationEvents.ConversationStarted.shape.customer.safeParse({
          clientId: m.clientId,
          channelId: m.channelId,
          transport: m.transport,
          ...(m.client?.name ? { name: m.client.name } : {}),
        });
        expect(customer.success).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });
});

describe('property: the webhook signature check', () => {
  const header = fc.oneof(
    fc.constant(undefined),
    fc.string({ maxLength: 80 }),
    fc.string({ unit: 'binary', maxLength: 80 }),
    fc.stringMatching(/^sha256=[0-9a-fA-F]{0,70}$/),
    fc.array(fc.string({ maxLength: 80 }), { maxLength: 3 }),
  );

  it('any body, secret and headers give ok or a reason, never a throw; ok only with the right digest', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 500 }), fc.string({ maxLength: 60 }), header, header, (bytes, secret, a, b) => {
        const body = Buffer.from(bytes);
        const verdict = verifyWebhookSignature(body, { 'x-webhook-signature': a, 'x-hub-signature-256': b }, secret);
        if (verdict.ok) {
          const expected = signWebhookBody(body, secret).toLowerCase();
          for (const h of [a, b]) if (h !== undefined) expect(String(h).toLowerCase()).toBe(expected);
        } else {
          expect(['missing', 'malformed', 'mismatch']).toContain(verdict.reason);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('the sender\'s signature verifies in either header and any hex case; one changed byte of body or digest does not', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 500 }), fc.string({ minLength: 1, maxLength: 60 }), fc.nat(), fc.boolean(), (bytes, secret, at, upper) => {
        const body = Buffer.from(bytes);
        let signature = signWebhookBody(body, secret);
        if (upper) signature = `sha256=${signature.slice(7).toUpperCase()}`;
        expect(verifyWebhookSignature(body, { 'x-webhook-signature': signature }, secret)).toEqual({ ok: true });
        expect(verifyWebhookSignature(body, { 'x-hub-signature-256': signature }, secret)).toEqual({ ok: true });
        const tampered = Buffer.from(body);
        tampered[at % tampered.length] = tampered[at % tampered.length]! ^ 0x01;
        expect(verifyWebhookSignature(tampered, { 'x-webhook-signature': signature }, secret)).toEqual({ ok: false, reason: 'mismatch' });
        const i = 7 + (at % 64);
        const flipped = signature.slice(0, i) + (signature[i] === '0' ? '1' : '0') + signature.slice(i + 1);
        expect(verifyWebhookSignature(body, { 'x-webhook-signature': flipped }, secret)).toEqual({ ok: false, reason: 'mismatch' });
      }),
      { numRuns: 500 },
    );
  });
});

describe('property: the web-chat frame parser', () => {
  const assertTypedFrame = (f: ReturnType<typeof parseClientFrame>) => {
    expect(['hello', 'message', 'error']).toContain(f.type);
    if (f.type === 'error') {
      expect(['BAD_FRAME', 'VALIDATION_ERROR']).toContain(f.code);
      expect(f.message.length).toBeGreaterThan(0);
      expect(f.message.length).toBeLessThan(200);
    }
    if (f.type === 'message') {
      expect(f.text.trim()).not.toBe('');
      expect(f.text.length).toBeLessThanOrEqual(WEBCHAT_MAX_TEXT_LENGTH);
      expect(f.clientMessageId).toMatch(/^[A-Za-z0-9_.:-]{1,100}$/);
    }
    if (f.type === 'hello') {
      for (const v of [f.visitorId, f.visitorToken]) if (v !== undefined) expect(typeof v).toBe('string');
    }
  };

  it('any bytes, text or binary, give a frame or an error frame', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), fc.boolean(), (bytes, isBinary) => {
        const f = parseClientFrame(Buffer.from(bytes), isBinary);
        assertTypedFrame(f);
        if (isBinary) expect(f).toMatchObject({ type: 'error', code: 'BAD_FRAME' });
      }),
      { numRuns: 1000 },
    );
  });

  it('any JSON, frame-shaped or not, nested or polluted, gives a typed result', () => {
    const frameLike = fc.record(
      {
        type: fc.oneof(fc.constantFrom('hello', 'message', 'ack', '', 'HELLO', '__proto__', 'constructor'), fc.jsonValue({ maxDepth: 1 })),
        text: fc.oneof(fc.string({ maxLength: 60 }), hostileString(), fc.jsonValue({ maxDepth: 2 }), fc.constant(' \n\t ')),
        clientMessageId: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_.:-]{1,100}$/), fc.string({ maxLength: 120 }), fc.jsonValue({ maxDepth: 1 })),
        visitorId: fc.oneof(fc.string({ maxLength: 40 }), fc.jsonValue({ maxDepth: 2 })),
        visitorToken: fc.oneof(fc.string({ maxLength: 40 }), fc.jsonValue({ maxDepth: 2 })),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(frameLike.map((f) => JSON.stringify(f)), fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v)), nestedJson().map((v) => JSON.stringify(v)), pollutedJson(), hostileString()), (text) => {
        assertTypedFrame(parseClientFrame(Buffer.from(text, 'utf8'), false));
        assertTypedFrame(parseClientFrame(text, false));
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 1500 },
    );
  });

  it('a type hidden behind __proto__ is not a frame type', () => {
    expect(parseClientFrame('{"__proto__":{"type":"hello"}}', false)).toMatchObject({ type: 'error', code: 'BAD_FRAME' });
    expect(parseClientFrame('{"type":"message","__proto__":{"text":"hi","clientMessageId":"a"}}', false)).toMatchObject({ type: 'error', code: 'VALIDATION_ERROR' });
  });
});
