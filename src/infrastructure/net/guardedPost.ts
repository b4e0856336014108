import { readBodyPrefix } from './cappedBody.js';
import { createConnectionPool } from './connectionPool.js';
import { openGuardedRequest } from './guardedRequest.js';
import { checkPlatformUrl, guardedLookup, RefusedUrlError, type Resolver, type UrlPolicy } from './ssrfGuard.js';

/**
 * A plain POST to a URL a tenant chose (webhook deliveries), with the same guard as the guarded fetch and none of
 * fetch's machinery: no Request, Headers, body streams or Response per call, which cost a webhook delivery about
 * 15 % of its thread. What it keeps of the guard:
 * - the URL passes `checkPlatformUrl` (https when required, no private or local literal);
 * - every socket resolves its name through `guardedLookup` and is kept alive only to the address checked
 *   (guardedRequest.ts, connectionPool.ts);
 * - redirects are never followed: a 3xx answers with its status and whether it named a location, its body dropped;
 * - the answer's status decides, and of its body only the first `maxResponseBytes` are read: past them the exchange
 *   ends there, with what was read (a 200 with a large page is still a 200); one timer covers the whole exchange,
 *   body included.
 * Refusals reject with an error whose `code` is `ERR_SSRF_BLOCKED`; a timeout rejects with a `TimeoutError`.
 */

export interface GuardedPostOptions extends UrlPolicy {
  resolver?: Resolver;
  maxResponseBytes: number;
}

export interface GuardedPostRequest {
  headers: Record<string, string>;
  body: string | Buffer;
  timeoutMs: number;
}

export interface GuardedPostAnswer {
  status: number;
  /** Empty for a 3xx (never kept) and for answers without a body; at most `maxResponseBytes`. */
  body: Buffer;
  /** The body went on past `maxResponseBytes` (and was not read further). */
  cut: boolean;
  /** Whether a 3xx named where to go (it is not followed). */
  redirected: boolean;
}

export type GuardedPost = (url: string, request: GuardedPostRequest) => Promise<GuardedPostAnswer>;

export class GuardedPostTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/**
 * Webhook receivers often share a host (a company's endpoints on one server, a platform hosting many companies'),
 * each endpoint with up to 8 deliveries in flight: with the default 32 idle sockets per host, every answer past
 * the 32nd closed its socket and the next delivery opened a new one (connect and close were ~2.5 % of the
 * delivery thread in bench:webhooks-out, where all 100 endpoints share one host).
 */
const IDLE_SOCKETS_PER_HOST = 256;
/** URLs checked once each, not on every delivery: bounded, as endpoints come and go. */
const CHECKED_URLS_KEPT = 1000;

export function createGuardedPost(options: GuardedPostOptions): GuardedPost {
  const policy: UrlPolicy = { allowPrivate: options.allowPrivate, requireHttps: options.requireHttps };
  const lookup = guardedLookup(options.allowPrivate, options.resolver);
  const pool = createConnectionPool({ maxIdlePerHost: IDLE_SOCKETS_PER_HOST });
  const checked = new Map<string, ReturnType<typeof checkPlatformUrl>>();
  const check = (raw: string) => {
    let verdict = checked.get(raw);
    if (!verdict) {
      if (checked.size >= CHECKED_URLS_KEPT) checked.clear();
      checked.set(raw, (verdict = checkPlatformUrl(raw, policy)));
    }
    return verdict;
  };

  return (raw, request) => {
    const verdict = check(raw);
    if (!verdict.ok) return Promise.reject(new RefusedUrlError(verdict.reason));
    const headers = { ...request.headers, 'accept-encoding': 'identity', 'content-length': String(Buffer.byteLength(request.body)) };
    return new Promise<GuardedPostAnswer>((resolve, reject) => {
      let settled = false;
      const finish = (err: unknown, answer?: GuardedPostAnswer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(answer!);
      };
      const timer = setTimeout(() => {
        finish(new GuardedPostTimeoutError(request.timeoutMs));
        exchange.destroy();
      }, request.timeoutMs);
      const exchange = openGuardedRequest(
        { url: verdict.url, method: 'POST', headers, body: request.body, lookup, pool },
        {
          error: (err) => finish(err),
          response: (res, req) => {
            const status = res.statusCode ?? 0;
            res.on('error', (err) => finish(err));
            if (status < 200 || status > 599) {
              finish(new Error(`the server answered with an unusable HTTP status ${status}`));
              req.destroy();
            } else if (status >= 300 && status < 400) {
              finish(null, { status, body: Buffer.alloc(0), cut: false, redirected: typeof res.headers.location === 'string' && res.headers.location !== '' });
              req.destroy();
            } else {
              readBodyPrefix(req, res, options.maxResponseBytes, (body, cut) => finish(null, { status, body, cut, redirected: false }));
            }
          },
        },
      );
    });
  };
}
