import { randomUUID } from 'node:crypto';
import fastifyWebsocket from '@fastify/websocket';
import type { FastifyBaseLogger, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import { parseClientFrame } from '../webchatFrames.js';
import { conversationIdFor } from '../../commands/conversations/conversationIds.js';
import { loadState } from '../../commands/handleCommand.js';
import type { VisitorClaims, VisitorTokens } from '../../ports/visitorTokens.js';
import { receiveWebchatMessage, type WebchatIntegration } from '../../commands/webchat/receiveWebchatMessage.js';
import { webchatHistory } from '../../commands/webchat/webchatHistory.js';
import { integrationDecider, integrationStream } from '../../domain/integrations/integration.js';
import type { RateLimiter } from '../../ports/rateLimiter.js';
import type { HttpServices } from '../services.js';
import { webchatFloodLimits } from '../webchatFloodLimits.js';
import type { WebchatPush } from '../../ports/webchatPush.js';
import { createWebchatHub, type ListenToConversation } from '../webchatHub.js';

/** Largest frame accepted from a visitor; a bigger one closes the socket with 1009. */
export const WEBCHAT_MAX_FRAME_BYTES = 16 * 1024;
/** The window of the per-visitor message limit. */
export const WEBCHAT_RATE_WINDOW_MS = 10_000;
/** An opened socket must say hello within this time. */
const HELLO_TIMEOUT_MS = 10_000;
/** Frames queued behind a slow store per connection; more are refused at once. */
const MAX_PENDING_FRAMES = 32;
/** Pushes held back between subscribing and sending `ready`. */
const MAX_EARLY_PUSHES = 200;
/** A reader this far behind is cut off rather than buffered without bound. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** How long shutdown waits for frames being handled. */
const SHUTDOWN_GRACE_MS = 5_000;

/** Close codes (RFC 6455 §7.4.1). 1009 (too big) is sent by `ws` itself. */
export const CLOSE = { normal: 1000, goingAway: 1001, policy: 1008, internalError: 1011, tryAgainLater: 1013 } as const;

export interface WebchatRouteDeps {
  visitorTokens: VisitorTokens;
  /** The bus subject of one conversation: agent and operator messages and typing, from any instance. */
  listenToConversation: ListenToConversation;
  /** Counts new visitors and messages per IP and per integration (cluster-wide with NATS). */
  rateLimiter: RateLimiter;
}

interface Limits {
  maxConnectionsPerIp: number;
  heartbeatMs: number;
  messagesPerWindow: number;
}

/** A request Origin matches an allowed origin exactly (scheme, host and port); `null` and a missing Origin never do. */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (!origin || origin === 'null') return false;
  const normalize = (value: string) => {
    try {
      const u = new URL(value);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
    } catch {
      return null;
    }
  };
  const wanted = normalize(origin);
  return wanted !== null && allowed.some((a) => normalize(a) === wanted);
}

/** Sliding-window counter per key, pruned as it goes. */
function slidingWindow(limit: number, windowMs: number) {
  const hits = new Map<string, number[]>();
  return {
    take(key: string, now = Date.now()): boolean {
      const recent = (hits.get(key) ?? []).filter((t) => t > now - windowMs);
      const allowed = recent.length < limit;
      if (allowed) recent.push(now);
      hits.set(key, recent);
      return allowed;
    },
    prune(now = Date.now()) {
      for (const [key, times] of hits) if (!times.some((t) => t > now - windowMs)) hits.delete(key);
    },
  };
}

/**
 * The web chat WebSocket `GET /api/webchat/{integrationId}` (API.md, "Web chat"). Frames of one connection
 * are handled in order: the integration check, then `hello` (visitor identity, history, `ready`), then each
 * `message`, acknowledged only once stored. Replies produced on any instance arrive through the bus.
 */
export function webchatRoutes(services: HttpServices, deps: WebchatRouteDeps): FastifyPluginAsync {
  const limits: Limits = {
    maxConnectionsPerIp: services.config.webchatMaxConnectionsPerIp,
    heartbeatMs: services.config.webchatHeartbeatMs,
    messagesPerWindow: services.config.webchatMessagesPer10s,
  };
  const { eventStore } = services.commands;
  const floodLimits = webchatFloodLimits(deps.rateLimiter, services.config.webchatFloodLimits);

  async function loadWebchatIntegration(integrationId: number): Promise<WebchatIntegration | null> {
    const { state } = await loadState(eventStore, integrationStream(integrationId), integrationDecider);
    return state.status === 'active_record' && state.connectorType === 'webchat' ? (state as WebchatIntegration) : null;
  }

  return async (app) => {
    const logger = app.log.child({ component: 'webchat' });
    const hub = createWebchatHub(deps.listenToConversation, logger);
    const sockets = new Set<WebSocket>();
    /** Frames being handled (a message being stored): shutdown lets them finish before the stores close. */
    const inflight = new Set<Promise<void>>();
    const connectionsPerIp = new Map<string, number>();
    const messageLimit = slidingWindow(limits.messagesPerWindow, WEBCHAT_RATE_WINDOW_MS);
    const pruneTimer = setInterval(() => messageLimit.prune(), 60_000);
    pruneTimer.unref();

    // Before the plugin's own preClose (which closes without a code): tell every visitor the server is going away.
    app.addHook('preClose', async () => {
      for (const socket of sockets) socket.close(CLOSE.goingAway, 'server shutting down');
    });
    app.addHook('onClose', async () => {
      clearInterval(pruneTimer);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all([...inflight]), new Promise((resolve) => (timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)))]);
      clearTimeout(timer);
      await hub.stop();
    });

    await app.register(fastifyWebsocket, {
      options: { maxPayload: WEBCHAT_MAX_FRAME_BYTES, perMessageDeflate: false },
      // Socket errors (a frame too big, an abrupt disconnect) are the visitor's doing: `ws` already closes with the
      // right code, so only a socket still open is cut.
      errorHandler: (error, socket, request) => {
        request.log.info({ err: error }, 'web chat socket error');
        if (socket.readyState === socket.OPEN) socket.terminate();
      },
    });

    app.get('/api/webchat/:integrationId', { websocket: true, schema: { hide: true } }, (socket, request) => {
      handleConnection(socket, request);
    });

    function handleConnection(socket: WebSocket, request: FastifyRequest) {
      const rawId = (request.params as { integrationId?: string }).integrationId ?? '';
      const ip = request.ip;
      let log: FastifyBaseLogger = request.log.child({ component: 'webchat', integrationId: rawId });
      let closed = false;
      let counted = false;
      let helloSeen = false;
      let ready = false;
      let integration: WebchatIntegration | null = null;
      let visitor: VisitorClaims | null = null;
      let leave: (() => void) | null = null;
      let early: WebchatPush[] = [];
      let pending = 0;
      let chain: Promise<void> = Promise.resolve();
      let alive = true;
      let heartbeat: NodeJS.Timeout | undefined;
      let helloTimer: NodeJS.Timeout | undefined;

      const send = (frame: object) => {
        if (socket.readyState !== socket.OPEN) return;
        if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
          log.warn('web chat reader too slow: connection cut');
          socket.terminate();
          return;
        }
        socket.send(JSON.stringify(frame));
      };
      const error = (code: string, message: string, clientMessageId?: string) =>
        send({ type: 'error', code, message, ...(clientMessageId !== undefined ? { clientMessageId } : {}) });

      const cleanup = () => {
        if (closed) return;
        closed = true;
        clearInterval(heartbeat);
        clearTimeout(helloTimer);
        sockets.delete(socket);
        if (counted) {
          const n = (connectionsPerIp.get(ip) ?? 1) - 1;
          if (n <= 0) connectionsPerIp.delete(ip);
          else connectionsPerIp.set(ip, n);
        }
        leave?.();
        leave = null;
        early = [];
      };
      /** An error frame the visitor can read, then a clean close. */
      const refuse = (code: string, message: string, closeCode: number) => {
        if (closed) return;
        error(code, message);
        cleanup();
        socket.close(closeCode, code);
        log.info({ code, closeCode }, 'web chat connection refused');
      };

      /** Frames are handled one at a time, in arrival order. */
      const enqueue = (task: () => Promise<void>) => {
        pending++;
        chain = chain.then(async () => {
          try {
            if (!closed) await task();
          } catch (err) {
            log.error({ err }, 'web chat frame failed');
            // Closed without naming the message: the widget keeps it in its outbox and sends it again once reconnected.
            refuse('INTERNAL_ERROR', 'Something went wrong on our side; reconnecting', CLOSE.internalError);
          } finally {
            pending--;
          }
        });
        const current = chain;
        inflight.add(current);
        void current.finally(() => inflight.delete(current));
      };

      sockets.add(socket);
      socket.on('close', (code) => {
        log.info({ code, conversationId: visitor?.conversationId }, 'web chat connection closed');
        cleanup();
      });
      socket.on('pong', () => {
        alive = true;
      });
      heartbeat = setInterval(() => {
        if (!alive) {
          log.info('web chat visitor stopped answering pings: connection cut');
          socket.terminate();
          return;
        }
        alive = false;
        socket.ping();
      }, limits.heartbeatMs);
      helloTimer = setTimeout(() => {
        if (!helloSeen) refuse('HELLO_TIMEOUT', `Send {"type":"hello"} within ${HELLO_TIMEOUT_MS / 1000} seconds`, CLOSE.policy);
      }, HELLO_TIMEOUT_MS);

      // Attached at once (not after an await), so no frame sent right after the upgrade is lost.
      socket.on('message', (data: RawData, isBinary: boolean) => onFrame(data, isBinary));

      const current = connectionsPerIp.get(ip) ?? 0;
      if (current >= limits.maxConnectionsPerIp) {
        refuse('TOO_MANY_CONNECTIONS', 'Too many web chat connections from this address; try again later', CLOSE.tryAgainLater);
        return;
      }
      connectionsPerIp.set(ip, current + 1);
      counted = true;

      enqueue(async () => {
        if (!/^\d{1,15}$/.test(rawId)) return refuse('NOT_FOUND', 'Integration not found', CLOSE.policy);
        const found = await loadWebchatIntegration(Number(rawId));
        if (!found) return refuse('NOT_FOUND', 'Integration not found', CLOSE.policy);
        if (!originAllowed(request.headers.origin, found.allowedOrigins)) {
          return refuse('ORIGIN_NOT_ALLOWED', "This page's origin is not in the integration's allowed origins", CLOSE.policy);
        }
        if (!found.active) return refuse('INTEGRATION_INACTIVE', 'This chat is not available', CLOSE.policy);
        integration = found;
      });

      function onFrame(data: RawData, isBinary: boolean) {
        if (closed) return;
        const frame = parseClientFrame(data, isBinary);
        switch (frame.type) {
          case 'error':
            return error(frame.code, frame.message, frame.clientMessageId);
          case 'hello': {
            if (helloSeen) return error('BAD_FRAME', 'hello was already received on this connection');
            helloSeen = true;
            clearTimeout(helloTimer);
            enqueue(() => hello(frame.visitorId, frame.visitorToken));
            return;
          }
          case 'message': {
            const { clientMessageId, text } = frame;
            if (!helloSeen) return error('HELLO_REQUIRED', 'Send {"type":"hello"} first');
            if (pending >= MAX_PENDING_FRAMES) return error('RATE_LIMITED', 'Too many messages at once; wait a moment', clientMessageId);
            enqueue(() => message(clientMessageId, text));
            return;
          }
        }
      }

      function onPush(push: WebchatPush) {
        if (closed) return;
        if (ready) send(push);
        else if (early.length < MAX_EARLY_PUSHES) early.push(push);
      }

      async function hello(visitorId: string | undefined, visitorToken: string | undefined) {
        if (!integration) return;
        let identity: VisitorClaims;
        if (visitorToken !== undefined) {
          let claims: VisitorClaims | null = null;
          try {
            claims = await deps.visitorTokens.verify(visitorToken);
          } catch {
            claims = null;
          }
          // A token of another integration, or presented with another visitor id, proves nothing here.
          if (!claims || claims.integrationId !== integration.integrationId || (visitorId !== undefined && visitorId !== claims.visitorId)) {
            return refuse('INVALID_VISITOR_TOKEN', 'The visitor token is not valid here; reconnect without it to start a new conversation', CLOSE.policy);
          }
          identity = claims;
        } else {
          // A visitor id without its token is not trusted: a new visitor. A flood of them is cut with 1013, so the
          // widget backs off before it reconnects.
          const refusal = await floodLimits.newVisitor(ip, integration.integrationId);
          if (refusal) return refuse('RATE_LIMITED', refusal, CLOSE.tryAgainLater);
          const id = randomUUID();
          identity = { integrationId: integration.integrationId, visitorId: id, conversationId: conversationIdFor(integration.integrationId, id) };
        }
        log = log.child({ conversationId: identity.conversationId });
        // Listen first, then read the history: a reply produced in between is in one or the other (or both, deduped).
        const stop = await hub.join(identity.conversationId, onPush);
        if (closed) {
          stop();
          return;
        }
        leave = stop;
        const history = await webchatHistory(eventStore, identity.conversationId);
        const renewedToken = await deps.visitorTokens.issue(identity);
        if (closed) return;
        visitor = identity;
        send({ type: 'ready', conversationId: identity.conversationId, visitorId: identity.visitorId, visitorToken: renewedToken, history });
        ready = true;
        const shown = new Set(history.map((m) => m.id));
        for (const push of early) if (push.type !== 'message' || !shown.has(push.id)) send(push);
        early = [];
        log.info({ resumed: visitorToken !== undefined, history: history.length }, 'web chat visitor ready');
      }

      async function message(clientMessageId: string, text: string) {
        if (!visitor || !integration) return error('HELLO_REQUIRED', 'Send {"type":"hello"} first');
        if (!messageLimit.take(`${integration.integrationId}:${visitor.visitorId}`)) {
          return error('RATE_LIMITED', `At most ${limits.messagesPerWindow} messages per ${WEBCHAT_RATE_WINDOW_MS / 1000} seconds; wait a moment`, clientMessageId);
        }
        // Like the per-visitor limit: named, neither stored nor acknowledged, and the socket stays open.
        const refusal = await floodLimits.message(ip, integration.integrationId);
        if (refusal) return error('RATE_LIMITED', refusal, clientMessageId);
        // The integration as it is now: deactivating it or removing the origin stops the very next message.
        const now = await loadWebchatIntegration(integration.integrationId);
        if (!now) return refuse('NOT_FOUND', 'Integration not found', CLOSE.policy);
        if (!originAllowed(request.headers.origin, now.allowedOrigins)) {
          return refuse('ORIGIN_NOT_ALLOWED', "This page's origin is not in the integration's allowed origins", CLOSE.policy);
        }
        if (!now.active) return refuse('INTEGRATION_INACTIVE', 'This chat is not available', CLOSE.policy);
        integration = now;
        const outcome = await receiveWebchatMessage(services.commands, now, { visitorId: visitor.visitorId, clientMessageId, text });
        if (!outcome.duplicate) log.info({ messageId: outcome.messageId }, 'web chat message stored');
        send({ type: 'ack', clientMessageId, messageId: outcome.messageId });
      }
    }
  };
}
