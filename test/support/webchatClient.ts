import WebSocket from 'ws';

/** A frame the server sent (JSON); tests look at its fields. */
export type Frame = Record<string, any>;

export interface WebchatClient {
  ws: WebSocket;
  /** Every frame received so far, in order. */
  frames: Frame[];
  send(frame: unknown): void;
  /** The first frame (received already or later, from index `from` of `frames`) matching `match`. */
  waitFor(match: (f: Frame) => boolean, timeoutMs?: number, from?: number): Promise<Frame>;
  /** hello → ready. */
  hello(identity?: { visitorId?: string; visitorToken?: string }): Promise<Frame>;
  /** Sends a message and waits for its ack (or an error naming it). */
  message(text: string, clientMessageId: string): Promise<Frame>;
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

/**
 * Server env lifting the per-IP web-chat flood limits: every socket of a test process comes from 127.0.0.1, so a
 * suite opening many visitors would hit them (webchatLimits.test.ts tests those limits).
 */
export const PER_IP_WEBCHAT_LIMITS_LIFTED = {
  WEBCHAT_MAX_CONNECTIONS_PER_IP: '100',
  WEBCHAT_NEW_VISITORS_PER_IP_PER_MINUTE: '1000',
  WEBCHAT_MESSAGES_PER_IP_PER_MINUTE: '1000',
} as const;

export const webchatUrl = (base: string, integrationId: number | string) => `${base.replace(/^http/, 'ws')}/api/webchat/${integrationId}`;

/** A `ws` client of `/api/webchat/{integrationId}` with the given Origin (none when null). */
export async function connectWebchat(
  base: string,
  integrationId: number | string,
  options: { origin: string | null; autoPong?: boolean; headers?: Record<string, string> },
): Promise<WebchatClient> {
  const ws = new WebSocket(webchatUrl(base, integrationId), {
    ...(options.origin !== null ? { origin: options.origin } : {}),
    autoPong: options.autoPong ?? true,
    headers: options.headers ?? {},
  });
  const frames: Frame[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data) => {
    frames.push(JSON.parse(data.toString()));
    for (const w of [...waiters]) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.on('error', () => {});

  const waitFor = (match: (f: Frame) => boolean, timeoutMs = 10_000, from = 0) =>
    new Promise<Frame>((resolve, reject) => {
      const check = () => {
        const found = frames.slice(from).find(match);
        if (found) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(frames)}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });

  const client: WebchatClient = {
    ws,
    frames,
    send: (frame) => ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
    waitFor,
    async hello(identity = {}) {
      const from = frames.length;
      client.send({ type: 'hello', ...identity });
      return waitFor((f) => f.type === 'ready' || f.type === 'error', 10_000, from);
    },
    async message(text, clientMessageId) {
      const from = frames.length;
      client.send({ type: 'message', text, clientMessageId });
      return waitFor((f) => (f.type === 'ack' || f.type === 'error') && f.clientMessageId === clientMessageId, 10_000, from);
    },
    closed,
    async close() {
      if (ws.readyState === WebSocket.CLOSED) return;
      ws.close(1000);
      await closed;
    },
  };
  return client;
}
