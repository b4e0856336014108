/**
 * What a webhook log keeps of a delivery, for the dashboard's payload view: a few harmless headers and the
 * body with every secret taken out. Pure: the route hands it the raw request and the secrets it knows of.
 */

export const REDACTED = '[redacted]';
/** Characters of redacted body kept per entry; the rest is cut (the entry says so). */
export const PAYLOAD_BODY_MAX_CHARS = 8_192;
/**
 * Characters of redacted body kept for a delivery whose signature did not verify: anyone can send those, so
 * the log keeps only enough to recognise what was sent (a platform's payload, or junk), never the body.
 */
export const REJECTED_BODY_PREFIX_CHARS = 256;
/** Bodies above this are not parsed for the log at all: parsing a megabyte would hold the event loop. */
const PARSED_BODY_MAX_BYTES = 128 * 1024;

export interface LoggedPayload {
  headers: Record<string, string>;
  /** The body as JSON text with secrets replaced, or a note saying why it is not shown. */
  body: string;
  truncated: boolean;
}

/** Headers worth seeing when a delivery fails; anything else (cookies, proxies' additions) is not kept. */
const SHOWN_HEADERS = ['content-type', 'content-length', 'user-agent'];
/** Headers whose presence matters but whose value is a credential. */
const SECRET_HEADERS = ['x-webhook-signature', 'x-hub-signature-256', 'authorization'];
/** Body keys whose values are credentials, whatever their nesting. */
const SECRET_KEY = /(token|secret|passw(or)?d|api[-_]?key|signature|authori[sz]ation|cookie|session|credential|private[-_]?key)/i;

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of SHOWN_HEADERS) {
    const v = headers[name];
    if (v !== undefined) out[name] = (Array.isArray(v) ? v.join(', ') : v).slice(0, 300);
  }
  for (const name of SECRET_HEADERS) if (headers[name] !== undefined) out[name] = REDACTED;
  return out;
}

function redactValue(value: unknown, depth: number): unknown {
  if (depth > 32) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? REDACTED : redactValue(v, depth + 1);
    return out;
  }
  return value;
}

/**
 * The body as it may be stored and shown: JSON with credential-named fields replaced, and any occurrence of a
 * known secret (the webhook secret, the signature received) replaced wherever it appears. A body that is not
 * JSON is not kept at all: there is no telling what it holds.
 */
export function redactBody(raw: Buffer, knownSecrets: readonly (string | null | undefined)[]): { body: string; truncated: boolean } {
  if (raw.length === 0) return { body: '', truncated: false };
  if (raw.length > PARSED_BODY_MAX_BYTES) return { body: `[${raw.length} bytes: too large to show]`, truncated: true };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return { body: `[not JSON: ${raw.length} bytes, not stored]`, truncated: false };
  }
  let text = JSON.stringify(redactValue(parsed, 0));
  for (const secret of knownSecrets) {
    // Short strings would blank out ordinary words; the secrets this guards against are long.
    if (secret && secret.length >= 8) text = text.split(secret).join(REDACTED);
  }
  if (text.length <= PAYLOAD_BODY_MAX_CHARS) return { body: text, truncated: false };
  return { body: text.slice(0, PAYLOAD_BODY_MAX_CHARS), truncated: true };
}

export function loggedPayload(
  raw: Buffer,
  headers: Record<string, string | string[] | undefined>,
  knownSecrets: readonly (string | null | undefined)[],
): LoggedPayload {
  return { headers: redactHeaders(headers), ...redactBody(raw, knownSecrets) };
}

/** What is kept of an unauthenticated delivery: the same redaction, cut to a short prefix. */
export function rejectedPayload(
  raw: Buffer,
  headers: Record<string, string | string[] | undefined>,
  knownSecrets: readonly (string | null | undefined)[],
): LoggedPayload {
  const { body, truncated } = redactBody(raw, knownSecrets);
  if (body.length <= REJECTED_BODY_PREFIX_CHARS) return { headers: redactHeaders(headers), body, truncated };
  return { headers: redactHeaders(headers), body: body.slice(0, REJECTED_BODY_PREFIX_CHARS), truncated: true };
}
