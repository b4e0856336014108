import type { RawData } from 'ws';
import { CSAT_COMMENT_MAX_LENGTH } from '../domain/conversations/csat.js';
import type { IdentityClaim } from '../commands/webchat/visitorIdentity.js';

/**
 * The frames a web-chat visitor may send (API.md, "Web chat"), parsed from the raw WebSocket data. Pure and
 * total: any input (binary, broken UTF-8, not JSON, deep nesting, `__proto__` keys, wrong types) comes back
 * as a typed result, never a throw, so one bad frame cannot take the connection or the process down.
 */
export type ClientFrame =
  | { type: 'hello'; visitorId?: string; visitorToken?: string; name?: string; identity?: IdentityClaim }
  | { type: 'message'; clientMessageId: string; text: string }
  | { type: 'csat'; surveyId: string; rating: number; comment: string | null }
  /** The pre-chat form's answers (integration setting `prechatForm`): either may be absent, not both. */
  | { type: 'profile'; name?: string; email?: string }
  | { type: 'error'; code: 'BAD_FRAME' | 'VALIDATION_ERROR'; message: string; clientMessageId?: string };

/** Longest message text, in UTF-16 code units: a frame is at most 16 KiB anyway. */
export const WEBCHAT_MAX_TEXT_LENGTH = 16 * 1024;
const CLIENT_MESSAGE_ID = /^[A-Za-z0-9_.:-]{1,100}$/;
/** Longest visitor name (the page's `data-visitor-name`), in characters. */
export const WEBCHAT_MAX_NAME_LENGTH = 80;
/** Longest pre-chat email (RFC 5321's path limit, as the customer profile keeps). */
export const WEBCHAT_MAX_EMAIL_LENGTH = 320;
/** An address a person could have typed: one @, something on each side, a dot in the domain, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** A visitor-typed name, tidied like hello's (control characters to spaces, trimmed); a reason when not acceptable. */
function parseName(raw: unknown): string | undefined | { error: string } {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string') return { error: 'name must be a string' };
  const name = raw.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  if (name.length > WEBCHAT_MAX_NAME_LENGTH) return { error: `name is longer than ${WEBCHAT_MAX_NAME_LENGTH} characters` };
  return name || undefined;
}

function parseProfile(own: (key: string) => unknown): ClientFrame {
  const name = parseName(own('name'));
  if (typeof name === 'object') return invalid(name.error);
  const rawEmail = own('email') ?? undefined;
  if (rawEmail !== undefined && typeof rawEmail !== 'string') return invalid('email must be a string');
  const email = rawEmail?.trim() || undefined;
  if (email !== undefined && (email.length > WEBCHAT_MAX_EMAIL_LENGTH || !EMAIL.test(email))) return invalid('email must be an address such as ana@example.com');
  if (name === undefined && email === undefined) return invalid('name or email is required');
  return { type: 'profile', ...(name ? { name } : {}), ...(email ? { email } : {}) };
}

const bad = (message: string): ClientFrame => ({ type: 'error', code: 'BAD_FRAME', message });
const invalid = (message: string, clientMessageId?: string): ClientFrame => ({
  type: 'error',
  code: 'VALIDATION_ERROR',
  message,
  ...(clientMessageId !== undefined ? { clientMessageId } : {}),
});

function toText(data: RawData | string): string {
  if (typeof data === 'string') return data;
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/**
 * What a signed user id or email may not hold: control characters (C0, DEL and C1: a line feed separates the user
 * id from the email in the signed text) and unpaired surrogates, which are not text: their UTF-8, the replacement
 * character, would verify a user id the site never signed.
 */
const NOT_IDENTITY_TEXT = /[\p{Cc}\p{Cs}]/u;

/** hello's signed identity (userId, email, userHash), well-formed or a reason why not; undefined when absent. */
function parseIdentityClaim(own: (key: string) => unknown): IdentityClaim | string | undefined {
  const [userId, email, userHash] = [own('userId') ?? undefined, own('email') ?? undefined, own('userHash') ?? undefined];
  if (userId === undefined && email === undefined && userHash === undefined) return undefined;
  if (typeof userId !== 'string' || userId === '' || userId.length > 256 || NOT_IDENTITY_TEXT.test(userId)) return 'userId must be a string of 1-256 characters without control characters or unpaired surrogates';
  if (email !== undefined && (typeof email !== 'string' || email === '' || email.length > 320 || NOT_IDENTITY_TEXT.test(email))) return 'email must be a string of at most 320 characters without control characters or unpaired surrogates';
  if (userHash !== undefined && (typeof userHash !== 'string' || !/^[0-9a-fA-F]{64}$/.test(userHash))) return 'userHash must be the hex HMAC-SHA256 of the identity (64 characters)';
  return { userId, ...(email !== undefined ? { email } : {}), ...(userHash !== undefined ? { userHash: userHash.toLowerCase() } : {}) };
}

export function parseClientFrame(data: RawData | string, isBinary: boolean): ClientFrame {
  if (isBinary) return bad('Frames must be JSON text');
  let frame: unknown;
  try {
    frame = JSON.parse(toText(data));
  } catch {
    return bad('Frame is not valid JSON');
  }
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) return bad('A frame is a JSON object with a "type"');
  // Own properties only: a frame's `__proto__` key (JSON.parse makes it an own key) must not be read as a prototype.
  const own = (key: string): unknown => (Object.prototype.hasOwnProperty.call(frame, key) ? (frame as Record<string, unknown>)[key] : undefined);
  const type = own('type');
  switch (type) {
    case 'hello': {
      const visitorId = own('visitorId') ?? undefined;
      const visitorToken = own('visitorToken') ?? undefined;
      if ((visitorId !== undefined && typeof visitorId !== 'string') || (visitorToken !== undefined && typeof visitorToken !== 'string')) {
        return invalid('visitorId and visitorToken must be strings');
      }
      const rawName = own('name') ?? undefined;
      if (rawName !== undefined && typeof rawName !== 'string') return invalid('name must be a string');
      const name = rawName?.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
      if (name !== undefined && name.length > WEBCHAT_MAX_NAME_LENGTH) return invalid(`name is longer than ${WEBCHAT_MAX_NAME_LENGTH} characters`);
      const identity = parseIdentityClaim(own);
      if (typeof identity === 'string') return invalid(identity);
      return {
        type: 'hello',
        ...(visitorId !== undefined ? { visitorId } : {}),
        ...(visitorToken !== undefined ? { visitorToken } : {}),
        ...(name ? { name } : {}),
        ...(identity ? { identity } : {}),
      };
    }
    case 'message': {
      const rawId = own('clientMessageId');
      const clientMessageId = typeof rawId === 'string' && CLIENT_MESSAGE_ID.test(rawId) ? rawId : undefined;
      if (clientMessageId === undefined) return invalid('clientMessageId is required: 1-100 letters, digits or "-_.:"');
      const text = own('text');
      if (typeof text !== 'string' || text.trim() === '') return invalid('text is required', clientMessageId);
      if (text.length > WEBCHAT_MAX_TEXT_LENGTH) return invalid(`text is longer than ${WEBCHAT_MAX_TEXT_LENGTH} characters`, clientMessageId);
      return { type: 'message', clientMessageId, text };
    }
    case 'csat': {
      const surveyId = own('surveyId');
      if (typeof surveyId !== 'string') return invalid('surveyId is required: the id of the survey the widget shows');
      if (!/^[0-9a-f-]{36}$/i.test(surveyId)) return invalid('surveyId must be a UUID: the id of the survey the widget shows');
      const rating = own('rating');
      if (typeof rating !== 'number' || !Number.isInteger(rating) || rating < 1 || rating > 5) return invalid('rating must be a whole number from 1 to 5');
      const comment = own('comment') ?? null;
      if (comment !== null && typeof comment !== 'string') return invalid('comment must be a string');
      if (typeof comment === 'string' && comment.length > CSAT_COMMENT_MAX_LENGTH) return invalid(`comment is longer than ${CSAT_COMMENT_MAX_LENGTH} characters`);
      return { type: 'csat', surveyId, rating, comment: comment?.trim() || null };
    }
    case 'profile':
      return parseProfile(own);
    default:
      return bad(typeof type === 'string' ? `Unknown frame type "${type.slice(0, 40)}"` : 'A frame is a JSON object with a "type"');
  }
}
