import http from 'node:http';
import { checkPlatformUrl, guardedLookup, RefusedUrlError, type Resolver, type UrlPolicy } from './ssrfGuard.js';
import { readBodyPrefix, readCappedBody } from './cappedBody.js';
import { createConnectionPool } from './connectionPool.js';
import { openGuardedRequest } from './guardedRequest.js';

/**
 * A `fetch` for URLs a tenant chose (the LLM base URL), with the platform client's SSRF guard:
 *
 * - the URL passes `checkPlatformUrl` first (IP literals never reach a `lookup` hook);
 * - every connection resolves the name through `guardedLookup`, which refuses it when any resolved address
 *   is loopback/private/link-local/metadata/unspecified/multicast (or an IPv6 form of one), so a name that
 *   resolves — or is rebound — to 127.0.0.1 is refused on the address that would be dialled;
 * - the request itself goes out as every guarded one does (guardedRequest.ts);
 * - connections are kept alive per fetch (connectionPool.ts): a socket is reused only to the address that was
 *   checked when it was opened, and a request that meets a socket the server had just closed is sent once more
 *   on a new one;
 * - redirects are never followed: a 3xx comes back as it is, without its body, for the caller to refuse;
 * - bodies are read whole (capped) before the promise resolves, so the caller's abort signal (the SDK's
 *   timeout) covers the entire exchange; `accept-encoding: identity` keeps them uncompressed. The exception
 *   is a 2xx `text/event-stream` (a streamed answer): its body is handed on as it arrives, still capped in
 *   total, and the abort signal keeps cutting it until it ends (the caller watches for a stalled stream).
 *
 * Refusals reject with an error whose `code` is `ERR_SSRF_BLOCKED` (`isSsrfRefusal`).
 */

export interface GuardedFetchOptions extends UrlPolicy {
  /** DNS resolver for the guarded lookup; tests inject one to simulate names offline. */
  resolver?: Resolver;
  /** Responses larger than this are abandoned with an error (or cut, with `overCap: 'cut'`). Default 10 MiB. */
  maxResponseBytes?: number;
  /**
   * Past `maxResponseBytes`: `fail` (the default) for callers that need the whole body; `cut` for callers whose
   * outcome the status decides (an action that did its work answers 200 whatever it says after): the response
   * comes back with the first `maxResponseBytes` and the `CUT_HEADER`, the rest is not read.
   */
  overCap?: 'fail' | 'cut';
  /** Methods sent on a connection of their own, never resent after a reset (guardedRequest.ts `reuse`). Default: none. */
  freshConnectionFor?: readonly string[];
}

const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/** Set on a response whose body was cut at the cap (`overCap: 'cut'`); never taken from the server. */
export const CUT_HEADER = 'x-guarded-fetch-cut';

export class ResponseTooLargeError extends Error {
  override readonly name = 'ResponseTooLargeError';
  constructor(limit: number) {
    super(`the response exceeds ${limit} bytes`);
  }
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('This operation was aborted', 'AbortError');
}

export function createGuardedFetch(options: GuardedFetchOptions): typeof fetch {
  const policy: UrlPolicy = { allowPrivate: options.allowPrivate, requireHttps: options.requireHttps };
  const lookup = guardedLookup(options.allowPrivate, options.resolver);
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const pool = createConnectionPool();

  return async function guardedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    // Request normalises every accepted input shape (URL or Request, header lists, string or byte bodies).
    const request = new Request(input, init);
    const checked = checkPlatformUrl(request.url, policy);
    if (!checked.ok) throw new RefusedUrlError(checked.reason);
    const url = checked.url;
    const signal = request.signal;
    if (signal.aborted) throw abortError(signal);
    const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    headers['accept-encoding'] = 'identity';
    if (body !== undefined) headers['content-length'] = String(body.length);

    return new Promise<Response>((resolve, reject) => {
      let settled = false;
      const finish = (err: unknown, response?: Response) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve(response!);
      };
      const onAbort = () => {
        finish(abortError(signal));
        exchange.destroy();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const exchange = openGuardedRequest(
        { url, method: request.method, headers, body, lookup, pool, reuse: !options.freshConnectionFor?.includes(request.method) },
        {
          error: (err) => finish(err),
          response: (res, r) => {
            const status = res.statusCode ?? 0;
            res.on('error', (err) => finish(err));
            const init = { status, statusText: res.statusMessage ?? '', headers: responseHeaders(res) };
            if (status < 200 || status > 599) {
              finish(new Error(`the server answered with an unusable HTTP status ${status}`));
              r.destroy();
              return;
            }
            if (status >= 300 && status < 400) {
              // Never followed, and the body (often an HTML page naming the target) is not kept.
              finish(null, new Response(null, init));
              r.destroy();
              return;
            }
            if (status < 300 && /^text\/event-stream\b/i.test(res.headers['content-type'] ?? '')) {
              finish(null, new Response(streamBody(r, res, signal, maxBytes), init));
              return;
            }
            const answer = (buffer: Buffer) => new Response(NULL_BODY_STATUSES.has(status) ? null : new Uint8Array(buffer), init);
            if (options.overCap === 'cut') {
              readBodyPrefix(r, res, maxBytes, (buffer, cut) => {
                if (cut) init.headers.set(CUT_HEADER, '1');
                finish(null, answer(buffer));
              });
              return;
            }
            readCappedBody(r, res, maxBytes, {
              tooLarge: () => finish(new ResponseTooLargeError(maxBytes)),
              done: (buffer) => finish(null, answer(buffer)),
            });
          },
        },
      );
    });
  } as typeof fetch;
}

function responseHeaders(res: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    if (res.rawHeaders[i]!.toLowerCase() === CUT_HEADER) continue;
    try {
      headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    } catch {
      // A header value fetch cannot represent: dropped, as fetch itself would refuse the response.
    }
  }
  return headers;
}

/** A streamed body as it arrives: at most `maxBytes` in total, cut (with an error) by the signal or the cap. */
function streamBody(req: http.ClientRequest, res: http.IncomingMessage, signal: AbortSignal, maxBytes: number): ReadableStream<Uint8Array> {
  let size = 0;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let done = false;
      const end = (err?: unknown) => {
        if (done) return;
        done = true;
        signal.removeEventListener('abort', onAbort);
        if (err) {
          controller.error(err);
          req.destroy();
        } else controller.close();
      };
      const onAbort = () => end(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      res.on('data', (chunk: Buffer) => {
        if (done) return;
        size += chunk.length;
        if (size > maxBytes) return end(new ResponseTooLargeError(maxBytes));
        controller.enqueue(new Uint8Array(chunk));
      });
      res.on('end', () => end());
      res.on('error', (err) => end(err));
      res.on('close', () => {
        // Closed before its end: the server (or the network) broke the stream off.
        if (!res.complete) end(new Error('the connection closed before the streamed response ended'));
      });
    },
    cancel() {
      req.destroy();
    },
  });
}
