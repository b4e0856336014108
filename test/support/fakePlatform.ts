import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server that behaves like the messaging platform's API (API.md, "The messaging
 * platform"), for tests and benchmarks that need the service's outbound calls to land somewhere
 * observable: it records every request, keeps webhook registrations, and can be told to fail,
 * stall or redirect.
 */

export interface ReceivedRequest {
  method: string;
  /** Path including any query, as sent. */
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  body: unknown;
  at: Date;
}

export interface FakeWebhook {
  id: number;
  name: string;
  url: string;
  events: string[];
  status: 'active';
}

export interface FakePlatform {
  /** Base URL, e.g. http://127.0.0.1:40123 (use as the integration's apiUrl). */
  readonly url: string;
  readonly token: string;
  readonly received: ReceivedRequest[];
  readonly webhooks: FakeWebhook[];
  /** Bodies of the POST /v1/messages calls that were answered with success. */
  messages(): Array<Record<string, unknown>>;
  waitForMessages(n: number, timeoutMs?: number): Promise<Array<Record<string, unknown>>>;
  /**
   * The next `n` requests are answered with `status` and an error envelope; pass `body` as a
   * string to send that exact (possibly non-JSON) text instead.
   */
  failNext(n: number, status?: number, body?: string): void;
  /** Every answer is delayed by this many milliseconds (0 to stop); for timeout tests. */
  delayMs: number;
  /** Every request is answered with a redirect to `location` until called with null. */
  setRedirect(location: string | null, status?: number): void;
  close(): Promise<void>;
}

export interface FakePlatformOptions {
  token?: string;
  /** Path prefix the API is mounted under, e.g. "/api" (apiUrl then carries it). */
  basePath?: string;
}

const MAX_BODY_BYTES = 1024 * 1024;

export async function startFakePlatform(options: FakePlatformOptions = {}): Promise<FakePlatform> {
  const token = options.token ?? 'fake-platform-token';
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const received: ReceivedRequest[] = [];
  const webhooks: FakeWebhook[] = [];
  const sent: Array<Record<string, unknown>> = [];
  const waiters = new Set<() => void>();
  const pendingTimers = new Set<NodeJS.Timeout>();
  let failures: { remaining: number; status: number; body?: string } | null = null;
  let redirect: { location: string; status: number } | null = null;
  let nextWebhookId = 1;
  let nextMessageId = 1000;

  const fake = {
    delayMs: 0,
  };

  function reply(res: http.ServerResponse, status: number, body: unknown, raw = false): void {
    const send = () => {
      if (res.destroyed) return;
      const text = raw ? String(body) : JSON.stringify(body);
      res.writeHead(status, { 'content-type': raw ? 'text/plain' : 'application/json' });
      res.end(text);
    };
    if (fake.delayMs > 0) {
      const t = setTimeout(() => {
        pendingTimers.delete(t);
        send();
      }, fake.delayMs);
      pendingTimers.add(t);
    } else {
      send();
    }
  }

  const error = (res: http.ServerResponse, status: number, message: string) =>
    reply(res, status, { status: 'error', errors: { message } });

  function handle(req: http.IncomingMessage, res: http.ServerResponse, rawBody: string): void {
    const path = req.url ?? '/';
    let body: unknown;
    if (rawBody.length > 0) {
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = rawBody;
      }
    }
    received.push({ method: req.method ?? '', path, headers: req.headers, body, at: new Date() });

    if (redirect) {
      res.writeHead(redirect.status, { location: redirect.location });
      res.end();
      return;
    }
    if (failures && failures.remaining > 0) {
      failures.remaining -= 1;
      const { status, body: failBody } = failures;
      if (failures.remaining === 0) failures = null;
      if (failBody !== undefined) reply(res, status, failBody, true);
      else error(res, status, `injected failure ${status}`);
      return;
    }
    if (req.headers.authorization !== token) {
      error(res, 401, 'invalid token');
      return;
    }

    const pathname = new URL(path, 'http://fake').pathname;
    if (basePath && !pathname.startsWith(`${basePath}/`)) {
      error(res, 404, 'not found');
      return;
    }
    const route = pathname.slice(basePath.length);
    const obj = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : null;

    if (route === '/v1/webhooks' && req.method === 'GET') {
      reply(res, 200, { status: 'success', data: webhooks });
      return;
    }
    if (route === '/v1/webhooks' && req.method === 'POST') {
      if (!obj || typeof obj.url !== 'string') return error(res, 400, 'url is required');
      const hook: FakeWebhook = {
        id: nextWebhookId++,
        name: String(obj.name ?? ''),
        url: obj.url,
        events: Array.isArray(obj.events) ? obj.events.map(String) : [],
        status: 'active',
      };
      webhooks.push(hook);
      reply(res, 201, { status: 'success', data: hook });
      return;
    }
    const put = /^\/v1\/webhooks\/([^/]+)$/.exec(route);
    if (put && req.method === 'PUT') {
      const hook = webhooks.find((w) => String(w.id) === decodeURIComponent(put[1]!));
      if (!hook) return error(res, 404, 'webhook not found');
      if (!obj) return error(res, 400, 'body is required');
      if (typeof obj.name === 'string') hook.name = obj.name;
      if (typeof obj.url === 'string') hook.url = obj.url;
      if (Array.isArray(obj.events)) hook.events = obj.events.map(String);
      reply(res, 200, { status: 'success', data: hook });
      return;
    }
    if (route === '/v1/messages' && req.method === 'POST') {
      if (!obj || obj.client_id === undefined || typeof obj.text !== 'string') {
        return error(res, 400, 'client_id and text are required');
      }
      sent.push(obj);
      for (const wake of [...waiters]) wake();
      reply(res, 200, {
        status: 'success',
        data: {
          message_id: nextMessageId++,
          client_id: obj.client_id,
          channel_id: obj.channel_id,
          transport: obj.transport,
          type: 'to_client',
        },
      });
      return;
    }
    error(res, 404, 'not found');
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) return error(res, 413, 'body too large');
      handle(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}${basePath}`,
    token,
    received,
    webhooks,
    messages: () => [...sent],
    waitForMessages(n: number, timeoutMs = 5000) {
      return new Promise<Array<Record<string, unknown>>>((resolve, reject) => {
        if (sent.length >= n) return resolve([...sent]);
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fake platform: expected ${n} message(s) within ${timeoutMs} ms, got ${sent.length}`));
        }, timeoutMs);
        const check = () => {
          if (sent.length < n) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve([...sent]);
        };
        waiters.add(check);
      });
    },
    failNext(n: number, status = 500, body?: string) {
      failures = n > 0 ? { remaining: n, status, ...(body === undefined ? {} : { body }) } : null;
    },
    setRedirect(location: string | null, status = 302) {
      redirect = location === null ? null : { location, status };
    },
    close() {
      for (const t of pendingTimers) clearTimeout(t);
      pendingTimers.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  });
}
