// Live updates over Server-Sent Events: GET /api/events/stream?access_token=<jwt>.
// The server sends `event: conversation` with `data: {"conversationId":"…"}` whenever a conversation
// changes. One EventSource is shared by every subscriber and closed when nobody listens.
import { API_BASE, getFreshToken, getSession, onSessionChange, refreshSession } from './client.js';

export type StreamStatus = 'idle' | 'connecting' | 'live' | 'reconnecting';
/** `resync`: the stream (re)connected after a gap, so events may have been missed — refetch. */
export type StreamEvent = { type: 'conversation'; conversationId: string } | { type: 'resync' };
/** `event: webhook-log`: a webhook delivery was logged (the Webhook logs page listens with subscribeWebhookLogs). */
export interface WebhookLogEvent {
  logId: string;
  integrationId: number;
  conversationId: string | null;
}
const webhookLogListeners = new Set<(event: WebhookLogEvent) => void>();

type Listener = (event: StreamEvent) => void;

const listeners = new Set<Listener>();
const statusListeners = new Set<(status: StreamStatus) => void>();
let status: StreamStatus = 'idle';
let source: EventSource | null = null;
let generation = 0;
let failures = 0;
let everOpened = false;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let idleTimer: ReturnType<typeof setTimeout> | undefined;

function setStatus(next: StreamStatus) {
  if (status === next) return;
  status = next;
  for (const listener of statusListeners) listener(next);
}

function emit(event: StreamEvent) {
  for (const listener of [...listeners]) {
    try {
      listener(event);
    } catch (error) {
      console.error('stream listener failed', error);
    }
  }
}

function stop() {
  generation++;
  clearTimeout(retryTimer);
  source?.close();
  source = null;
  failures = 0;
  everOpened = false;
  setStatus('idle');
}

async function connect(refreshFirst: boolean) {
  const gen = ++generation;
  setStatus(everOpened || failures > 0 ? 'reconnecting' : 'connecting');
  let token: string;
  try {
    if (refreshFirst) {
      const session = getSession();
      if (session) await refreshSession(session.access_token);
    }
    token = await getFreshToken();
  } catch {
    if (!getSession()) return stop(); // logged out
    if (gen === generation) {
      failures++;
      scheduleRetry();
    }
    return;
  }
  if (gen !== generation || listeners.size === 0) return;

  const es = new EventSource(`${API_BASE}/api/events/stream?access_token=${encodeURIComponent(token)}`);
  source = es;
  es.addEventListener('open', () => {
    if (gen !== generation) return;
    const gap = everOpened || failures > 0;
    everOpened = true;
    failures = 0;
    setStatus('live');
    if (gap) emit({ type: 'resync' });
  });
  const onData = (message: MessageEvent) => {
    if (gen !== generation) return;
    try {
      const data = JSON.parse(String(message.data)) as { conversationId?: unknown };
      if (typeof data.conversationId === 'string' && data.conversationId) {
        emit({ type: 'conversation', conversationId: data.conversationId });
      }
    } catch {
      // keep-alive or unknown payload
    }
  };
  es.addEventListener('conversation', onData);
  // `event: webhook-log` {logId, integrationId, conversationId}: a webhook delivery was logged.
  es.addEventListener('webhook-log', (message: MessageEvent) => {
    if (gen !== generation) return;
    try {
      const data = JSON.parse(String(message.data)) as { logId?: unknown; integrationId?: unknown; conversationId?: unknown };
      if (typeof data.logId === 'string' && typeof data.integrationId === 'number') {
        const event: WebhookLogEvent = { logId: data.logId, integrationId: data.integrationId, conversationId: typeof data.conversationId === 'string' ? data.conversationId : null };
        for (const listener of [...webhookLogListeners]) listener(event);
      }
    } catch {
      // unknown payload
    }
  });
  es.addEventListener('message', onData);
  es.addEventListener('error', () => {
    if (gen !== generation) return;
    if (es.readyState === EventSource.CLOSED) {
      // The server refused the stream (e.g. 401 with an expired token) or it is down:
      // refresh the token and reconnect ourselves, with backoff.
      es.close();
      source = null;
      failures++;
      scheduleRetry();
    } else {
      setStatus('reconnecting'); // the browser reconnects by itself
    }
  });
}

function scheduleRetry() {
  clearTimeout(retryTimer);
  setStatus('reconnecting');
  const delay = Math.min(30_000, 1_000 * 2 ** Math.max(0, failures - 1)) * (0.75 + Math.random() * 0.5);
  const refreshFirst = failures === 1;
  retryTimer = setTimeout(() => {
    if (listeners.size > 0) void connect(refreshFirst);
  }, delay);
}

/** Listens to conversation changes; opens the shared stream on first use. */
export function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  clearTimeout(idleTimer);
  if (!source && status === 'idle' && getSession()) void connect(false);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      // A short grace period so navigating between live pages keeps the connection.
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        if (listeners.size === 0) stop();
      }, 3_000);
    }
  };
}

/** Logged webhook deliveries, and `onResync` after a gap in the stream (refetch); shares the one stream. */
export function subscribeWebhookLogs(listener: (event: WebhookLogEvent) => void, onResync: () => void): () => void {
  webhookLogListeners.add(listener);
  const off = subscribe((event) => {
    if (event.type === 'resync') onResync();
  });
  return () => {
    webhookLogListeners.delete(listener);
    off();
  };
}

export function getStreamStatus(): StreamStatus {
  return status;
}

export function onStreamStatus(listener: (status: StreamStatus) => void): () => void {
  statusListeners.add(listener);
  return () => statusListeners.delete(listener);
}

onSessionChange((session) => {
  if (!session) stop();
  else if (listeners.size > 0 && status === 'idle') void connect(false);
});
