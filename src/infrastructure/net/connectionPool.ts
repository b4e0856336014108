import http from 'node:http';
import https from 'node:https';

/**
 * Kept-alive connections for one outbound client (the platform client, one LLM fetch). A new connection per
 * call cost the reply thread about a tenth of its time on plain HTTP, and a TLS handshake per call in
 * production.
 *
 * Reuse keeps the SSRF guard whole: a socket is only ever connected to an address the guarded lookup checked
 * when it was opened, and every new socket is checked again. Each client has its own agents, so a socket opened
 * under one policy (one resolver, one allowPrivate) is never lent to another. No limit on sockets per host: one
 * tenant's slow endpoint never queues another tenant's call behind it on the same host.
 */
export interface ConnectionPool {
  agentFor(protocol: string): http.Agent;
}

/** Idle sockets close after this: under Node's and most servers' keep-alive timeout (5 s), so a server rarely closes one first. */
const IDLE_MS = 4_000;
const MAX_IDLE_PER_HOST = 32;

/** `maxIdlePerHost`: idle sockets kept per host (default 32); past it a socket is closed once answered. */
export function createConnectionPool(settings: { maxIdlePerHost?: number } = {}): ConnectionPool {
  const options = { keepAlive: true, timeout: IDLE_MS, maxFreeSockets: settings.maxIdlePerHost ?? MAX_IDLE_PER_HOST };
  const plain = new http.Agent(options);
  const secure = new https.Agent(options);
  return { agentFor: (protocol) => (protocol === 'https:' ? secure : plain) };
}

const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * A call that failed on a reused socket before any answer: the server had closed the idle connection as we
 * wrote to it, so it never read the request. Node's documented remedy is to send it again on a new socket,
 * once (the platform's sends also carry an idempotency key).
 */
export function failedOnStaleSocket(req: http.ClientRequest, err: NodeJS.ErrnoException, answered: boolean): boolean {
  return req.reusedSocket && !answered && STALE_SOCKET_CODES.has(err.code ?? '');
}
