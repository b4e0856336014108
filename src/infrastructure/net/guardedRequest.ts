import http from 'node:http';
import https from 'node:https';
import { failedOnStaleSocket, type ConnectionPool } from './connectionPool.js';
import type { LookupFunction } from './ssrfGuard.js';

/**
 * One outbound request on a URL that passed `checkPlatformUrl`, shared by the guarded fetch (LLM calls) and the
 * guarded POST (webhook deliveries), so both dial the same way:
 * - every new socket resolves its name through the guard's `lookup`, which refuses a private or rebound address on
 *   the address that would be dialled (IP literals never reach it: the URL check refused those already);
 * - sockets are the pool's kept-alive ones, each only ever connected to an address the lookup checked;
 * - a request that meets a reused socket the server had just closed is sent once more on a new one (unless it
 *   asked for a connection of its own, `reuse: false`).
 */
export interface GuardedRequestSpec {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Buffer | string | undefined;
  lookup: LookupFunction;
  pool: ConnectionPool;
  /**
   * false: a connection of its own, never a kept-alive one. A reset on it is never taken for a stale socket, so the
   * request is never sent twice (a call that changes data, whose server may have read it before the reset).
   */
  reuse?: boolean;
}

export interface GuardedRequestHandlers {
  /** The answer's head arrived: read or drop its body (destroying `req` drops the socket). */
  response(res: http.IncomingMessage, req: http.ClientRequest): void;
  /** The request failed before its answer (a refused address, a connection error). */
  error(err: unknown): void;
}

export interface GuardedRequest {
  /** Cuts the exchange off (a timeout, an abort): the socket is closed, never reused. */
  destroy(): void;
}

export function openGuardedRequest(spec: GuardedRequestSpec, on: GuardedRequestHandlers): GuardedRequest {
  const { url } = spec;
  const transport = url.protocol === 'https:' ? https : http;
  let current: http.ClientRequest | undefined;
  let answered = false;
  let done = false;
  const start = (agent: http.Agent | false) => {
    let req: http.ClientRequest;
    try {
      req = transport.request({
        method: spec.method,
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers: spec.headers,
        agent,
        lookup: spec.lookup as unknown as http.RequestOptions['lookup'],
      });
    } catch (err) {
      done = true;
      on.error(err);
      return;
    }
    current = req;
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (done) return;
      if (failedOnStaleSocket(req, err, answered)) return start(false);
      done = true;
      on.error(err);
    });
    req.on('response', (res) => {
      answered = true;
      on.response(res, req);
    });
    req.end(spec.body);
  };
  start(spec.reuse === false ? false : spec.pool.agentFor(url.protocol));
  return {
    destroy() {
      done = true;
      current?.destroy();
    },
  };
}
