/**
 * Web chat frames (API.md, "Web chat"). The widget sends only `hello` and `message`; everything
 * else arrives from the server. Incoming frames are validated defensively: a malformed frame is
 * ignored rather than breaking the widget.
 */

export type Author = 'customer' | 'agent' | 'operator' | 'system';

export interface ChatMessage {
  id: string;
  author: Author;
  text: string;
  createdAt?: string;
  clientMessageId?: string;
}

export type ServerFrame =
  | {
      type: 'ready';
      conversationId: string | number;
      visitorId: string;
      visitorToken: string;
      history: ChatMessage[];
      /** The integration's greeting, shown first; absent when it has none. */
      greeting?: string;
      /** The closed conversation's survey, while unanswered. */
      csat?: Survey;
      /** The integration asks a new visitor for a name and email (both optional) before the first message. */
      prechatForm?: boolean;
    }
  | { type: 'profile_saved' }
  | { type: 'message'; message: ChatMessage }
  | { type: 'ack'; clientMessageId: string; messageId: string }
  | { type: 'typing'; on: boolean }
  /** A piece of an agent reply still being written: `text` goes at `offset` of reply `id` (0 starts it over). */
  | { type: 'delta'; id: string; offset: number; text: string }
  | { type: 'error'; code: string; message: string; clientMessageId?: string }
  /** The satisfaction survey after the conversation closed; answered with a `csat` frame. */
  | { type: 'csat'; survey: Survey }
  | { type: 'csat_recorded'; surveyId: string; rating: number };

export interface Survey {
  surveyId: string;
  question: string;
}

export type ClientFrame =
  | { type: 'hello'; visitorId?: string; visitorToken?: string; name?: string; userId?: string; email?: string; userHash?: string }
  | { type: 'message'; text: string; clientMessageId: string }
  | { type: 'csat'; surveyId: string; rating: number; comment?: string }
  /** The pre-chat form's answers: kept on the customer's profile. */
  | { type: 'profile'; name?: string; email?: string };

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null;
const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
const AUTHORS: readonly string[] = ['customer', 'agent', 'operator', 'system'];

export function parseMessage(v: unknown): ChatMessage | null {
  if (!isObj(v)) return null;
  const id = str(v.id);
  if (id === undefined || typeof v.text !== 'string') return null;
  const author = (typeof v.author === 'string' && AUTHORS.includes(v.author) ? v.author : 'agent') as Author;
  const m: ChatMessage = { id, author, text: v.text };
  const createdAt = str(v.createdAt);
  if (createdAt !== undefined) m.createdAt = createdAt;
  const cid = str(v.clientMessageId);
  if (cid !== undefined) m.clientMessageId = cid;
  return m;
}

/** Parses one text frame; returns null for anything not understood. */
function parseSurvey(v: unknown): Survey | null {
  if (!isObj(v)) return null;
  const surveyId = str(v.surveyId);
  return surveyId !== undefined && typeof v.question === 'string' ? { surveyId, question: v.question } : null;
}

export function parseFrame(data: unknown): ServerFrame | null {
  if (typeof data !== 'string') return null;
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    return null;
  }
  if (!isObj(v)) return null;
  switch (v.type) {
    case 'ready': {
      const visitorId = str(v.visitorId);
      const visitorToken = str(v.visitorToken);
      const conversationId = typeof v.conversationId === 'number' ? v.conversationId : str(v.conversationId);
      if (visitorId === undefined || visitorToken === undefined || conversationId === undefined) return null;
      const history: ChatMessage[] = [];
      if (Array.isArray(v.history)) {
        for (const h of v.history) {
          const m = parseMessage(h);
          if (m) history.push(m);
        }
      }
      const ready: ServerFrame = { type: 'ready', conversationId, visitorId, visitorToken, history };
      if (typeof v.greeting === 'string' && v.greeting.trim()) ready.greeting = v.greeting;
      const survey = parseSurvey(v.csat);
      if (survey) ready.csat = survey;
      if (v.prechatForm === true) ready.prechatForm = true;
      return ready;
    }
    case 'message': {
      const message = parseMessage(v);
      return message ? { type: 'message', message } : null;
    }
    case 'ack': {
      const clientMessageId = str(v.clientMessageId);
      const messageId = str(v.messageId);
      return clientMessageId !== undefined && messageId !== undefined
        ? { type: 'ack', clientMessageId, messageId }
        : null;
    }
    case 'typing':
      return { type: 'typing', on: v.on === true };
    case 'profile_saved':
      return { type: 'profile_saved' };
    case 'csat': {
      const survey = parseSurvey(v);
      return survey ? { type: 'csat', survey } : null;
    }
    case 'csat_recorded': {
      const surveyId = str(v.surveyId);
      return surveyId !== undefined && typeof v.rating === 'number' ? { type: 'csat_recorded', surveyId, rating: v.rating } : null;
    }
    case 'delta': {
      const id = str(v.id);
      const offset = v.offset;
      if (id === undefined || typeof v.text !== 'string' || typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) return null;
      return { type: 'delta', id, offset, text: v.text };
    }
    case 'error': {
      const f: ServerFrame = {
        type: 'error',
        code: str(v.code) ?? 'ERROR',
        message: str(v.message) ?? '',
      };
      const cid = str(v.clientMessageId);
      if (cid !== undefined) f.clientMessageId = cid;
      return f;
    }
    default:
      return null;
  }
}

/**
 * Close code (application range, RFC 6455 §7.4.2) of a server that will never accept this page: its origin
 * is not among the integration's allowed origins. Reconnecting cannot help, so the widget stops.
 */
export const CLOSE_ORIGIN_NOT_ALLOWED = 4403;
/** Error codes that mean the same as that close code (in case a proxy rewrites close codes). */
export function isFinalRefusal(code: string): boolean {
  // A missing or wrong identity signature is the page's doing: reconnecting with the same one cannot help.
  return code === 'ORIGIN_NOT_ALLOWED' || code === 'IDENTITY_REQUIRED' || code === 'INVALID_IDENTITY';
}

/** Longest pre-chat name (the service's limit for a visitor name) and email. */
export const PRECHAT_NAME_MAX = 80;
export const PRECHAT_EMAIL_MAX = 320;
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** The pre-chat form's check, the same as the service's: a reason to show, or null when the answers are fine. */
export function prechatProblem(name: string, email: string): string | null {
  if (name.length > PRECHAT_NAME_MAX) return `Your name can be at most ${PRECHAT_NAME_MAX} characters.`;
  if (email && (email.length > PRECHAT_EMAIL_MAX || !EMAIL.test(email))) return 'Please enter an email address such as ana@example.com, or leave it empty.';
  if (!name && !email) return 'Enter your name or email, or choose Skip.';
  return null;
}

/** A signed-in visitor as the company's site vouches for them (data-user-id, data-user-email, data-user-hash). */
export interface VisitorIdentity {
  userId: string;
  email?: string;
  userHash: string;
}

/**
 * Error codes after which the stored visitor identity is dropped and the widget reconnects as a
 * new visitor. INVALID_VISITOR_TOKEN is the documented one; the rest are common variants.
 */
const AUTH_ERRORS =
  /^(INVALID_VISITOR_TOKEN|INVALID_VISITOR|VISITOR_NOT_FOUND|VISITOR_TOKEN_(INVALID|EXPIRED)|INVALID_TOKEN|TOKEN_EXPIRED|UNAUTHORI[SZ]ED|UNAUTHENTICATED)$/i;

export function isAuthError(code: string): boolean {
  return AUTH_ERRORS.test(code);
}
