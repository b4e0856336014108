import { CLOSE_ORIGIN_NOT_ALLOWED, isAuthError, isFinalRefusal, parseFrame, type ChatMessage, type ClientFrame, type ServerFrame, type Survey, type VisitorIdentity } from './protocol.js';
import { newId, type OutboxItem, type Store } from './store.js';

/**
 * The connection to `/api/webchat/{integrationId}`: hello/ready handshake, outbox delivery and
 * reconnection. Delivery is at-least-once from the widget's side and exactly-once overall because
 * every message keeps its clientMessageId across re-sends and the server stores a repeated
 * clientMessageId once (and acknowledges it again). The outbox lives in the Store (localStorage),
 * so it survives reloads and is shared by tabs of the same site.
 */

/** `unavailable` is final: the service refused this site for good, and the widget no longer connects. */
export type Status = 'connecting' | 'ready' | 'reconnecting' | 'unavailable';

export interface ClientEvents {
  status(s: Status): void;
  ready(history: ChatMessage[], pending: OutboxItem[], greeting: string | undefined, prechatForm: boolean): void;
  message(m: ChatMessage): void;
  ack(clientMessageId: string, messageId: string): void;
  typing(on: boolean): void;
  /** A piece of an agent reply being written (see protocol.ts `delta`). */
  delta(id: string, offset: number, text: string): void;
  /** `failed` is set when the error names one of our queued messages (it is no longer re-sent). */
  error(code: string, message: string, failed?: OutboxItem): void;
  /** The satisfaction survey to show (null: none waits), and its answer recorded. */
  survey?(survey: Survey | null): void;
  surveyRecorded?(surveyId: string, rating: number): void;
}

const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 15_000;
/** An opened socket that has not produced `ready` by then is considered dead. */
const READY_TIMEOUT_MS = 15_000;

type Timer = ReturnType<typeof setTimeout>;

export class ChatClient {
  private ws: WebSocket | null = null;
  private isReady = false;
  private everConnected = false;
  private attempt = 0;
  private retryTimer: Timer | undefined;
  private readyTimer: Timer | undefined;
  /** Set once the server refused this site: nothing reconnects any more. */
  private halted = false;
  conversationId: string | number | null = null;

  constructor(
    private readonly url: string,
    private readonly store: Store,
    private readonly on: ClientEvents,
    /** The visitor's name as the page knows it (data-visitor-name): shown to the agents in the dashboard. */
    private readonly visitorName?: string,
    /** The signed-in visitor, signed by the site's server: checked by the service, never trusted by itself. */
    private readonly identity?: VisitorIdentity,
  ) {}

  get connected(): boolean {
    return this.isReady;
  }

  get queued(): number {
    return this.store.outbox().length;
  }

  start(): void {
    const wake = () => this.wake();
    addEventListener('online', wake);
    // A socket rarely notices a lost network by itself; drop it so messages queue visibly.
    addEventListener('offline', () => {
      if (this.ws) this.drop(this.ws);
    });
    addEventListener('pageshow', wake);
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') wake();
    });
    this.connect();
  }

  /** Queues a message (persisted first) and sends it now if the connection is ready. */
  /** The visitor's answer to the survey (not queued: the survey is shown again on return until answered). */
  answerSurvey(surveyId: string, rating: number, comment: string): void {
    this.frame({ type: 'csat', surveyId, rating, ...(comment.trim() ? { comment: comment.trim() } : {}) });
  }

  /** The pre-chat form's answers: remembered (sent again after each reconnect) and sent now when connected. */
  saveProfile(profile: { name?: string; email?: string }): void {
    this.store.setPrechat(profile);
    if (this.isReady) this.frame({ type: 'profile', ...profile });
  }

  send(text: string): OutboxItem {
    const item: OutboxItem = { clientMessageId: newId(), text, createdAt: new Date().toISOString() };
    this.store.add(item);
    if (this.isReady) this.frame({ type: 'message', text: item.text, clientMessageId: item.clientMessageId });
    return item;
  }

  /** Re-queues a message the server rejected (same clientMessageId). */
  retry(item: OutboxItem): void {
    this.store.add(item);
    if (this.isReady) this.frame({ type: 'message', text: item.text, clientMessageId: item.clientMessageId });
  }

  /** Connect immediately if there is no live socket (network back, tab visible again). */
  private wake(): void {
    if (this.ws || this.halted) return;
    this.attempt = 0;
    this.connect();
  }

  private connect(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.ws || this.halted) return;
    this.on.status(this.everConnected || this.attempt > 0 ? 'reconnecting' : 'connecting');
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (ws !== this.ws) return;
      const { visitorId, visitorToken } = this.store.read();
      const hello: ClientFrame = { type: 'hello' };
      if (visitorId) hello.visitorId = visitorId;
      if (visitorToken) hello.visitorToken = visitorToken;
      if (this.visitorName) hello.name = this.visitorName;
      if (this.identity) Object.assign(hello, this.identity);
      this.frame(hello);
      this.readyTimer = setTimeout(() => this.drop(ws), READY_TIMEOUT_MS);
    };
    ws.onmessage = (e: MessageEvent) => {
      if (ws !== this.ws) return;
      const f = parseFrame(e.data);
      if (f) this.handle(f, ws);
    };
    ws.onclose = (e: CloseEvent) => (e.code === CLOSE_ORIGIN_NOT_ALLOWED ? this.halt(ws) : this.drop(ws));
  }

  /** The server will never accept this page: close, stop every retry, and say so once. */
  private halt(ws: WebSocket): void {
    if (this.halted) return;
    this.halted = true;
    clearTimeout(this.readyTimer);
    clearTimeout(this.retryTimer);
    if (ws === this.ws) this.ws = null;
    try {
      ws.close();
    } catch {
      /* already closed */
    }
    this.isReady = false;
    this.on.typing(false);
    this.on.status('unavailable');
  }

  /**
   * Forgets a socket (closing it if still open) and schedules the next attempt. Done at once
   * rather than waiting for `close`, which a dead network can delay for a long time.
   */
  private drop(ws: WebSocket): void {
    if (ws !== this.ws) return;
    this.ws = null;
    try {
      ws.close();
    } catch {
      /* already closed */
    }
    clearTimeout(this.readyTimer);
    const wasReady = this.isReady;
    this.isReady = false;
    if (wasReady) this.on.typing(false);
    this.on.status('reconnecting');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.retryTimer !== undefined || this.halted) return;
    const cap = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 16);
    // "Equal jitter": at least half the exponential delay, plus a random share of the other half.
    const delay = cap / 2 + Math.random() * (cap / 2);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  private frame(f: ClientFrame): void {
    try {
      this.ws?.send(JSON.stringify(f));
    } catch {
      /* a closing socket: the outbox re-sends after reconnect */
    }
  }

  private handle(f: ServerFrame, ws: WebSocket): void {
    switch (f.type) {
      case 'ready': {
        clearTimeout(this.readyTimer);
        this.store.setIdentity(f.visitorId, f.visitorToken);
        this.conversationId = f.conversationId;
        this.isReady = true;
        this.everConnected = true;
        this.attempt = 0;
        // Anything the history already holds was stored before the connection dropped.
        const stored = new Map<string, string>();
        for (const m of f.history) if (m.clientMessageId) stored.set(m.clientMessageId, m.id);
        const pending: OutboxItem[] = [];
        for (const item of this.store.outbox()) {
          if (stored.has(item.clientMessageId)) this.store.remove(item.clientMessageId);
          else pending.push(item);
        }
        this.on.status('ready');
        // Answers given before (this page or an earlier one) name every message of this connection too.
        const prechat = this.store.read().prechat;
        if (f.prechatForm && prechat && prechat !== 'skipped') this.frame({ type: 'profile', ...prechat });
        this.on.ready(f.history, pending, f.greeting, f.prechatForm === true);
        this.on.survey?.(f.csat ?? null);
        for (const item of pending) {
          this.frame({ type: 'message', text: item.text, clientMessageId: item.clientMessageId });
        }
        break;
      }
      case 'message':
        this.on.message(f.message);
        break;
      case 'ack':
        this.store.remove(f.clientMessageId);
        this.on.ack(f.clientMessageId, f.messageId);
        break;
      case 'typing':
        this.on.typing(f.on);
        break;
      case 'profile_saved':
        break;
      case 'csat':
        this.on.survey?.(f.survey);
        break;
      case 'csat_recorded':
        this.on.surveyRecorded?.(f.surveyId, f.rating);
        break;
      case 'delta':
        this.on.delta(f.id, f.offset, f.text);
        break;
      case 'error':
        if (isFinalRefusal(f.code)) {
          this.halt(ws);
          return;
        }
        if (isAuthError(f.code)) {
          // The stored identity is no longer accepted: start over as a new visitor. Pending
          // messages stay in the outbox and go to the new conversation.
          const hadIdentity = this.store.read().visitorToken !== undefined;
          this.store.clearIdentity();
          if (hadIdentity) this.attempt = 0;
          this.drop(ws);
          return;
        }
        // A message-level rejection that names the message: stop re-sending it.
        const failed = this.store.outbox().find((i) => i.clientMessageId === f.clientMessageId);
        if (failed) this.store.remove(failed.clientMessageId);
        this.on.error(f.code, f.message, failed);
        break;
    }
  }
}
