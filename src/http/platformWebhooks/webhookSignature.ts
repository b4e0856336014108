import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signature per the spec: HMAC-SHA256 of the exact raw body with the shared secret, sent
 * as `sha256=<hex>` in `x-webhook-signature` or `x-hub-signature-256`.
 */

export type SignatureHeaders = {
  'x-webhook-signature'?: string | string[] | undefined;
  'x-hub-signature-256'?: string | string[] | undefined;
};

export type SignatureVerdict = { ok: true } | { ok: false; reason: 'missing' | 'malformed' | 'mismatch' };

const SIGNATURE_HEADERS = ['x-webhook-signature', 'x-hub-signature-256'] as const;
const SIGNATURE_FORMAT = /^sha256=([0-9a-fA-F]{64})$/;

function digest(body: Buffer | string, secret: string): Buffer {
  return createHmac('sha256', secret).update(body).digest();
}

/** The header value a sender puts on `body`; used by tests and the benchmark to act as the platform. */
export function signWebhookBody(body: Buffer | string, secret: string): string {
  return `sha256=${digest(body, secret).toString('hex')}`;
}

/**
 * Verifies the signature over the raw bytes as received (never a re-serialised body).
 *
 * - No header at all: `missing`. A header that is empty, repeated, lacks the `sha256=` prefix or
 *   does not carry exactly 64 hex digits: `malformed`. Otherwise the decoded bytes are compared
 *   with the expected digest by `timingSafeEqual` on two 32-byte buffers: `mismatch` when they
 *   differ. Hex case is irrelevant because the bytes, not the text, are compared.
 * - When both headers are sent, both must verify: accepting the better of two would let a
 *   forged header ride along with nothing to gain for a genuine sender.
 * - An empty secret verifies nothing (`mismatch`): an HMAC keyed with "" is forgeable by anyone.
 *   The HTTP layer is expected to answer WEBHOOK_SECRET_NOT_CONFIGURED before calling this.
 */
export function verifyWebhookSignature(rawBody: Buffer, headers: SignatureHeaders, secret: string): SignatureVerdict {
  const presented: Array<string | string[]> = [];
  for (const name of SIGNATURE_HEADERS) {
    const value = headers[name];
    if (value !== undefined) presented.push(value);
  }
  if (presented.length === 0) return { ok: false, reason: 'missing' };

  const candidates: Buffer[] = [];
  for (const value of presented) {
    // A repeated header is ambiguous (which one did the sender mean?), so it is refused.
    const single = Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
    const match = single === undefined ? null : SIGNATURE_FORMAT.exec(single);
    if (!match) return { ok: false, reason: 'malformed' };
    candidates.push(Buffer.from(match[1]!, 'hex'));
  }

  const expected = digest(rawBody, secret);
  // Every candidate is compared, without short-circuit, so timing does not reveal which failed.
  let allMatch = secret.length > 0;
  for (const candidate of candidates) {
    const equal = candidate.length === expected.length && timingSafeEqual(candidate, expected);
    allMatch = equal && allMatch;
  }
  return allMatch ? { ok: true } : { ok: false, reason: 'mismatch' };
}
