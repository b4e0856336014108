// The API client: session storage, bearer auth, single-flight token refresh, error parsing.
import type { Session } from './types.js';

/** Base address of the API; empty = same origin. Override at build time with VITE_API_BASE. */
export const API_BASE: string = (import.meta.env.VITE_API_BASE ?? '').replace(/\/+$/, '');

/** An error answered by the API (`{error:{code,message}}`) or raised while talking to it. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Turns any error into a sentence a person can act on. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    switch (error.code) {
      case 'INVALID_CREDENTIALS':
        return 'Wrong email or password';
      case 'USER_CREATION_FAILED':
        return 'Could not create the account (is the email already registered?)';
      case 'RATE_LIMITED':
        return 'Too many requests — please wait a moment and try again';
      case 'VALIDATION_ERROR':
        return error.message || 'Some of the values are not valid';
      case 'PAYLOAD_TOO_LARGE':
        return 'That is too large for the server to accept';
      case 'UNAUTHORIZED':
      case 'REFRESH_FAILED':
        return 'Your session has expired — please log in again';
      case 'FORBIDDEN':
        return error.message ? `Not allowed: ${error.message}` : 'You are not allowed to do that';
      case 'NOT_FOUND':
        return error.message || 'Not found — it may have been deleted';
      case 'NETWORK_ERROR':
        return 'Could not reach the server — check your connection and try again';
      case 'INTERNAL_ERROR':
        return 'Something went wrong on the server — please try again';
      default:
        return error.message || `Request failed (HTTP ${error.status})`;
    }
  }
  if (error instanceof Error) return error.message;
  return 'Something went wrong';
}

// ---------------------------------------------------------------------------
// Session storage
// ---------------------------------------------------------------------------

/** localStorage key holding the session exactly as the API returns it: {access_token, refresh_token, expires_at}. */
export const SESSION_KEY = 'mas.session';

export type SessionEndReason = 'logout' | 'expired';
type SessionListener = (session: Session | null, reason?: SessionEndReason) => void;

const sessionListeners = new Set<SessionListener>();
let current: Session | null = readStoredSession();
let refreshTimer: ReturnType<typeof setTimeout> | undefined;

function readStoredSession(): Session | null {
  try {
    const raw = localStorage.getItem(SESSION_KEY);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Partial<Session> | null;
    if (parsed && typeof parsed.access_token === 'string' && typeof parsed.refresh_token === 'string') {
      return { access_token: parsed.access_token, refresh_token: parsed.refresh_token, expires_at: Number(parsed.expires_at) };
    }
  } catch {
    // unreadable storage: treat as logged out
  }
  return null;
}

/** Expiry of the access token in ms since the epoch, or null when unknown. */
function expiresAtMs(session: Session): number | null {
  const value = session.expires_at;
  if (Number.isFinite(value) && value > 0) return value > 1e12 ? value : value * 1000; // seconds (accept ms defensively)
  // Fall back to the JWT's own `exp` claim.
  try {
    const payload = session.access_token.split('.')[1];
    if (!payload) return null;
    const json = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: unknown };
    return typeof json.exp === 'number' ? json.exp * 1000 : null;
  } catch {
    return null;
  }
}

function expiresWithin(session: Session, ms: number): boolean {
  const at = expiresAtMs(session);
  return at !== null && at - Date.now() <= ms;
}

function notify(reason?: SessionEndReason) {
  for (const listener of sessionListeners) listener(current, reason);
}

function scheduleRefresh() {
  clearTimeout(refreshTimer);
  refreshTimer = undefined;
  if (!current) return;
  const at = expiresAtMs(current);
  if (at === null) return;
  const remaining = at - Date.now();
  // Refresh a minute before expiry (or at 80 % of the remaining time for short-lived tokens).
  const lead = Math.min(60_000, Math.max(remaining * 0.2, 2_000));
  const delay = Math.min(Math.max(remaining - lead, 0), 2_147_000_000);
  const token = current.access_token;
  refreshTimer = setTimeout(() => {
    refreshSession(token).catch(() => {
      // Network trouble: try again a little later (an expired session has been cleared already).
      if (current) refreshTimer = setTimeout(scheduleRefresh, 30_000);
    });
  }, delay);
}

export function getSession(): Session | null {
  return current;
}

export function setSession(session: Session) {
  current = { access_token: session.access_token, refresh_token: session.refresh_token, expires_at: Number(session.expires_at) };
  try {
    localStorage.setItem(SESSION_KEY, JSON.stringify(current));
  } catch {
    // storage full or disabled: the session lives in memory only
  }
  scheduleRefresh();
  notify();
}

export function clearSession(reason: SessionEndReason = 'logout') {
  const had = current !== null;
  current = null;
  clearTimeout(refreshTimer);
  try {
    localStorage.removeItem(SESSION_KEY);
  } catch {
    // ignore
  }
  if (had) notify(reason);
}

export function onSessionChange(listener: SessionListener): () => void {
  sessionListeners.add(listener);
  return () => sessionListeners.delete(listener);
}

// Another tab logged in, refreshed or logged out.
if (typeof window !== 'undefined') {
  window.addEventListener('storage', (event) => {
    if (event.key !== SESSION_KEY && event.key !== null) return;
    const stored = readStoredSession();
    if (stored?.access_token === current?.access_token) return;
    const hadSession = current !== null;
    current = stored;
    scheduleRefresh();
    notify(stored === null && hadSession ? 'logout' : undefined);
  });
  scheduleRefresh();
}

// ---------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  signal?: AbortSignal;
  /** Sent as `Idempotency-Key` (paid starts): see idempotencyKeyFor. */
  idempotencyKey?: string;
}

/** 128 random bits. getRandomValues, not randomUUID: the dashboard may be served over plain HTTP, where randomUUID is missing. */
export const newIdempotencyKey = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

const confirmationKeys = new WeakMap<object, string>();
/**
 * One key per confirmed estimate: a start sent again with the same confirmation (after a lost answer or a double
 * click) finds the run the first one started instead of paying for a second. A new estimate is a new key.
 */
export function idempotencyKeyFor(confirmation: object): string {
  let key = confirmationKeys.get(confirmation);
  if (!key) confirmationKeys.set(confirmation, (key = newIdempotencyKey()));
  return key;
}

async function send<T>(method: Method, path: string, body: unknown, token: string | null, options?: RequestOptions): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  // Only declare a JSON body when there is one: an empty body with that content type is a 400.
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers['Authorization'] = `Bearer ${token}`;
  if (options?.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: options?.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, 'NETWORK_ERROR', 'Could not reach the server');
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (!response.ok) {
    const error = (parsed as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
    const code = typeof error?.code === 'string' ? error.code : `HTTP_${response.status}`;
    const message =
      typeof error?.message === 'string' && error.message
        ? error.message
        : response.status === 413
          ? 'Payload too large'
          : response.statusText || `HTTP ${response.status}`;
    throw new ApiError(response.status, response.status === 413 && !error ? 'PAYLOAD_TOO_LARGE' : code, message);
  }
  return parsed as T;
}

let inflightRefresh: Promise<Session> | null = null;

/**
 * Gets a new session with the refresh token. Single-flight: concurrent callers share one request
 * (across tabs too, where the Web Locks API exists). `staleToken` is the access token the caller
 * found wanting; if the session has meanwhile moved on to a fresh token, that one is used as is.
 */
export function refreshSession(staleToken?: string): Promise<Session> {
  if (!inflightRefresh) {
    inflightRefresh = runExclusive(() => doRefresh(staleToken)).finally(() => {
      inflightRefresh = null;
    });
  }
  return inflightRefresh;
}

function runExclusive<T>(task: () => Promise<T>): Promise<T> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (locks?.request) return locks.request('mas-session-refresh', task) as Promise<T>;
  return task();
}

async function doRefresh(staleToken?: string): Promise<Session> {
  const stored = readStoredSession() ?? current;
  if (!stored) throw new ApiError(401, 'UNAUTHORIZED', 'Not logged in');
  if (staleToken && stored.access_token !== staleToken && !expiresWithin(stored, 30_000)) {
    // Someone (another tab, a concurrent request) already refreshed.
    if (stored.access_token !== current?.access_token) setSession(stored);
    return stored;
  }
  try {
    const result = await send<{ session: Session }>('POST', '/api/auth/refresh', { refresh_token: stored.refresh_token }, null);
    setSession(result.session);
    return result.session;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 400 || error.status === 403)) {
      clearSession('expired');
    }
    throw error;
  }
}

/** The current access token, refreshed first when it is about to expire. */
export async function getFreshToken(): Promise<string> {
  const session = current;
  if (!session) throw new ApiError(401, 'UNAUTHORIZED', 'Not logged in');
  if (expiresWithin(session, 30_000)) {
    try {
      return (await refreshSession(session.access_token)).access_token;
    } catch (error) {
      if (!current) throw error;
      return current.access_token; // network trouble: try with what we have
    }
  }
  return session.access_token;
}

/** A request to a public endpoint (no token, no refresh). */
export function publicRequest<T>(method: Method, path: string, body?: unknown, options?: RequestOptions): Promise<T> {
  return send<T>(method, path, body, null, options);
}

/** An authenticated request: bearer token, refresh shortly before expiry and once on a 401. */
export async function request<T>(method: Method, path: string, body?: unknown, options?: RequestOptions): Promise<T> {
  const token = await getFreshToken();
  try {
    return await send<T>(method, path, body, token, options);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401) throw error;
    const session = await refreshSession(token);
    try {
      return await send<T>(method, path, body, session.access_token, options);
    } catch (retryError) {
      if (retryError instanceof ApiError && retryError.status === 401) clearSession('expired');
      throw retryError;
    }
  }
}

/** Ends the session on the server (best effort) and forgets it here. */
export async function logout(): Promise<void> {
  const session = current;
  if (session) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 5_000);
    try {
      await send('POST', '/api/auth/logout', { refresh_token: session.refresh_token }, session.access_token, { signal: controller.signal });
    } catch {
      // the local session is dropped regardless
    } finally {
      clearTimeout(timer);
    }
  }
  clearSession('logout');
}

/** `?a=1&b=2` from the defined, non-empty values. */
export function query(params: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
