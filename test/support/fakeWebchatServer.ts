import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * A stand-in for the service's web chat side (API.md, "Web chat") for testing the embeddable
 * widget on its own: `GET /widget.js` (the built bundle) and the WebSocket
 * `/api/webchat/{integrationId}` speaking the documented frames, with in-memory visitors and
 * conversations. It stores a repeated clientMessageId once and acknowledges it again, keeps
 * agent messages sent while the visitor is away for the next `ready`, and can go down and come
 * back on the same port, hold acks back, or invalidate visitor tokens.
 *
 * It is not the real server: use it for the widget's own behaviour (reconnect, outbox, UI);
 * test the real service end to end separately.
 */

export type Author = 'customer' | 'agent' | 'operator' | 'system';

export interface StoredMessage {
  id: string;
  author: Author;
  text: string;
  createdAt: string;
  clientMessageId?: string;
}

export interface FakeConversation {
  id: string;
  integrationId: string;
  visitorId: string;
  visitorToken: string;
  messages: StoredMessage[];
}

export interface ReceivedFrame {
  integrationId: string;
  origin: string | undefined;
  frame: Record<string, unknown>;
  at: Date;
}

export interface FakeWebchatOptions {
  /** Fixed port; default any free port (kept across stop()/start()). */
  port?: number;
  host?: string;
  /** File served at GET /widget.js; default dist/widget/widget.js of this repository. */
  widgetFile?: string;
  /** When set, upgrades from any other Origin are refused with 403 (like allowedOrigins). */
  allowedOrigins?: string[];
  /**
   * Agent auto-reply to each newly stored customer message; return null for none.
   * Default: `Echo: <text>`.
   */
  reply?: ((text: string, conversation: FakeConversation) => string | null) | null;
  /** How long `typing on` is shown before the auto-reply; default 300 ms. */
  replyDelayMs?: number;
  /** Longer texts are refused with error MESSAGE_TOO_LONG naming the clientMessageId; default none. */
  maxTextLength?: number;
}

export interface FakeWebchatServer {
  /** http://host:port — the widget's base URL. */
  readonly url: string;
  readonly port: number;
  readonly conversations: FakeConversation[];
  /** Every client frame received, in order. */
  readonly received: ReceivedFrame[];
  /** Stored customer messages (all conversations), in order. */
  customerMessages(): StoredMessage[];
  /** Resolves once `predicate` holds (checked after every event), or rejects after timeoutMs. */
  waitFor(predicate: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  /** Adds an agent/operator message to a conversation and pushes it to its open sockets. */
  say(conversationId: string, text: string, author?: Author): StoredMessage;
  typing(conversationId: string, on: boolean): void;
  /** While true, customer messages are stored but not acknowledged (a lost ack). */
  holdAcks: boolean;
  /** While true, customer message frames are dropped unseen: neither stored nor acknowledged. */
  ignoreMessages: boolean;
  /** While false, WebSocket upgrades are refused with 503 (GET /widget.js still works). */
  acceptSockets: boolean;
  /** Existing visitor tokens become invalid: the next hello with one gets INVALID_VISITOR_TOKEN. */
  invalidateTokens(): void;
  /** Number of open widget sockets. */
  openSockets(): number;
  /** Terminates every socket but keeps listening. */
  dropConnections(): void;
  /** Goes down: stops listening and terminates every socket. */
  stop(): Promise<void>;
  /** Comes back on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_WIDGET = join(fileURLToPath(new URL('../../', import.meta.url)), 'dist', 'widget', 'widget.js');

export async function startFakeWebchatServer(options: FakeWebchatOptions = {}): Promise<FakeWebchatServer> {
  const host = options.host ?? '127.0.0.1';
  const widgetFile = options.widgetFile ?? DEFAULT_WIDGET;
  const reply = options.reply === undefined ? (t: string) => `Echo: ${t}` : options.reply;
  const replyDelayMs = options.replyDelayMs ?? 300;
  const conversations: FakeConversation[] = [];
  const received: ReceivedFrame[] = [];
  const sockets = new Map<WebSocket, { integrationId: string; conversation?: FakeConversation }>();
  const waiters = new Set<() => void>();
  const timers = new Set<NodeJS.Timeout>();
  let nextId = 1;
  let port = options.port ?? 0;
  let listening = false;

  const notify = () => waiters.forEach((w) => w());
  const now = () => new Date().toISOString();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  const send = (ws: WebSocket, frame: unknown) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  };
  const toConversation = (c: FakeConversation, frame: unknown) => {
    for (const [ws, s] of sockets) if (s.conversation === c) send(ws, frame);
  };

  const httpServer = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/widget.js' && existsSync(widgetFile)) {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
      res.end(readFileSync(widgetFile));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'not found' } }));
  });
  const wss = new WebSocketServer({ noServer: true });

  httpServer.on('upgrade', (req, socket, head) => {
    const m = /^\/api\/webchat\/([^/?]+)(?:\?.*)?$/.exec(req.url ?? '');
    const origin = req.headers.origin;
    const refuse = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (!m) return refuse(404, 'Not Found');
    if (options.allowedOrigins && !options.allowedOrigins.includes(origin ?? '')) return refuse(403, 'Forbidden');
    if (!fake.acceptSockets) return refuse(503, 'Service Unavailable');
    const integrationId = decodeURIComponent(m[1]!);
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.set(ws, { integrationId });
      notify();
      ws.on('close', () => {
        sockets.delete(ws);
        notify();
      });
      ws.on('message', (data, isBinary) => {
        let frame: Record<string, unknown>;
        try {
          frame = JSON.parse(isBinary ? '' : data.toString());
        } catch {
          send(ws, { type: 'error', code: 'INVALID_FRAME', message: 'Frames are JSON objects.' });
          return;
        }
        received.push({ integrationId, origin, frame, at: new Date() });
        onFrame(ws, frame);
        notify();
      });
    });
  });

  function onFrame(ws: WebSocket, frame: Record<string, unknown>): void {
    const s = sockets.get(ws);
    if (!s) return;
    if (frame.type === 'hello') {
      let c: FakeConversation | undefined;
      if (typeof frame.visitorToken === 'string') {
        c = conversations.find((x) => x.visitorToken === frame.visitorToken && x.integrationId === s.integrationId);
        if (!c) {
          send(ws, { type: 'error', code: 'INVALID_VISITOR_TOKEN', message: 'Unknown visitor token.' });
          return;
        }
      } else {
        c = {
          id: `conv-${nextId++}`,
          integrationId: s.integrationId,
          visitorId: `visitor-${nextId++}`,
          visitorToken: randomUUID(),
          messages: [],
        };
        conversations.push(c);
      }
      s.conversation = c;
      send(ws, {
        type: 'ready',
        conversationId: c.id,
        visitorId: c.visitorId,
        visitorToken: c.visitorToken,
        history: c.messages,
      });
      return;
    }
    if (frame.type === 'message') {
      if (fake.ignoreMessages) return;
      const c = s.conversation;
      if (!c) {
        send(ws, { type: 'error', code: 'HELLO_REQUIRED', message: 'Send hello first.' });
        return;
      }
      const text = typeof frame.text === 'string' ? frame.text.trim() : '';
      const clientMessageId = typeof frame.clientMessageId === 'string' ? frame.clientMessageId : '';
      if (!text || !clientMessageId) {
        send(ws, { type: 'error', code: 'VALIDATION_ERROR', message: 'text and clientMessageId are required.', clientMessageId });
        return;
      }
      if (options.maxTextLength !== undefined && text.length > options.maxTextLength) {
        send(ws, { type: 'error', code: 'MESSAGE_TOO_LONG', message: 'Message is too long.', clientMessageId });
        return;
      }
      let stored = c.messages.find((x) => x.clientMessageId === clientMessageId);
      const isNew = !stored;
      if (!stored) {
        stored = { id: `msg-${nextId++}`, author: 'customer', text, createdAt: now(), clientMessageId };
        c.messages.push(stored);
      }
      if (!fake.holdAcks) send(ws, { type: 'ack', clientMessageId, messageId: stored.id });
      const answer = isNew && reply ? reply(text, c) : null;
      if (answer != null) {
        toConversation(c, { type: 'typing', on: true });
        later(replyDelayMs, () => {
          fake.say(c.id, answer);
          toConversation(c, { type: 'typing', on: false });
        });
      }
      return;
    }
    send(ws, { type: 'error', code: 'INVALID_FRAME', message: `Unknown frame type ${String(frame.type)}.` });
  }

  async function listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(port, host, () => {
        httpServer.off('error', reject);
        resolve();
      });
    });
    port = (httpServer.address() as AddressInfo).port;
    listening = true;
  }

  const fake: FakeWebchatServer = {
    get url() {
      return `http://${host}:${port}`;
    },
    get port() {
      return port;
    },
    conversations,
    received,
    holdAcks: false,
    ignoreMessages: false,
    acceptSockets: true,
    customerMessages: () => conversations.flatMap((c) => c.messages.filter((m) => m.author === 'customer')),
    waitFor(predicate, timeoutMs = 10_000, what = 'condition') {
      if (predicate()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate()) return;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`fakeWebchatServer: timed out waiting for ${what}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
      });
    },
    say(conversationId, text, author = 'agent') {
      const c = conversations.find((x) => x.id === conversationId);
      if (!c) throw new Error(`no conversation ${conversationId}`);
      const m: StoredMessage = { id: `msg-${nextId++}`, author, text, createdAt: now() };
      c.messages.push(m);
      toConversation(c, { type: 'message', ...m });
      notify();
      return m;
    },
    typing(conversationId, on) {
      const c = conversations.find((x) => x.id === conversationId);
      if (c) toConversation(c, { type: 'typing', on });
    },
    invalidateTokens() {
      for (const c of conversations) c.visitorToken = `revoked-${randomUUID()}`;
    },
    openSockets: () => sockets.size,
    dropConnections() {
      for (const ws of sockets.keys()) ws.terminate();
    },
    async stop() {
      if (!listening) return;
      listening = false;
      fake.dropConnections();
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
    async start() {
      if (!listening) await listen();
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await fake.stop();
      wss.close();
    },
  };

  await listen();
  return fake;
}
