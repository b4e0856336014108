import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { EventStore, RecordedEvent } from '../../ports/eventStore.js';
import type { Logger } from '../../ports/logger.js';
import type { ReadStore } from '../../ports/readStore.js';
import { API_TOKENS, type ApiTokenDoc } from '../../projections/apiTokens/apiTokensProjection.js';
import { CONVERSATIONS, type ConversationDoc } from '../../projections/conversations/conversationsProjection.js';
import { createEventConsumer, type EventConsumer } from '../../processing/eventConsumer.js';
import { resolveToken, type AuthContext } from '../authenticate.js';
import { HttpError } from '../errors.js';
import type { HttpServices } from '../services.js';
import { errorResponses } from './schemas.js';

/**
 * Live updates for the dashboard: `GET /api/events/stream` (Server-Sent Events).
 *
 * A processor on the instance's shared event consumer (eventConsumer.ts) follows the `conversation-*` and
 * `webhooklog-*` streams from the head at start-up. For each batch it waits until the projections have passed the batch's last
 * position (so the dashboard's refetch sees the change), then tells the connected clients of each affected
 * company which conversations changed and which webhook deliveries were logged. Nothing is replayed: a client
 * that reconnects refetches its lists.
 */

const CONVERSATION_PREFIX = 'conversation-';
const WEBHOOK_LOG_PREFIX = 'webhooklog-';

export type LiveChange =
  | { kind: 'conversation'; conversationId: string }
  | { kind: 'webhookLog'; logId: string; integrationId: number; conversationId: string | null };
export type LiveListener = (change: LiveChange) => void;

/** What a stored event tells the dashboard (null: nothing). */
function changeOf(event: RecordedEvent): LiveChange | null {
  if (event.stream.startsWith(CONVERSATION_PREFIX)) return { kind: 'conversation', conversationId: event.stream.slice(CONVERSATION_PREFIX.length) };
  if (event.stream.startsWith(WEBHOOK_LOG_PREFIX) && event.type === 'WebhookDeliveryLogged') {
    const d = event.data as { logId: string; integrationId: number; conversationId: string | null };
    return { kind: 'webhookLog', logId: d.logId, integrationId: d.integrationId, conversationId: d.conversationId };
  }
  return null;
}
const changeKey = (c: LiveChange) => (c.kind === 'conversation' ? `c:${c.conversationId}` : `w:${c.logId}`);

export interface LiveEvents {
  /** Calls `listener` for every change of one of the company's conversations and webhook logs; returns the unsubscribe. */
  listen(companyId: string, listener: LiveListener): () => void;
  /** Connected listeners (of one company, or of all). */
  listeners(companyId?: string): number;
  stop(): Promise<void>;
}

export interface StartLiveEventsOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  /** Resolves once every projection has applied the event at `position`. */
  waitForProjections(position: bigint): Promise<void>;
  logger: Logger;
  /** The consumer it follows the log on; by default one of its own. */
  consumer?: EventConsumer;
  /** Events per read of its own consumer. Default 200. */
  batchSize?: number;
}

export async function startLiveEvents(options: StartLiveEventsOptions): Promise<LiveEvents> {
  const { eventStore, readStore, logger } = options;
  const byCompany = new Map<string, Set<LiveListener>>();
  let total = 0;
  let stopped = false;
  // Start at the head: only changes from now on are news; a client's first fetch covers the past.
  let position = await eventStore.headPosition();

  const companyOf = async (event: RecordedEvent): Promise<string | null> => {
    if (event.metadata.companyId) return event.metadata.companyId;
    const doc = await readStore.get<ConversationDoc>(CONVERSATIONS, event.stream.slice(CONVERSATION_PREFIX.length)).catch(() => null);
    return doc?.companyId ?? null;
  };

  const handle = async (events: RecordedEvent[]) => {
    const last = events.at(-1)!.position;
    if (total > 0 && !stopped) {
      try {
        await options.waitForProjections(last);
      } catch (err) {
        // Still notify: the refetch may show slightly older data, but the client hears about the change.
        if (!stopped) logger.warn({ err, position: String(last) }, 'live events: projections lagging; notifying anyway');
      }
      const changed = new Map<string, Map<string, LiveChange>>();
      for (const event of events) {
        const change = changeOf(event);
        if (!change) continue;
        const companyId = await companyOf(event);
        if (!companyId || !byCompany.has(companyId)) continue;
        let changes = changed.get(companyId);
        if (!changes) changed.set(companyId, (changes = new Map()));
        changes.set(changeKey(change), change);
      }
      for (const [companyId, changes] of changed) {
        for (const listener of [...(byCompany.get(companyId) ?? [])]) {
          for (const change of changes.values()) {
            try {
              listener(change);
            } catch (err) {
              logger.warn({ err }, 'live events: a listener failed');
            }
          }
        }
      }
    }
  };

  const ownConsumer = options.consumer ? null : createEventConsumer({ eventStore, logger, batchSize: options.batchSize ?? 200 });
  const attached = (options.consumer ?? ownConsumer!).attach({
    name: 'live-events',
    filter: { streamPrefixes: [CONVERSATION_PREFIX, WEBHOOK_LOG_PREFIX] },
    resumeAfter: async () => position,
    handle: async (events, through) => {
      if (events.length > 0) await handle(events);
      position = through;
    },
    retryDelay: (err, attempt) => {
      const delay = Math.min(30_000, 250 * 2 ** (attempt - 1));
      logger.error({ err, retryInMs: delay }, 'live events could not follow the event store; retrying');
      return delay;
    },
  });

  return {
    listen(companyId, listener) {
      let set = byCompany.get(companyId);
      if (!set) byCompany.set(companyId, (set = new Set()));
      set.add(listener);
      total++;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        total--;
        set.delete(listener);
        if (set.size === 0 && byCompany.get(companyId) === set) byCompany.delete(companyId);
      };
    },
    listeners(companyId) {
      return companyId === undefined ? total : (byCompany.get(companyId)?.size ?? 0);
    },
    async stop() {
      stopped = true;
      await attached.detach();
      await ownConsumer?.stop();
    },
  };
}

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
        const res: ServerResponse = reply.raw;
        const socket = request.raw.socket;
        // The server's idle timeout would cut a quiet stream; keep-alives keep proxies happy instead.
        socket.setTimeout(0);
        socket.setNoDelay(true);
        res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache, no-store, no-transform',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
          'x-request-id': request.id,
        });
        res.write(`retry: ${retryMs}\n: connected\n\n`);

        let ended = false;
        const unlisten = live.listen(auth.companyId, (change) => {
          if (ended) return;
          if (change.kind === 'conversation') res.write(`event: conversation\ndata: ${JSON.stringify({ conversationId: change.conversationId })}\n\n`);
          else res.write(`event: webhook-log\ndata: ${JSON.stringify({ logId: change.logId, integrationId: change.integrationId, conversationId: change.conversationId })}\n\n`);
        });
        let checking = false;
        const timer = setInterval(() => {
          if (ended || checking) return;
          res.write(': keep-alive\n\n');
          checking = true;
          void stillValid(auth, token!).then((valid) => {
            checking = false;
            if (!valid) end();
          });
        }, keepAliveMs);
        timer.unref();

        const end = () => {
          if (ended) return;
          ended = true;
          clearInterval(timer);
          unlisten();
          open.delete(end);
          if (!res.writableEnded) res.end();
        };
        open.add(end);
        res.on('close', end);
        res.on('error', end);
        request.log.debug({ companyId: auth.companyId }, 'event stream opened');
      },
    );
  };
}
