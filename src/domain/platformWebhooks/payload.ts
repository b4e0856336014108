import { z } from 'zod';
import { platformIdSchema, type PlatformId } from '../platformId.js';

/**
 * What a webhook body from the messaging platform means. Pure: no I/O, no HTTP codes.
 *
 * Two families arrive on the same URL:
 * - the spec's simple inbound message `{text, client_id, channel_id, transport}` (no hook_type);
 * - the platform's native bodies, told apart by `hook_type`: `inbox` + `type: "from_client"` is a
 *   customer message, `outbox` is a message a human operator sent (recorded, never answered),
 *   `close_dialog` / `close_request` / `dialog_transferred` are status events, anything else is
 *   acknowledged and ignored.
 *
 * `classifyWebhookPayload` never throws: a body it cannot accept comes back as
 * `{kind: 'invalid', issues}` (the HTTP layer answers 400 VALIDATION_ERROR and logs it), so every
 * outcome, including the bad ones, is an ordinary value the caller must handle.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Longest accepted message text, in UTF-16 code units (64 Ki); longer is a validation error. */
export const MAX_TEXT_LENGTH = 65_536;
const MAX_ATTACHMENTS = 50;
const MAX_JSON_DEPTH = 32;

/** Keys that can reach Object.prototype through a later merge or spread; refused anywhere in a body. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export const STATUS_HOOK_TYPES = ['close_dialog', 'close_request', 'dialog_transferred'] as const;
export type StatusHookType = (typeof STATUS_HOOK_TYPES)[number];
export type StatusAction = 'session_close' | 'session_transfer_external';

/** The spec's Events table: which internal action a status hook_type triggers. */
export const STATUS_ACTIONS: Record<StatusHookType, StatusAction> = {
  close_dialog: 'session_close',
  close_request: 'session_close',
  dialog_transferred: 'session_transfer_external',
};

export interface PlatformClientInfo {
  id?: PlatformId;
  name?: string;
  phone?: string;
  email?: string;
}

export interface PlatformMessage {
  /** May be '' only when attachments carry the content. */
  text: string;
  clientId: PlatformId;
  channelId: PlatformId;
  transport: string;
  messageId?: PlatformId;
  requestId?: PlatformId;
  dialogId?: PlatformId;
  /** The native body's `type` (`from_client`, `to_client`, `autoreply`, …), as given. */
  type?: string;
  attachments?: JsonValue[];
  client?: PlatformClientInfo;
  /** As given by the platform (ISO text or epoch number); interpretation is the caller's choice. */
  eventTime?: string | number;
  /** The whole body as plain JSON, free of prototype-polluting keys; extra fields are kept here. */
  raw: JsonObject;
}

export type WebhookPayload =
  | { kind: 'customer_message'; message: PlatformMessage }
  | { kind: 'operator_message'; message: PlatformMessage }
  | {
      kind: 'status_event';
      hookType: StatusHookType;
      action: StatusAction;
      requestId: PlatformId;
      dialogId?: PlatformId;
      eventTime?: string | number;
      raw: JsonObject;
    }
  | { kind: 'ignored'; reason: string }
  | { kind: 'invalid'; issues: string };

const eventTimeSchema = z.union([z.string().max(64), z.number()], {
  error: 'expected a timestamp string or number',
});

// null is how the platform spells "absent" in many native bodies, so optional fields accept it.
const clientSchema = z.object({
  id: platformIdSchema.nullish(),
  name: z.string().max(1024).nullish(),
  phone: z.union([z.string().max(64), z.number()], { error: 'expected a string or number' }).nullish(),
  // Kept for the customer's profile when it is a string; any other value is ignored, never a reason to refuse the message.
  email: z.unknown().optional(),
});

const messageSchema = z
  .object({
    text: z.string().max(MAX_TEXT_LENGTH).nullish(),
    client_id: platformIdSchema.nullish(),
    channel_id: platformIdSchema,
    transport: z.string().min(1).max(64),
    message_id: platformIdSchema.nullish(),
    request_id: platformIdSchema.nullish(),
    dialog_id: platformIdSchema.nullish(),
    type: z.string().max(64).nullish(),
    attachments: z.array(z.unknown()).max(MAX_ATTACHMENTS).nullish(),
    client: clientSchema.nullish(),
    event_time: eventTimeSchema.nullish(),
  })
  .superRefine((m, ctx) => {
    // Some native bodies carry the client only as client.id.
    if (m.client_id == null && m.client?.id == null) {
      ctx.addIssue({ code: 'custom', path: ['client_id'], message: 'client_id is required' });
    }
    if (!m.text && (m.attachments == null || m.attachments.length === 0)) {
      ctx.addIssue({ code: 'custom', path: ['text'], message: 'text is required unless attachments are present' });
    }
  });

const statusSchema = z
  .object({
    hook_type: z.enum(STATUS_HOOK_TYPES),
    request_id: platformIdSchema,
    dialog_id: platformIdSchema.nullish(),
    event_time: eventTimeSchema.nullish(),
  })
  .superRefine((s, ctx) => {
    // The spec: dialog_id is optional on close_* events and present on transfers, where the
    // shared context records it; a transfer without it could not be recorded as specified.
    if (s.hook_type === 'dialog_transferred' && s.dialog_id == null) {
      ctx.addIssue({ code: 'custom', path: ['dialog_id'], message: 'dialog_id is required on dialog_transferred' });
    }
  });

function describeIssues(error: z.ZodError): string {
  // Paths and zod's messages only: a rejected body's values never reach logs through this text.
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(body)'}: ${i.message}`).join('; ');
}

type SafeJson = { ok: true; value: JsonValue } | { ok: false; issues: string };

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Deep-copies a parsed body into fresh plain JSON, so `raw` holds nothing but JSON data:
 * forbidden keys (`__proto__` as an own key, as JSON.parse creates it, `constructor`,
 * `prototype`), non-JSON values and excessive nesting make the body invalid rather than being
 * carried into events that later code may spread or merge.
 */
export function toSafeJson(value: unknown, path = '', depth = 0): SafeJson {
  const at = path === '' ? '(body)' : path;
  if (depth > MAX_JSON_DEPTH) return { ok: false, issues: `${at}: nested deeper than ${MAX_JSON_DEPTH} levels` };
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return { ok: true, value };
  if (typeof value === 'number') {
    return Number.isFinite(value) ? { ok: true, value } : { ok: false, issues: `${at}: not a finite number` };
  }
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    for (let i = 0; i < value.length; i++) {
      const item = toSafeJson(value[i], `${path}${path ? '.' : ''}${i}`, depth + 1);
      if (!item.ok) return item;
      out.push(item.value);
    }
    return { ok: true, value: out };
  }
  if (typeof value === 'object' && isPlainObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value)) {
      const keyPath = `${path}${path ? '.' : ''}${key}`;
      if (FORBIDDEN_KEYS.has(key)) return { ok: false, issues: `${keyPath}: forbidden key` };
      const v = (value as Record<string, unknown>)[key];
      if (v === undefined) continue;
      const item = toSafeJson(v, keyPath, depth + 1);
      if (!item.ok) return item;
      out[key] = item.value;
    }
    return { ok: true, value: out };
  }
  return { ok: false, issues: `${at}: not a JSON value` };
}

function toMessage(raw: JsonObject): { ok: true; message: PlatformMessage } | { ok: false; issues: string } {
  const parsed = messageSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, issues: describeIssues(parsed.error) };
  const m = parsed.data;
  const message: PlatformMessage = {
    text: m.text ?? '',
    clientId: (m.client_id ?? m.client?.id)!,
    channelId: m.channel_id,
    transport: m.transport,
    raw,
  };
  if (m.message_id != null) message.messageId = m.message_id;
  if (m.request_id != null) message.requestId = m.request_id;
  if (m.dialog_id != null) message.dialogId = m.dialog_id;
  if (m.type != null) message.type = m.type;
  // Attachments are taken from the sanitised copy, not zod's output of z.unknown().
  if (m.attachments != null && Array.isArray(raw.attachments)) message.attachments = raw.attachments;
  if (m.client != null) {
    const client: PlatformClientInfo = {};
    if (m.client.id != null) client.id = m.client.id;
    if (m.client.name != null) client.name = m.client.name;
    if (m.client.phone != null) client.phone = String(m.client.phone);
    if (typeof m.client.email === 'string' && m.client.email.trim()) client.email = m.client.email.trim().slice(0, 320);
    message.client = client;
  }
  if (m.event_time != null) message.eventTime = m.event_time;
  return { ok: true, message };
}

/** Classifies an already-parsed JSON body. Never throws. */
export function classifyWebhookPayload(body: unknown): WebhookPayload {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { kind: 'invalid', issues: '(body): expected a JSON object' };
  }
  const safe = toSafeJson(body);
  if (!safe.ok) return { kind: 'invalid', issues: safe.issues };
  const raw = safe.value as JsonObject;

  const hookType = raw.hook_type;
  if (hookType === undefined || hookType === null) {
    const m = toMessage(raw);
    return m.ok ? { kind: 'customer_message', message: m.message } : { kind: 'invalid', issues: m.issues };
  }
  if (typeof hookType !== 'string') return { kind: 'invalid', issues: 'hook_type: expected a string' };

  if (hookType === 'inbox') {
    if (raw.type !== 'from_client') {
      return { kind: 'ignored', reason: `inbox message of type ${describeType(raw.type)}` };
    }
    const m = toMessage(raw);
    return m.ok ? { kind: 'customer_message', message: m.message } : { kind: 'invalid', issues: m.issues };
  }
  if (hookType === 'outbox') {
    const m = toMessage(raw);
    return m.ok ? { kind: 'operator_message', message: m.message } : { kind: 'invalid', issues: m.issues };
  }
  if ((STATUS_HOOK_TYPES as readonly string[]).includes(hookType)) {
    const parsed = statusSchema.safeParse(raw);
    if (!parsed.success) return { kind: 'invalid', issues: describeIssues(parsed.error) };
    const s = parsed.data;
    const event: WebhookPayload = {
      kind: 'status_event',
      hookType: s.hook_type,
      action: STATUS_ACTIONS[s.hook_type],
      requestId: s.request_id,
      raw,
    };
    if (s.dialog_id != null) event.dialogId = s.dialog_id;
    if (s.event_time != null) event.eventTime = s.event_time;
    return event;
  }
  return { kind: 'ignored', reason: `hook_type ${truncate(hookType)} is not handled` };
}

/**
 * Parses the raw body text and classifies it. JSON.parse is safe here because `toSafeJson`
 * refuses the own `__proto__` key it can produce before anything reads the object.
 */
export function classifyWebhookJson(text: string): WebhookPayload {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: 'invalid', issues: '(body): not valid JSON' };
  }
  return classifyWebhookPayload(body);
}

function truncate(s: string): string {
  return JSON.stringify(s.length > 64 ? `${s.slice(0, 64)}…` : s);
}

function describeType(t: JsonValue | undefined): string {
  if (t === undefined) return '(none)';
  return typeof t === 'string' ? truncate(t) : `(${t === null ? 'null' : typeof t})`;
}

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
