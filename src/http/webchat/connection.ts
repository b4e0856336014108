import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import { z } from 'zod';
import { conversationIdFor } from '../../commands/conversations/conversationIds.js';
import { receiveWebchatMessage, type WebchatIntegration } from '../../commands/webchat/receiveWebchatMessage.js';
import { webchatHistory, webchatPendingSurvey } from '../../commands/webchat/webchatHistory.js';
import { updateCustomerFromChannel } from '../../commands/customers/customers.js';
import { submitWebchatCsat } from '../../commands/conversations/csat.js';
import { checkVisitorIdentity, conversationVisitor, recordVisitorIdentity, type IdentityClaim } from '../../commands/webchat/visitorIdentity.js';
import { belongsToVisitor, NOT_THE_VISITORS_CONVERSATION, type VerifiedVisitor } from '../../domain/conversations/decider.js';
import type { ConversationState } from '../../domain/conversations/state.js';
import { DomainError } from '../../domain/errors.js';
import type { VisitorClaims, VisitorTokens } from '../../ports/visitorTokens.js';
import type { ConversationNews, WebchatPush } from '../../ports/webchatPush.js';
import type { HttpServices } from '../services.js';
import { parseClientFrame } from '../webchatFrames.js';
import type { webchatFloodLimits } from '../webchatFloodLimits.js';
import type { WebchatHub } from '../webchatHub.js';
import { originAllowed } from './originPolicy.js';
import type { SlidingWindow } from './slidingWindow.js';
import { inSpan, SpanKind } from '../../ports/tracing.js';

/** The route's path parameter, read at the boundary (fastify types params as unknown here). */
const webchatParams = z.object({ integrationId: z.string().max(40) });

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

/**
 * Close codes (RFC 6455 §7.4.1). 1009 (too big) is sent by `ws` itself. `originNotAllowed` is ours (the
 * application range 4000-4999): the page's site will never be accepted, so the widget stops reconnecting.
 */
export const CLOSE = { normal: 1000, goingAway: 1001, policy: 1008, internalError: 1011, tryAgainLater: 1013, originNotAllowed: 4403 } as const;

export interface WebchatLimits {
  maxConnectionsPerIp: number;
  heartbeatMs: number;
  messagesPerWindow: number;
}

/** What every connection of one server shares. */
export interface WebchatConnectionEnv {
  services: HttpServices;
  visitorTokens: VisitorTokens;
  hub: WebchatHub;
  limits: WebchatLimits;
  floodLimits: ReturnType<typeof webchatFloodLimits>;
  messageLimit: SlidingWindow;
  /** Open sockets (shutdown says goodbye to each). */
  sockets: Set<WebSocket>;
  /** Frames being handled: shutdown lets them finish before the stores close. */
  inflight: Set<Promise<void>>;
  connectionsPerIp: Map<string, number>;
  /** The integration as it is now (its stream), or null when missing, deleted or not a web chat. */
  loadIntegration(integrationId: number): Promise<WebchatIntegration | null>;
}

/** One visitor socket: its identity once known and the bookkeeping of its frames and timers. */
interface Connection {
  env: WebchatConnectionEnv;
  socket: WebSocket;
  request: FastifyRequest;
  rawId: string;
  ip: string;
  log: FastifyBaseLogger;
  closed: boolean;
  counted: boolean;
  helloSeen: boolean;
  ready: boolean;
  integration: WebchatIntegration | null;
  visitor: VisitorClaims | null;
  /** The name the page gave for its visitor (hello `name`), passed on with each message. */
  visitorName: string | undefined;
  /** The email the visitor typed in the pre-chat form (unverified), passed on with each message like the name. */
  visitorEmail: string | undefined;
  /** What hello claimed about the visitor's identity (unchecked), and the identity once its signature checked out. */
  identityClaim: IdentityClaim | undefined;
  verified: VerifiedVisitor | null;
  leave: (() => void) | null;
  /** Pushes that arrived between joining the conversation and `ready`. */
  early: WebchatPush[];
  pending: number;
  chain: Promise<void>;
  alive: boolean;
  heartbeat: NodeJS.Timeout | undefined;
  helloTimer: NodeJS.Timeout | undefined;
}

/**
 * A web chat socket from upgrade to close: the integration check, then `hello` (visitor identity, history,
 * `ready`), then each `message`, acknowledged only once stored; pushes from the conversation in between.
 * Frames of one connection are handled one at a time, in arrival order.
 */
export function handleConnection(env: WebchatConnectionEnv, socket: WebSocket, request: FastifyRequest): void {
  const conn = openConnection(env, socket, request);
  watchConnection(conn);
  // Attached at once (not after an await), so no frame sent right after the upgrade is lost.
  socket.on('message', (data: RawData, isBinary: boolean) => dispatchFrame(conn, data, isBinary));
  if (!countConnection(conn)) return;
  enqueue(conn, () => authorizeConnection(conn));
}

function openConnection(env: WebchatConnectionEnv, socket: WebSocket, request: FastifyRequest): Connection {
  const rawId = webchatParams.safeParse(request.params).data?.integrationId ?? '';
  env.sockets.add(socket);
  return {
    env,
    socket,
    request,
    rawId,
    ip: request.ip,
    log: request.log.child({ component: 'webchat', integrationId: rawId }),
    closed: false,
    counted: false,
    helloSeen: false,
    ready: false,
    integration: null,
    visitor: null,
    visitorName: undefined,
    visitorEmail: undefined,
    identityClaim: undefined,
    verified: null,
    leave: null,
    early: [],
    pending: 0,
    chain: Promise.resolve(),
    alive: true,
    heartbeat: undefined,
    helloTimer: undefined,
  };
}

// ---- connect: liveness, the per-IP cap, the integration and origin check --------------------------------

/** Close handling, pings, and the deadline for `hello`. */
function watchConnection(conn: Connection): void {
  const { socket } = conn;
  socket.on('close', (code) => {
    conn.log.info({ code, conversationId: conn.visitor?.conversationId }, 'web chat connection closed');
    closeConnection(conn);
  });
  socket.on('pong', () => {
    conn.alive = true;
  });
  conn.heartbeat = setInterval(() => {
    if (!conn.alive) {
      conn.log.info('web chat visitor stopped answering pings: connection cut');
      socket.terminate();
      return;
    }
    conn.alive = false;
    socket.ping();
  }, conn.env.limits.heartbeatMs);
  conn.helloTimer = setTimeout(() => {
    if (!conn.helloSeen) refuse(conn, 'HELLO_TIMEOUT', `Send {"type":"hello"} within ${HELLO_TIMEOUT_MS / 1000} seconds`, CLOSE.policy);
  }, HELLO_TIMEOUT_MS);
}

/** Takes one of the client IP's connection slots; refuses the socket when none is left. */
function countConnection(conn: Connection): boolean {
  const { connectionsPerIp, limits } = conn.env;
  const current = connectionsPerIp.get(conn.ip) ?? 0;
  if (current >= limits.maxConnectionsPerIp) {
    refuse(conn, 'TOO_MANY_CONNECTIONS', 'Too many web chat connections from this address; try again later', CLOSE.tryAgainLater);
    return false;
  }
  connectionsPerIp.set(conn.ip, current + 1);
  conn.counted = true;
  return true;
}

async function authorizeConnection(conn: Connection): Promise<void> {
  if (!/^\d{1,15}$/.test(conn.rawId)) return refuse(conn, 'NOT_FOUND', 'Integration not found', CLOSE.policy);
  conn.integration = await currentIntegration(conn, Number(conn.rawId));
}

/**
 * The integration as it is now, checked against this socket: missing, another connector, an origin not
 * allowed or an inactive integration close the connection (and give null).
 */
async function currentIntegration(conn: Connection, integrationId: number): Promise<WebchatIntegration | null> {
  const found = await conn.env.loadIntegration(integrationId);
  if (!found) {
    refuse(conn, 'NOT_FOUND', 'Integration not found', CLOSE.policy);
    return null;
  }
  if (!originAllowed(conn.request.headers.origin, found.allowedOrigins)) {
    refuse(conn, 'ORIGIN_NOT_ALLOWED', "Chat is not available on this site: this page's origin is not in the integration's allowed origins", CLOSE.originNotAllowed);
    return null;
  }
  if (!found.active) {
    refuse(conn, 'INTEGRATION_INACTIVE', 'This chat is not available', CLOSE.policy);
    return null;
  }
  return found;
}

// ---- frame dispatch ------------------------------------------------------------------------------------

function dispatchFrame(conn: Connection, data: RawData, isBinary: boolean): void {
  if (conn.closed) return;
  const frame = parseClientFrame(data, isBinary);
  switch (frame.type) {
    case 'error':
      return sendError(conn, frame.code, frame.message, frame.clientMessageId);
    case 'hello': {
      if (conn.helloSeen) return sendError(conn, 'BAD_FRAME', 'hello was already received on this connection');
      conn.helloSeen = true;
      clearTimeout(conn.helloTimer);
      conn.visitorName = frame.name;
      conn.identityClaim = frame.identity;
      enqueue(conn, () => greetVisitor(conn, frame.visitorId, frame.visitorToken));
      return;
    }
    case 'message': {
      const { clientMessageId, text } = frame;
      if (!conn.helloSeen) return sendError(conn, 'HELLO_REQUIRED', 'Send {"type":"hello"} first');
      if (conn.pending >= MAX_PENDING_FRAMES) return sendError(conn, 'RATE_LIMITED', 'Too many messages at once; wait a moment', clientMessageId);
      enqueue(conn, () => storeMessage(conn, clientMessageId, text));
      return;
    }
    case 'csat': {
      if (!conn.helloSeen) return sendError(conn, 'HELLO_REQUIRED', 'Send {"type":"hello"} first');
      if (conn.pending >= MAX_PENDING_FRAMES) return sendError(conn, 'RATE_LIMITED', 'Too many frames at once; wait a moment');
      enqueue(conn, () => storeCsat(conn, frame));
      return;
    }
    case 'profile': {
      if (!conn.helloSeen) return sendError(conn, 'HELLO_REQUIRED', 'Send {"type":"hello"} first');
      if (conn.pending >= MAX_PENDING_FRAMES) return sendError(conn, 'RATE_LIMITED', 'Too many frames at once; wait a moment');
      enqueue(conn, () => storeProfile(conn, frame));
      return;
    }
  }
}

/**
 * The pre-chat form's answers: kept on the connection (each message carries them, like a name the page gave, so
 * the conversation is named by them) and recorded on the customer's profile at once, so a visitor who fills the
 * form and then waits is already known. Only where the integration asks for them.
 */
async function storeProfile(conn: Connection, frame: { name?: string; email?: string }): Promise<void> {
  const { visitor, integration } = conn;
  const profile = { ...(frame.name ? { name: frame.name } : {}), ...(frame.email ? { email: frame.email } : {}) };
  if (!visitor || !integration) return sendError(conn, 'HELLO_REQUIRED', 'Send {"type":"hello"} first');
  if (!integration.prechatForm) return sendError(conn, 'VALIDATION_ERROR', 'This chat has no pre-chat form');
  if (profile.name) conn.visitorName = profile.name;
  if (profile.email) conn.visitorEmail = profile.email;
  await updateCustomerFromChannel(conn.env.services.commands, { companyId: integration.companyId, integrationId: integration.integrationId, clientId: visitor.visitorId, profile });
  send(conn, { type: 'profile_saved', ...profile });
}

/** A visitor's answer to the survey of their own conversation: recorded once, then `csat_recorded` with the rating kept. */
async function storeCsat(conn: Connection, answer: { surveyId: string; rating: number; comment: string | null }): Promise<void> {
  const { visitor, integration } = conn;
  if (!visitor || !integration) return sendError(conn, 'HELLO_REQUIRED', 'Send {"type":"hello"} first');
  let survey: ConversationState['survey'];
  try {
    ({ survey } = (await submitWebchatCsat(conn.env.services.commands, { conversationId: visitor.conversationId, companyId: integration.companyId, visitorId: visitor.visitorId, ...answer })).state);
  } catch (err) {
    if (err instanceof DomainError && (err.code === 'NOT_FOUND' || err.code === 'VALIDATION_ERROR')) return sendError(conn, err.code, err.message);
    throw err;
  }
  // Answered twice: the first rating is the one kept, so it is the one acknowledged.
  const rating = survey?.surveyId === answer.surveyId && survey.rating !== undefined ? survey.rating : answer.rating;
  send(conn, { type: 'csat_recorded', surveyId: answer.surveyId, rating });
}

/** Frames are handled one at a time, in arrival order. */
function enqueue(conn: Connection, task: () => Promise<void>): void {
  conn.pending++;
  conn.chain = conn.chain.then(async () => {
    try {
      if (!conn.closed) await task();
    } catch (err) {
      conn.log.error({ err }, 'web chat frame failed');
      // Closed without naming the message: the widget keeps it in its outbox and sends it again once reconnected.
      refuse(conn, 'INTERNAL_ERROR', 'Something went wrong on our side; reconnecting', CLOSE.internalError);
    } finally {
      conn.pending--;
    }
  });
  const current = conn.chain;
  conn.env.inflight.add(current);
  void current.finally(() => conn.env.inflight.delete(current));
}

/** `hello`: who the visitor is, then `ready` with the conversation so far. */
async function greetVisitor(conn: Connection, visitorId: string | undefined, visitorToken: string | undefined): Promise<void> {
  if (!conn.integration) return;
  // Before anything is read or counted: a visitor the site must sign and did not is refused outright.
  const verdict = checkVisitorIdentity(conn.integration, conn.identityClaim ?? {}, conn.env.services.secretBox);
  if (!verdict.ok) return refuse(conn, verdict.code, verdict.message, CLOSE.policy);
  conn.verified = verdict.visitor;
  const identity = await identifyVisitor(conn, conn.integration, visitorId, visitorToken);
  if (!identity) return;
  conn.log = conn.log.child({ conversationId: identity.conversationId });
  // Listen first, then read the history: a reply produced in between is in one or the other (or both, deduped).
  const stop = await conn.env.hub.join(identity.conversationId, (news) => pushToVisitor(conn, news));
  if (conn.closed) {
    stop();
    return;
  }
  conn.leave = stop;
  const history = await webchatHistory(conn.env.services.commands.eventStore, identity.conversationId);
  // Verified for another user between the check of its token and joining (whose notice this socket missed): the
  // history just read may hold their answers. Checked after reading it, so a later verification is a notice.
  const current = await conversationVisitor(conn.env.services.commands, identity.conversationId);
  if (!belongsToVisitor({ verifiedVisitor: current.visitor }, conn.verified)) return refuseOthersConversation(conn);
  const survey = await webchatPendingSurvey(conn.env.services.commands.eventStore, identity.conversationId);
  const renewedToken = await conn.env.visitorTokens.issue({ integrationId: identity.integrationId, visitorId: identity.visitorId, conversationId: identity.conversationId, ...(conn.verified ? { userId: conn.verified.userId } : {}) });
  if (conn.closed) return;
  conn.visitor = identity;
  send(conn, {
    type: 'ready',
    conversationId: identity.conversationId,
    visitorId: identity.visitorId,
    visitorToken: renewedToken,
    history,
    // Shown first in the panel, before the history; not a message of the conversation.
    greeting: conn.integration?.greeting ?? null,
    // The widget asks for a name and email before the first message (it skips the form once answered or skipped).
    prechatForm: conn.integration?.prechatForm ?? false,
    // The closed conversation's survey, while unanswered (the widget shows it inline).
    csat: survey,
  });
  conn.ready = true;
  const shown = new Set(history.map((m) => m.id));
  for (const push of conn.early) if (push.type !== 'message' || !shown.has(push.id)) deliverPush(conn, push);
  conn.early = [];
  conn.log.info({ resumed: visitorToken !== undefined, history: history.length }, 'web chat visitor ready');
}

/** A returning visitor proves who they are with their token; anyone else is a new visitor (flood-limited). */
async function identifyVisitor(
  conn: Connection,
  integration: WebchatIntegration,
  visitorId: string | undefined,
  visitorToken: string | undefined,
): Promise<VisitorClaims | null> {
  if (visitorToken !== undefined) {
    const claims = await conn.env.visitorTokens.verify(visitorToken).catch(() => null);
    // A token of another integration, or presented with another visitor id, proves nothing here.
    if (!claims || claims.integrationId !== integration.integrationId || (visitorId !== undefined && visitorId !== claims.visitorId)) {
      refuse(conn, 'INVALID_VISITOR_TOKEN', 'The visitor token is not valid here; reconnect without it to start a new conversation', CLOSE.policy);
      return null;
    }
    if (await continuesAs(conn, integration, claims)) return claims;
  }
  // A visitor id without its token is not trusted: a new visitor. A flood of them is cut with 1013, so the
  // widget backs off before it reconnects.
  const refusal = await conn.env.floodLimits.newVisitor(conn.ip, integration.integrationId);
  if (refusal) {
    refuse(conn, 'RATE_LIMITED', refusal, CLOSE.tryAgainLater);
    return null;
  }
  const id = randomUUID();
  return { integrationId: integration.integrationId, visitorId: id, conversationId: conversationIdFor(integration.integrationId, id) };
}

/**
 * Whether the token's conversation may go on with this connection's identity: a conversation a signed user
 * verified is theirs alone (anyone else starts a new one). A returning signed visitor's identity is recorded on
 * their conversation when it is news (a first verification, a new email).
 */
async function continuesAs(conn: Connection, integration: WebchatIntegration, claims: VisitorClaims): Promise<boolean> {
  const deps = conn.env.services.commands;
  // A token issued to a signed user: theirs even before a first message records it on the conversation.
  if (claims.userId !== undefined && claims.userId !== conn.verified?.userId) {
    conn.log.info("a signed visitor's token is not continued under another identity: new visitor");
    return false;
  }
  const current = await conversationVisitor(deps, claims.conversationId);
  if (!belongsToVisitor({ verifiedVisitor: current.visitor }, conn.verified)) {
    conn.log.info('a verified visitor\'s conversation is not continued under another identity: new visitor');
    return false;
  }
  if (current.exists && conn.verified) await recordVisitorIdentity(deps, integration, claims.conversationId, conn.verified);
  return true;
}

/** A visitor's `message`: limits, the integration as it is now, then stored and acknowledged. */
async function storeMessage(conn: Connection, clientMessageId: string, text: string): Promise<void> {
  const { visitor, env } = conn;
  if (!visitor || !conn.integration) return sendError(conn, 'HELLO_REQUIRED', 'Send {"type":"hello"} first');
  const integrationId = conn.integration.integrationId;
  if (!env.messageLimit.take(`${integrationId}:${visitor.visitorId}`)) {
    return sendError(conn, 'RATE_LIMITED', `At most ${env.limits.messagesPerWindow} messages per ${WEBCHAT_RATE_WINDOW_MS / 1000} seconds; wait a moment`, clientMessageId);
  }
  // Like the per-visitor limit: named, neither stored nor acknowledged, and the socket stays open.
  const refusal = await env.floodLimits.message(conn.ip, integrationId);
  if (refusal) return sendError(conn, 'RATE_LIMITED', refusal, clientMessageId);
  // The integration as it is now: deactivating it or removing the origin stops the very next message.
  const now = await currentIntegration(conn, integrationId);
  if (!now) return;
  // Verification switched to required since this visitor connected without a signature: no more messages.
  if (now.identityVerification === 'required' && !conn.verified) return refuse(conn, 'IDENTITY_REQUIRED', 'This chat needs a signed-in visitor: reconnect with userId and userHash', CLOSE.policy);
  conn.integration = now;
  // The root of the message's trace, like a webhook's: the stored event carries it to the reply and the send.
  const outcome = await inSpan('webchat message', { kind: SpanKind.SERVER, traceparent: undefined, attributes: { 'mas.integration_id': String(integrationId) } }, () => receiveWebchatMessage(env.services.commands, now, {
    visitorId: visitor.visitorId,
    clientMessageId,
    text,
    ...(conn.visitorName ? { name: conn.visitorName } : {}),
    ...(conn.visitorEmail ? { email: conn.visitorEmail } : {}),
    ...(conn.verified ? { verifiedVisitor: conn.verified } : {}),
  })).catch((err: unknown) => {
    if (err instanceof DomainError && err.message === NOT_THE_VISITORS_CONVERSATION) return null;
    throw err;
  });
  if (!outcome) return refuseOthersConversation(conn);
  if (!outcome.duplicate) conn.log.info({ messageId: outcome.messageId }, 'web chat message stored');
  send(conn, { type: 'ack', clientMessageId, messageId: outcome.messageId });
}

// ---- push ----------------------------------------------------------------------------------------------

/**
 * Agent and operator messages, typing and reply deltas from the conversation's bus subject; held back until
 * `ready`. Once the conversation is verified for a user (its notice, or a push made for them), a socket not
 * signed as that user gets nothing more of it.
 */
function pushToVisitor(conn: Connection, news: ConversationNews): void {
  if (conn.closed) return;
  if (news.verifiedUserId !== null && news.verifiedUserId !== conn.verified?.userId) return refuseOthersConversation(conn);
  const { push } = news;
  if (!push) return;
  if (!conn.ready) {
    // A partial reply seen from its middle is useless: the final message (or the history) brings it whole.
    if (push.type === 'delta') return;
    if (conn.early.length < MAX_EARLY_PUSHES) conn.early.push(push);
    return;
  }
  deliverPush(conn, push);
}

function deliverPush(conn: Connection, push: WebchatPush): void {
  send(conn, push);
  // The agent's reply ends its typing: the worker keeps "typing" on until the reply is stored and pushed.
  if (push.type === 'message' && push.author === 'agent') send(conn, { type: 'typing', on: false });
}

function send(conn: Connection, frame: object): void {
  const { socket } = conn;
  if (socket.readyState !== socket.OPEN) return;
  if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
    conn.log.warn('web chat reader too slow: connection cut');
    socket.terminate();
    return;
  }
  socket.send(JSON.stringify(frame));
}

function sendError(conn: Connection, code: string, message: string, clientMessageId?: string): void {
  send(conn, { type: 'error', code, message, ...(clientMessageId !== undefined ? { clientMessageId } : {}) });
}

// ---- close ---------------------------------------------------------------------------------------------

/**
 * Another signed user's conversation (verified after this socket joined it): like a token not valid here, the
 * widget drops it and starts over as a new visitor, whose conversation a hello then checks.
 */
function refuseOthersConversation(conn: Connection): void {
  refuse(conn, 'INVALID_VISITOR_TOKEN', `${NOT_THE_VISITORS_CONVERSATION}; reconnect without the visitor token to start a new one`, CLOSE.policy);
}

/** An error frame the visitor can read, then a clean close. */
function refuse(conn: Connection, code: string, message: string, closeCode: number): void {
  if (conn.closed) return;
  sendError(conn, code, message);
  closeConnection(conn);
  conn.socket.close(closeCode, code);
  conn.log.info({ code, closeCode }, 'web chat connection refused');
}

/** Releases what the connection holds (timers, its IP slot, its conversation listener); idempotent. */
function closeConnection(conn: Connection): void {
  if (conn.closed) return;
  conn.closed = true;
  clearInterval(conn.heartbeat);
  clearTimeout(conn.helloTimer);
  const { sockets, connectionsPerIp } = conn.env;
  sockets.delete(conn.socket);
  if (conn.counted) {
    const n = (connectionsPerIp.get(conn.ip) ?? 1) - 1;
    if (n <= 0) connectionsPerIp.delete(conn.ip);
    else connectionsPerIp.set(conn.ip, n);
  }
  conn.leave?.();
  conn.leave = null;
  conn.early = [];
}
