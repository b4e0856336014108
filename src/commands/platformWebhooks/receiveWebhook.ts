import { randomUUID } from 'node:crypto';
import { conversationStream } from '../../domain/conversations/decider.js';
import { findKey } from '../../domain/conversations/state.js';
import type { ConversationEvent, ConversationStreamEvent } from '../../domain/conversations/events.js';
import type { WebhookLogEntry } from '../../domain/platformWebhooks/events.js';
import { DomainError } from '../../domain/errors.js';
import type { LiveIntegration } from '../integrations/streamReads.js';
import type { PlatformMessage, WebhookPayload } from '../../domain/platformWebhooks/payload.js';
import { conversationIdFor, sessionIdFor, withDeterministicIds } from '../conversations/conversationIds.js';
import { defaultStage } from '../conversations/defaultStage.js';
import { findLinkedConversation, linkPlatformRefs, refsOf } from '../conversations/platformRefs.js';
import { handleCommand } from '../handleCommand.js';
import { deterministicId, sha256Hex } from '../hashing.js';
import type { CommandDeps } from '../deps.js';

export const BODY_DEDUPE_WINDOW_MS = 24 * 60 * 60 * 1000;

export type WebhookOutcome = {
  outcome: 'processed' | 'duplicate' | 'ignored';
  kind: 'message' | 'status_event' | 'other';
  reason: string | null;
  conversationId: string | null;
  position: bigint | null;
  events: ConversationEvent[];
  /** True when the delivery's log entry went into the same append as its events; else the caller logs it. */
  logged: boolean;
};

/** What the delivery's log entry holds besides the outcome, for the processed case logged with the events. */
export type PlatformWebhookReceipt = Pick<WebhookLogEntry, 'receivedAt' | 'payload'>;

export interface ReceiveWebhookDeps extends CommandDeps {
  /** Conversation of a platform request or dialog id learnt from earlier messages (read model). */
  findConversationByRef(integrationId: number, ref: { requestId?: string | number; dialogId?: string | number }): Promise<string | null>;
}

export type { LiveIntegration };

/**
 * Dedupe key of a delivery: the platform's message id when it has one (forever), else a hash of the
 * exact body (for 24 hours). Event ids derive from it, so a redelivery racing the original appends nothing.
 */
function dedupeOf(integrationId: number, rawBody: Buffer, message: PlatformMessage, now: Date) {
  if (message.messageId !== undefined) return { key: `msg:${String(message.messageId)}`, until: null };
  return { key: `body:${sha256Hex(Buffer.concat([Buffer.from(`${integrationId}:`), rawBody]))}`, until: new Date(now.getTime() + BODY_DEDUPE_WINDOW_MS).toISOString() };
}

/**
 * The log entry of a delivery that stored events, appended with them (one commit per delivery); its id
 * derives from the delivery's so a redelivery racing the original appends the very same events.
 */
function logAlongside(integration: LiveIntegration, delivery: PlatformWebhookReceipt | undefined, seed: string, kind: WebhookOutcome['kind'], conversationId: string) {
  if (!delivery) return {};
  const logId = deterministicId(`${seed}:WebhookDeliveryLogged`);
  const entry: WebhookLogEntry = {
    logId,
    integrationId: integration.integrationId,
    companyId: integration.companyId,
    receivedAt: delivery.receivedAt,
    httpStatus: 200,
    outcome: 'processed',
    kind,
    reason: null,
    conversationId,
    ...(delivery.payload ? { payload: delivery.payload } : {}),
  };
  return { alongside: (): ConversationStreamEvent[] => [{ type: 'WebhookDeliveryLogged', id: logId, data: entry }] };
}

export async function receiveWebhook(
  deps: ReceiveWebhookDeps,
  integration: LiveIntegration,
  payload: Exclude<WebhookPayload, { kind: 'invalid' }>,
  rawBody: Buffer,
  delivery?: PlatformWebhookReceipt,
): Promise<WebhookOutcome> {
  const now = deps.clock.now();
  const at = now.toISOString();
  const metadata = { companyId: integration.companyId, actor: 'platform', correlationId: randomUUID() };

  if (payload.kind === 'ignored') {
    return { outcome: 'ignored', kind: 'other', reason: payload.reason, conversationId: null, position: null, events: [], logged: false };
  }

  if (payload.kind === 'customer_message' || payload.kind === 'operator_message') {
    const m = payload.message;
    const conversationId = conversationIdFor(integration.integrationId, m.clientId);
    const dedupe = dedupeOf(integration.integrationId, rawBody, m, now);
    const messageId = deterministicId(`message:${integration.integrationId}:${dedupe.key}`);
    const start = {
      conversationId,
      companyId: integration.companyId,
      integrationId: integration.integrationId,
      connectorType: integration.connectorType,
      customer: { clientId: m.clientId, channelId: m.channelId, transport: m.transport, ...(m.client?.name ? { name: m.client.name } : {}) },
      defaultStageId: await defaultStage(deps, integration.companyId, conversationId),
    };
    const platform = {
      ...(m.messageId !== undefined ? { messageId: m.messageId } : {}),
      ...(m.requestId !== undefined ? { requestId: m.requestId } : {}),
      ...(m.dialogId !== undefined ? { dialogId: m.dialogId } : {}),
      ...(m.eventTime !== undefined ? { eventTime: m.eventTime } : {}),
    };
    const message = { messageId, dedupeKey: dedupe.key, dedupeUntil: dedupe.until, text: m.text, attachments: m.attachments, platform };
    const result = await handleCommand(
      deps.eventStore,
      conversationStream(conversationId),
      withDeterministicIds(messageId),
      payload.kind === 'customer_message'
        ? { type: 'ReceiveCustomerMessage', start, sessionId: sessionIdFor(messageId), client: m.client as Record<string, unknown> | undefined, now: at, ...message }
        : { type: 'RecordOperatorMessage', start, now: at, ...message },
      { metadata, maxRetries: 10, ...logAlongside(integration, delivery, messageId, 'message', conversationId) },
    );
    const duplicate = result.events.length === 0;
    // Also on a duplicate: the first delivery may have crashed between the two appends.
    await linkPlatformRefs(deps, integration.integrationId, conversationId, refsOf(platform));
    return {
      outcome: duplicate ? 'duplicate' : 'processed',
      kind: 'message',
      reason: duplicate ? (payload.kind === 'operator_message' && !findKey(result.state.dedupe, dedupe.key) ? 'echo of a message this service sent' : 'already received') : null,
      conversationId,
      position: result.position,
      events: result.events as ConversationEvent[],
      logged: result.alongside === true,
    };
  }

  // Status event: find the conversation by the request or dialog id its messages carried: the lookup streams
  // the message commands wrote, then (for conversations older than those) the read model.
  const ref = { requestId: payload.requestId, ...(payload.dialogId !== undefined ? { dialogId: payload.dialogId } : {}) };
  const conversationId =
    (await findLinkedConversation(deps, integration.integrationId, refsOf(ref))) ?? (await deps.findConversationByRef(integration.integrationId, ref));
  if (!conversationId) {
    deps.logger.info({ integrationId: integration.integrationId, hookType: payload.hookType }, 'status event ignored: no conversation knows this request or dialog id');
    return { outcome: 'ignored', kind: 'status_event', reason: `no conversation for request_id ${String(payload.requestId)}`, conversationId: null, position: null, events: [], logged: false };
  }
  const eventKey = `status:${payload.hookType}:${String(payload.requestId)}:${String(payload.dialogId ?? '')}:${String(payload.eventTime ?? '')}`;
  const seed = deterministicId(eventKey);
  try {
    const result = await handleCommand(
      deps.eventStore,
      conversationStream(conversationId),
      withDeterministicIds(seed),
      payload.action === 'session_close'
        ? { type: 'CloseSession', reason: payload.hookType as 'close_dialog' | 'close_request', by: 'platform', now: at }
        : { type: 'TransferDialog', dialogId: payload.dialogId ?? null, requestId: payload.requestId, now: at },
      { metadata, maxRetries: 10, ...logAlongside(integration, delivery, seed, 'status_event', conversationId) },
    );
    if (payload.action !== 'session_close') await linkPlatformRefs(deps, integration.integrationId, conversationId, refsOf(ref));
    return {
      outcome: result.events.length ? 'processed' : 'duplicate',
      kind: 'status_event',
      reason: result.events.length ? null : 'the session is already closed',
      conversationId,
      position: result.position,
      events: result.events as ConversationEvent[],
      logged: result.alongside === true,
    };
  } catch (err) {
    if (err instanceof DomainError && err.code === 'INVALID_STATE') {
      deps.logger.info({ conversationId, hookType: payload.hookType }, `status event ignored: ${err.message}`);
      return { outcome: 'ignored', kind: 'status_event', reason: err.message, conversationId, position: null, events: [], logged: false };
    }
    throw err;
  }
}
