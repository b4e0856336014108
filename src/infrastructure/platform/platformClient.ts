import http from 'node:http';
import https from 'node:https';
import { z } from 'zod';
import { platformIdSchema, type PlatformId } from '../../domain/platformId.js';
import { silentLogger, type Logger } from '../../ports/logger.js';
import { PlatformError, WEBHOOK_EVENTS, type PlatformClient, type RegisterWebhookInput, type SendMessageInput } from '../../ports/platform.js';
import { readCappedBody } from '../net/cappedBody.js';
import { createConnectionPool, failedOnStaleSocket } from '../net/connectionPool.js';
import { checkPlatformUrl, guardedLookup, isSsrfRefusal, type Resolver } from '../net/ssrfGuard.js';

/**
 * The messaging platform's HTTP API (API.md, "The messaging platform"): webhook registration and
 * sending replies. Every failure becomes a PlatformError whose message is safe to log and to
 * show: it names the status and the call (`POST /v1/messages`), never the response body, the
 * API token or the URL's query, since bodies may echo tokens or customer data.
 */

export { PlatformError, WEBHOOK_EVENTS } from '../../ports/platform.js';
export type { PlatformClient, PlatformErrorKind, RegisterWebhookInput, SendMessageInput } from '../../ports/platform.js';

export interface PlatformClientOptions {
  /** ALLOW_PRIVATE_PLATFORM_URLS: permits loopback/private targets (tests, local platforms). */
  allowPrivate: boolean;
  /** Production: the apiUrl must be https. */
  requireHttps: boolean;
  /** Hard deadline for one call, from DNS and connect to the last response byte. */
  timeoutMs?: number;
  logger?: Logger;
  /** Responses larger than this are abandoned as bad_response. */
  maxResponseBytes?: number;
  /** DNS resolver for the SSRF-guarded lookup; tests inject one to simulate names offline. */
  resolver?: Resolver;
}

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

const envelopeSchema = z.object({ status: z.string(), data: z.unknown().optional() });
const webhookListSchema = z.array(z.object({ id: platformIdSchema, url: z.string().nullish() }).loose());
const createdWebhookSchema = z.object({ id: platformIdSchema }).loose();
const sentMessageSchema = z.object({ message_id: platformIdSchema.nullish() }).loose().nullish();

/** Common connection failures in words: these reasons are shown to people in the conversation view. */
const NETWORK_ERRORS: Record<string, string> = {
  ENOTFOUND: 'its host name does not resolve; check the API URL',
  EAI_AGAIN: 'its host name could not be resolved right now',
  ECONNREFUSED: 'nothing accepts connections at that address',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate does not match the host name',
};

// Header values cannot carry control characters; checked here so Node never throws mid-call.
const HEADER_SAFE = /^[\t\x20-\x7e\x80-\xff]+$/;

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
}

export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const logger = options.logger ?? silentLogger;
  const lookup = guardedLookup(options.allowPrivate, options.resolver);
  const pool = createConnectionPool();

  /** Performs one call and returns the envelope's `data`. */
  function call(method: 'GET' | 'POST' | 'PUT', apiUrl: string, apiToken: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<unknown> {
    // The call as named in errors and logs: method and path, no host query, no token.
    const what = `${method} ${path}`;
    const checked = checkPlatformUrl(apiUrl, { allowPrivate: options.allowPrivate, requireHttps: options.requireHttps });
    if (!checked.ok) return Promise.reject(new PlatformError('blocked', `platform URL refused: ${checked.reason}`));
    if (!HEADER_SAFE.test(apiToken)) {
      return Promise.reject(new PlatformError('refused', 'platform API token is missing or not a valid header value'));
    }
    const base = checked.url;
    // apiUrl may carry a path prefix (a gateway, a versioned mount): keep it, and its query.
    const fullPath = `${base.pathname.replace(/\/+$/, '')}${path}${base.search}`;
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
    const headers: Record<string, string | number> = {
      ...extraHeaders,
      authorization: apiToken,
      accept: 'application/json',
      'user-agent': 'messaging-agent-service',
    };
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = payload.length;
    }
    const started = Date.now();

    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const settle = (err: PlatformError | null, data?: unknown, status?: number) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const log = { method, path, status, ms: Date.now() - started };
        if (err) {
          logger.warn({ ...log, kind: err.kind }, err.message);
          reject(err);
        } else {
          logger.debug(log, 'platform call succeeded');
          resolve(data);
        }
      };

      const transport = base.protocol === 'https:' ? https : http;
      let req: http.ClientRequest | undefined;
      let answered = false;
      const start = (agent: http.Agent | false) => {
        let r: http.ClientRequest;
        try {
          r = transport.request({
            method,
            protocol: base.protocol,
            hostname: base.hostname.replace(/^\[(.*)\]$/, '$1'),
            port: base.port === '' ? undefined : Number(base.port),
            path: fullPath,
            headers,
            // Kept alive (connectionPool.ts): every new connection still goes through the guarded lookup.
            agent,
            lookup: lookup as unknown as http.RequestOptions['lookup'],
          });
        } catch {
          settle(new PlatformError('bad_response', `could not build the request ${what}`));
          return;
        }
        req = r;

        r.on('error', (err: NodeJS.ErrnoException) => {
          if (failedOnStaleSocket(r, err, answered) && !settled) {
            start(false);
            return;
          }
          if (isSsrfRefusal(err)) {
            settle(new PlatformError('blocked', `platform host refused: ${err.message}`));
          } else {
            const code = err.code ?? 'connection failed';
            settle(new PlatformError('unreachable', `platform unreachable for ${what} (${code}${NETWORK_ERRORS[code] ? `: ${NETWORK_ERRORS[code]}` : ''})`));
          }
        });

        r.on('response', (res) => {
          answered = true;
          const status = res.statusCode ?? 0;
          // Registered first: destroying the request below makes the response emit 'error'.
          res.on('error', () => {
            settle(new PlatformError('unreachable', `platform connection broke while answering ${what}`, status));
          });
          if (status >= 300 && status < 400) {
            // Following a redirect would let the platform (or anyone on the path) aim us anywhere.
            settle(new PlatformError('bad_response', `platform answered ${status} to ${what}; redirects are not followed`, status));
            r.destroy();
            return;
          }
          readCappedBody(r, res, maxBytes, {
            tooLarge: () => settle(new PlatformError('bad_response', `platform answer to ${what} exceeds ${maxBytes} bytes`, status)),
            done: (buffer) => {
              if (status < 200 || status >= 300) {
                // The status with its name ("401 Unauthorized"): this reason is shown to people in the conversation view.
                settle(new PlatformError('refused', `platform answered ${status}${http.STATUS_CODES[status] ? ` ${http.STATUS_CODES[status]}` : ''} to ${what}`, status));
                return;
              }
              let json: unknown;
              try {
                json = JSON.parse(buffer.toString('utf8'));
              } catch {
                settle(new PlatformError('bad_response', `platform answered ${status} to ${what} with a body that is not JSON`, status));
                return;
              }
              const envelope = envelopeSchema.safeParse(json);
              if (!envelope.success) {
                settle(new PlatformError('bad_response', `platform answered ${status} to ${what} without a status field`, status));
              } else if (envelope.data.status === 'success') {
                settle(null, envelope.data.data, status);
              } else if (envelope.data.status === 'error') {
                settle(new PlatformError('refused', `platform answered ${status} with status "error" to ${what}`, status));
              } else {
                settle(new PlatformError('bad_response', `platform answered ${status} to ${what} with an unknown status`, status));
              }
            },
          });
        });

        r.end(payload);
      };
      // One deadline for the whole exchange (a resend on a new socket included); socket timeouts alone would
      // restart on every byte.
      timer = setTimeout(() => {
        settle(new PlatformError('timeout', `platform did not answer ${what} within ${timeoutMs} ms`));
        req?.destroy();
      }, timeoutMs);
      start(pool.agentFor(base.protocol));
    });
  }

  return {
    async registerWebhook({ apiUrl, apiToken, url, name }) {
      const listed = webhookListSchema.safeParse(await call('GET', apiUrl, apiToken, '/v1/webhooks'));
      if (!listed.success) throw new PlatformError('bad_response', 'platform answered GET /v1/webhooks with an unexpected data shape');
      const body = { name, url, events: [...WEBHOOK_EVENTS] };
      const existing = listed.data.find((w) => typeof w.url === 'string' && sameUrl(w.url, url));
      if (existing) {
        await call('PUT', apiUrl, apiToken, `/v1/webhooks/${encodeURIComponent(String(existing.id))}`, body);
        return { webhookId: existing.id, created: false };
      }
      const created = createdWebhookSchema.safeParse(await call('POST', apiUrl, apiToken, '/v1/webhooks', body));
      if (!created.success) throw new PlatformError('bad_response', 'platform answered POST /v1/webhooks without a webhook id');
      return { webhookId: created.data.id, created: true };
    },

    async sendMessage({ apiUrl, apiToken, clientId, channelId, transport, text, idempotencyKey }) {
      const body = { client_id: clientId, text, type: 'to_client', transport, channel_id: channelId };
      // The same key on every attempt of one reply: a platform that honours Idempotency-Key sends it once.
      const data = await call('POST', apiUrl, apiToken, '/v1/messages', body, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {});
      const parsed = sentMessageSchema.safeParse(data);
      const messageId = parsed.success ? (parsed.data?.message_id ?? null) : null;
      if (messageId === null) logger.warn({ path: '/v1/messages' }, 'platform accepted a message without naming its message_id');
      return { messageId };
    },
  };
}
