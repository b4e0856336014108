import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhookBody, verifyWebhookSignature } from '../../src/http/platformWebhooks/webhookSignature.js';

const secret = 'whsec_test_secret';
const body = Buffer.from(JSON.stringify({ text: 'Hello', client_id: '42', channel_id: '7', transport: 'telegram' }));
const goodHex = createHmac('sha256', secret).update(body).digest('hex');
const good = `sha256=${goodHex}`;

/** A valid-looking digest of different bytes. */
function wrongHex(): string {
  return createHmac('sha256', secret).update('something else').digest('hex');
}

describe('webhook signature: HMAC-SHA256 of the raw body, sent as sha256=<hex>', () => {
  it('signWebhookBody produces sha256=<lower-case hex HMAC> for buffers and strings alike', () => {
    expect(signWebhookBody(body, secret)).toBe(good);
    expect(signWebhookBody(body.toString('utf8'), secret)).toBe(good);
    expect(signWebhookBody(body, secret)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  describe('accepted', () => {
    it('a valid signature in x-webhook-signature', () => {
      expect(verifyWebhookSignature(body, { 'x-webhook-signature': good }, secret)).toEqual({ ok: true });
    });

    it('a valid signature in x-hub-signature-256', () => {
      expect(verifyWebhookSignature(body, { 'x-hub-signature-256': good }, secret)).toEqual({ ok: true });
    });

    it('the same valid signature in both headers', () => {
      expect(
        verifyWebhookSignature(body, { 'x-webhook-signature': good, 'x-hub-signature-256': good }, secret),
      ).toEqual({ ok: true });
    });

    it('upper-case hex of the right digest (the bytes are compared, not the text)', () => {
      const upper = `sha256=${goodHex.toUpperCase()}`;
      expect(verifyWebhookSignature(body, { 'x-webhook-signature': upper }, secret)).toEqual({ ok: true });
    });

    it('a header delivered as a one-element array', () => {
      expect(verifyWebhookSignature(body, { 'x-webhook-signature': [good] }, secret)).toEqual({ ok: true });
    });

    it('an empty body, when signed as such', () => {
      const empty = Buffer.alloc(0);
      expect(verifyWebhookSignature(empty, { 'x-webhook-signature': signWebhookBody(empty, secret) }, secret)).toEqual({
        ok: true,
      });
    });
  });

  describe('rejected (each answered 401 by the HTTP layer)', () => {
    const rows: Array<[string, Record<string, string | string[]>, Buffer, 'missing' | 'malformed' | 'mismatch']> = [
      ['no signature header at all', {}, body, 'missing'],
      ['an empty header', { 'x-webhook-signature': '' }, body, 'malformed'],
      ['only the prefix', { 'x-webhook-signature': 'sha256=' }, body, 'malformed'],
      ['the hex digest without sha256=', { 'x-webhook-signature': goodHex }, body, 'malformed'],
      ['another algorithm prefix', { 'x-webhook-signature': `sha1=${goodHex}` }, body, 'malformed'],
      ['an upper-case prefix', { 'x-webhook-signature': `SHA256=${goodHex}` }, body, 'malformed'],
      ['non-hex characters', { 'x-webhook-signature': `sha256=${'z'.repeat(64)}` }, body, 'malformed'],
      ['a truncated digest', { 'x-webhook-signature': good.slice(0, -2) }, body, 'malformed'],
      ['an odd-length digest', { 'x-webhook-signature': good.slice(0, -1) }, body, 'malformed'],
      ['a digest with extra characters', { 'x-webhook-signature': `${good}00` }, body, 'malformed'],
      ['whitespace inside the value', { 'x-webhook-signature': `sha256= ${goodHex}` }, body, 'malformed'],
      ['a repeated header with two values', { 'x-webhook-signature': [good, good] }, body, 'malformed'],
      ['an empty header array', { 'x-webhook-signature': [] }, body, 'malformed'],
      ['upper-case hex of a wrong digest', { 'x-webhook-signature': `sha256=${wrongHex().toUpperCase()}` }, body, 'mismatch'],
      ['lower-case hex of a wrong digest', { 'x-webhook-signature': `sha256=${wrongHex()}` }, body, 'mismatch'],
      ['all zeros', { 'x-webhook-signature': `sha256=${'0'.repeat(64)}` }, body, 'mismatch'],
      [
        'signed with another secret',
        { 'x-webhook-signature': signWebhookBody(body, 'another-secret') },
        body,
        'mismatch',
      ],
      [
        'a one-byte change in the body',
        { 'x-webhook-signature': good },
        Buffer.from(body.toString('utf8').replace('Hello', 'Hellp')),
        'mismatch',
      ],
      ['one byte appended to the body', { 'x-webhook-signature': good }, Buffer.concat([body, Buffer.from(' ')]), 'mismatch'],
      [
        'the body re-serialised with different whitespace',
        { 'x-webhook-signature': good },
        Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8')), null, 2)),
        'mismatch',
      ],
      [
        'a valid x-webhook-signature with a forged x-hub-signature-256',
        { 'x-webhook-signature': good, 'x-hub-signature-256': `sha256=${wrongHex()}` },
        body,
        'mismatch',
      ],
      [
        'a valid x-hub-signature-256 with a malformed x-webhook-signature',
        { 'x-webhook-signature': 'garbage', 'x-hub-signature-256': good },
        body,
        'malformed',
      ],
    ];

    it.each(rows)('%s → %s', (_label, headers, rawBody, reason) => {
      expect(verifyWebhookSignature(rawBody, headers, secret)).toEqual({ ok: false, reason });
    });

    it('nothing verifies against an empty secret, not even a body signed with it', () => {
      expect(verifyWebhookSignature(body, { 'x-webhook-signature': signWebhookBody(body, '') }, '')).toEqual({
        ok: false,
        reason: 'mismatch',
      });
    });
  });
});
