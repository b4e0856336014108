import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { API_TOKENS, type ApiTokenDoc } from '../../projections/apiTokens/apiTokensProjection.js';
import type { LiveEvents } from '../../processing/liveEvents.js';
import { resolveToken, type AuthContext } from '../authenticate.js';
import { HttpError } from '../errors.js';
import type { HttpServices } from '../services.js';
import { errorResponses } from './schemas.js';

export interface LiveEventRouteOptions {
  /** Comment line sent to keep proxies and the socket from timing out; the token is re-checked then too. */
  keepAliveMs?: number;
  /** `retry:` hint for the browser's own reconnect. */
  retryMs?: number;
  /** Open streams allowed per company (429 beyond). */
  maxStreamsPerCompany?: number;
}

const BEARER = /^Bearer ([\x21-\x7e]{1,4096})$/;

/**
 * `GET /api/events/stream?access_token=<token>`: EventSource cannot send headers, so this one route takes
 * the bearer (session JWT or API token) in the query string (an Authorization header works too). A bad
 * token is answered 401 with the usual JSON error before any stream starts. The token is checked again on
 * every keep-alive, so an expired, logged-out or revoked token ends the stream within one interval (the
 * dashboard then refreshes and reconnects). The server's close ends every stream first, so shutdown is
 * never held up by open connections.
 */
export function liveEventRoutes(services: HttpServices, live: LiveEvents, options: LiveEventRouteOptions = {}): FastifyPluginAsyncZod {
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const retryMs = options.retryMs ?? 3_000;
  const maxStreamsPerCompany = options.maxStreamsPerCompany ?? 100;

  const stillValid = async (auth: AuthContext, token: string): Promise<boolean> => {
    try {
      if (auth.kind === 'api_token') {
        // The read model, not the token's stream: re-verifying would record a "use" every minute.
        const doc = await services.readStore.get<ApiTokenDoc>(API_TOKENS, auth.tokenId ?? '');
        return doc !== null && !doc.revoked && doc.companyId === auth.companyId;
      }
      const again = await resolveToken(services, token);
      return again.companyId === auth.companyId;
    } catch (err) {
      return !(err instanceof HttpError && err.statusCode === 401);
    }
  };

  return async (app) => {
    const open = new Set<() => void>();
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
      for (const end of [...open]) end();
    });

    app.get(
      '/api/events/stream',
      {
        schema: {
          tags: ['events'],
          summary: 'Live conversation changes (Server-Sent Events)',
          description:
            'text/event-stream: `event: conversation` with `data: {"conversationId":"…"}` whenever one of the company\'s conversations changes, `event: webhook-log` with `data: {"logId":"…","integrationId":7,"conversationId":"…"|null}` whenever a webhook delivery is logged; comment lines as keep-alive. The bearer goes in `access_token` because EventSource cannot send headers.',
          querystring: z.object({ access_token: z.string().max(4096).optional() }),
          response: { 200: z.string().describe('text/event-stream'), ...errorResponses, 503: errorResponses[500] },
        },
      },
      async (request, reply) => {
        const header = request.headers.authorization;
        const token = request.query.access_token || (typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined);
        const auth = await resolveToken(services, token);
        if (closing) throw new HttpError(503, 'UNAVAILABLE', 'The server is shutting down');
        if (live.listeners(auth.companyId) >= maxStreamsPerCompany) {
          throw new HttpError(429, 'RATE_LIMITED', 'Too many open event streams for this company', 10);
        }

        reply.hijack();
        open.add(streamChanges(reply.raw, request.raw.socket, request.id, { auth, token: token!, live, retryMs, keepAliveMs, stillValid, onEnd: (end) => open.delete(end) }));
        request.log.debug({ companyId: auth.companyId }, 'event stream opened');
      },
    );
  };
}

interface StreamOptions {
  auth: AuthContext;
  token: string;
  live: LiveEvents;
  retryMs: number;
  keepAliveMs: number;
  stillValid(auth: AuthContext, token: string): Promise<boolean>;
  onEnd(end: () => void): void;
}

/** Writes the company's changes to a hijacked response until it closes or the token stops being valid; returns its end. */
function streamChanges(res: ServerResponse, socket: Socket, requestId: string, o: StreamOptions): () => void {
  // The server's idle timeout would cut a quiet stream; keep-alives keep proxies happy instead.
  socket.setTimeout(0);
  socket.setNoDelay(true);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-store, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': requestId,
  });
  res.write(`retry: ${o.retryMs}\n: connected\n\n`);

  let ended = false;
  const unlisten = o.live.listen(o.auth.companyId, (change) => {
    if (ended) return;
    if (change.kind === 'conversation') res.write(`event: conversation\ndata: ${JSON.stringify({ conversationId: change.conversationId })}\n\n`);
    else res.write(`event: webhook-log\ndata: ${JSON.stringify({ logId: change.logId, integrationId: change.integrationId, conversationId: change.conversationId })}\n\n`);
  });
  let checking = false;
  const timer = setInterval(() => {
    if (ended || checking) return;
    res.write(': keep-alive\n\n');
    checking = true;
    void o.stillValid(o.auth, o.token).then((valid) => {
      checking = false;
      if (!valid) end();
    });
  }, o.keepAliveMs);
  timer.unref();

  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(timer);
    unlisten();
    o.onEnd(end);
    if (!res.writableEnded) res.end();
  };
  res.on('close', end);
  res.on('error', end);
  return end;
}
