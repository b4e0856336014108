import fastifyWebsocket from '@fastify/websocket';
import type { FastifyPluginAsync } from 'fastify';
import type { WebSocket } from 'ws';
import { loadWebchatIntegration } from '../../commands/integrations/streamReads.js';
import type { VisitorTokens } from '../../ports/visitorTokens.js';
import type { WebchatIntegration } from '../../commands/webchat/receiveWebchatMessage.js';
import type { RateLimiter } from '../../ports/rateLimiter.js';
import type { HttpServices } from '../services.js';
import { webchatFloodLimits } from '../webchatFloodLimits.js';
import { createWebchatHub, type ListenToConversation } from '../webchatHub.js';
import { CLOSE, handleConnection, WEBCHAT_RATE_WINDOW_MS, type WebchatConnectionEnv, type WebchatLimits } from '../webchat/connection.js';
import { slidingWindow } from '../webchat/slidingWindow.js';

/** Largest frame accepted from a visitor; a bigger one closes the socket with 1009. */
export const WEBCHAT_MAX_FRAME_BYTES = 16 * 1024;
/** How long shutdown waits for frames being handled. */
const SHUTDOWN_GRACE_MS = 5_000;

export interface WebchatRouteDeps {
  visitorTokens: VisitorTokens;
  /** The bus subject of one conversation: agent and operator messages and typing, from any instance. */
  listenToConversation: ListenToConversation;
  /** Counts new visitors and messages per IP and per integration (cluster-wide with NATS). */
  rateLimiter: RateLimiter;
}

/**
 * The web chat WebSocket `GET /api/webchat/{integrationId}` (API.md, "Web chat"). Frames of one connection
 * are handled in order: the integration check, then `hello` (visitor identity, history, `ready`), then each
 * `message`, acknowledged only once stored. Replies produced on any instance arrive through the bus.
 */
export function webchatRoutes(services: HttpServices, deps: WebchatRouteDeps): FastifyPluginAsync {
  const limits: WebchatLimits = {
    maxConnectionsPerIp: services.config.webchatMaxConnectionsPerIp,
    heartbeatMs: services.config.webchatHeartbeatMs,
    messagesPerWindow: services.config.webchatMessagesPer10s,
  };
  const { eventStore } = services.commands;
  const floodLimits = webchatFloodLimits(deps.rateLimiter, services.config.webchatFloodLimits);


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

    const env: WebchatConnectionEnv = {
      services,
      visitorTokens: deps.visitorTokens,
      hub,
      limits,
      floodLimits,
      messageLimit,
      sockets,
      inflight,
      connectionsPerIp,
      loadIntegration: (integrationId) => loadWebchatIntegration(eventStore, integrationId),
    };
    app.get('/api/webchat/:integrationId', { websocket: true, schema: { hide: true } }, (socket, request) => {
      handleConnection(env, socket, request);
    });
  };
}
