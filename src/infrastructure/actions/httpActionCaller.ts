import type { ActionCaller, ActionHttpRequest, ActionHttpResult } from '../../ports/actionCaller.js';
import { createGuardedFetch, CUT_HEADER } from '../net/guardedFetch.js';
import { isSsrfRefusal, type Resolver } from '../net/ssrfGuard.js';

export interface HttpActionCallerOptions {
  allowPrivate: boolean;
  requireHttps: boolean;
  resolver?: Resolver;
}

/**
 * Of a larger answer only this much is read, and the call still succeeds when its status says so: an endpoint that
 * refunded and answered 200 with a large page did refund (telling the customer it failed invited a second refund).
 * The model reads at most ACTION_LIMITS.maxResponseChars of a mapped answer anyway.
 */
export const MAX_ACTION_RESPONSE_BYTES = 256 * 1024;

export function createHttpActionCaller(options: HttpActionCallerOptions): ActionCaller {
  const guardedFetch = createGuardedFetch({
    allowPrivate: options.allowPrivate,
    requireHttps: options.requireHttps,
    maxResponseBytes: MAX_ACTION_RESPONSE_BYTES,
    overCap: 'cut',
    // A call that may change data is never sent twice: a reset after the endpoint read it is not a stale socket.
    freshConnectionFor: ['POST', 'PUT', 'PATCH', 'DELETE'],
    ...(options.resolver ? { resolver: options.resolver } : {}),
  });
  return {
    async call(request: ActionHttpRequest): Promise<ActionHttpResult> {
      const started = performance.now();
      const durationMs = () => Math.round(performance.now() - started);
      const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'messaging-agent-actions/1', 'idempotency-key': request.idempotencyKey };
      for (const h of request.headers) headers[h.name.toLowerCase()] = h.value;
      if (request.body !== null) headers['content-type'] = 'application/json';
      try {
        const res = await guardedFetch(request.url, {
          method: request.method,
          headers,
          ...(request.body !== null ? { body: JSON.stringify(request.body) } : {}),
          signal: AbortSignal.timeout(request.timeoutMs),
        });
        const body = Buffer.from(await res.arrayBuffer()).toString('utf8');
        if (res.status >= 300 && res.status < 400) return { ok: false, status: res.status, durationMs: durationMs(), error: 'the endpoint answered with a redirect, which is not followed' };
        if (res.status >= 400) return { ok: false, status: res.status, durationMs: durationMs(), error: `the endpoint answered ${res.status}` };
        return { ok: true, status: res.status, durationMs: durationMs(), body, ...(res.headers.get(CUT_HEADER) === '1' ? { cut: true } : {}) };
      } catch (err) {
        return { ok: false, status: null, durationMs: durationMs(), error: plainFailure(err, request.timeoutMs) };
      }
    },
  };
}

/** What went wrong, without the address, the headers or a stack (the error's own message may name the host). */
function plainFailure(err: unknown, timeoutMs: number): string {
  if (isSsrfRefusal(err)) return 'the address is not allowed (private, loopback or not https)';
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `no answer within ${timeoutMs} ms`;
  const code = (err as { code?: unknown; cause?: { code?: unknown } } | null)?.code ?? (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (code === 'ECONNREFUSED') return 'the endpoint refused the connection';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the endpoint’s name could not be resolved';
  if (code === 'ECONNRESET') return 'the connection was reset';
  return 'the endpoint could not be reached';
}
