import { createHash, randomUUID } from 'node:crypto';
import type { PublicEvent } from '../../domain/publicEvents/catalog.js';
import { webhookDeliveryStream, webhookProgressStream, type WebhookDeliveryEvent } from '../../domain/webhookDeliveries/events.js';
import type { WebhookEndpoint } from '../../domain/webhookEndpoints/state.js';
import { WrongExpectedRevisionError } from '../../ports/errors.js';
import type { SecretBox } from '../../ports/secretBox.js';
import type { WebhookSender } from '../../ports/webhookSender.js';
import type { CommandDeps } from '../deps.js';

export type DeliveryDeps = CommandDeps & { secretBox: SecretBox; sender: WebhookSender };
type AttemptData = Extract<WebhookDeliveryEvent, { type: 'WebhookDeliveryAttempted' }>['data'];

/** What a test delivery carries: not a public event of the catalog, never in the feed. */
export interface TestEvent {
  id: string;
  type: 'webhook.test';
  catalogVersion: PublicEvent['catalogVersion'];
  timestamp: string;
  data: { endpointId: string; message: string };
}

/** The secrets that sign now: the current one, and the previous one until its grace ends. */
function signingSecrets(box: SecretBox, endpoint: WebhookEndpoint, now: Date): string[] {
  const previous = endpoint.previousSecret && Date.parse(endpoint.previousSecret.validUntil) > now.getTime() ? [box.open(endpoint.previousSecret.secret)] : [];
  return [box.open(endpoint.secret), ...previous];
}

/**
 * One attempt to deliver `event` to `endpoint`, recorded in the delivery's stream whatever came of it.
 * `retryInMs`: when a failed attempt is to be retried (null: it is not, e.g. the schedule ran out).
 */
export async function attemptDelivery(
  deps: DeliveryDeps,
  input: { companyId: string; endpoint: WebhookEndpoint; deliveryId: string; event: PublicEvent | TestEvent; attempt: number; trigger: AttemptData['trigger']; retryInMs: number | null },
): Promise<AttemptData> {
  const now = deps.clock.now();
  const body = JSON.stringify(input.event);
  const result = await deps.sender.send({ url: input.endpoint.url, id: input.event.id, timestamp: now, body, secrets: signingSecrets(deps.secretBox, input.endpoint, now) });
  const at = deps.clock.now();
  const data: AttemptData = {
    endpointId: input.endpoint.id,
    companyId: input.companyId,
    deliveryId: input.deliveryId,
    eventId: input.event.id,
    eventType: input.event.type,
    attempt: input.attempt,
    ok: result.ok,
    httpStatus: result.httpStatus,
    latencyMs: result.latencyMs,
    response: result.response,
    nextRetryAt: !result.ok && input.retryInMs !== null ? new Date(at.getTime() + input.retryInMs).toISOString() : null,
    trigger: input.trigger,
    at: at.toISOString(),
  };
  const id = uuidFrom(`attempt:${input.endpoint.id}:${input.deliveryId}:${input.trigger}:${input.attempt}:${at.getTime()}`);
  await deps.eventStore.append(webhookDeliveryStream(input.endpoint.id, input.deliveryId), [{ id, type: 'WebhookDeliveryAttempted', data, metadata: { companyId: input.companyId } }], 'any');
  return data;
}

/** The last attempt of one delivery, or null: one backwards read of its small stream. */
export async function lastDeliveryAttempt(deps: CommandDeps, endpointId: string, deliveryId: string): Promise<AttemptData | null> {
  const [last] = await deps.eventStore.readStream(webhookDeliveryStream(endpointId, deliveryId), { direction: 'backwards', maxCount: 1 });
  return last?.type === 'WebhookDeliveryAttempted' ? (last.data as AttemptData) : null;
}

export interface DeliveryProgress {
  through: number;
  replayId: string | null;
  revision: bigint | null;
}

/** How far the endpoint got: the last event of its progress stream (constant cost however long it is). */
export async function loadDeliveryProgress(deps: CommandDeps, endpointId: string): Promise<DeliveryProgress> {
  const [last] = await deps.eventStore.readStream(webhookProgressStream(endpointId), { direction: 'backwards', maxCount: 1 });
  if (!last) return { through: 0, replayId: null, revision: null };
  const data = last.data as { through: number; replayId: string | null };
  return { through: data.through, replayId: data.replayId, revision: last.revision };
}

/**
 * Moves the endpoint's progress (forward after deliveries, back for a replay), guarded by the revision it was
 * read at: false when another worker moved it meanwhile (the caller reads it again).
 */
export async function moveDeliveryProgress(
  deps: CommandDeps,
  input: { companyId: string; endpointId: string; from: DeliveryProgress; to: number; replay?: { replayId: string; from: string } },
): Promise<boolean> {
  const at = deps.clock.now().toISOString();
  const event = input.replay
    ? { type: 'WebhookDeliveriesRewound', data: { endpointId: input.endpointId, through: input.to, replayId: input.replay.replayId, from: input.replay.from, at } }
    : { type: 'WebhookDeliveriesAdvanced', data: { endpointId: input.endpointId, through: input.to, replayId: input.from.replayId, at } };
  try {
    await deps.eventStore.append(
      webhookProgressStream(input.endpointId),
      [{ id: uuidFrom(`progress:${input.endpointId}:${input.from.revision ?? 'start'}`), ...event, metadata: { companyId: input.companyId } }],
      input.from.revision === null ? 'no_stream' : input.from.revision,
    );
    return true;
  } catch (err) {
    if (err instanceof WrongExpectedRevisionError) return false;
    throw err;
  }
}

function uuidFrom(key: string): string {
  const h = createHash('sha256').update(key).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** "Send test event": a `webhook.test` event, signed and sent once now, recorded in the endpoint's delivery log. */
export async function sendTestEvent(deps: DeliveryDeps, companyId: string, endpoint: WebhookEndpoint) {
  const testId = randomUUID();
  const event: TestEvent = {
    id: `evt_test_${testId.replace(/-/g, '')}`,
    type: 'webhook.test',
    catalogVersion: 1,
    timestamp: deps.clock.now().toISOString(),
    data: { endpointId: endpoint.id, message: 'A test event: your endpoint receives and verifies deliveries.' },
  };
  return attemptDelivery(deps, { companyId, endpoint, deliveryId: `test-${testId}`, event, attempt: 1, trigger: 'test', retryInMs: null });
}

/** A manual resend of one delivered (or failed) event now: same `webhook-id`, outside the in-order queue. */
export async function resendDelivery(deps: DeliveryDeps, companyId: string, endpoint: WebhookEndpoint, delivery: { n: number; event: PublicEvent }) {
  const last = await lastDeliveryAttempt(deps, endpoint.id, String(delivery.n));
  return attemptDelivery(deps, { companyId, endpoint, deliveryId: String(delivery.n), event: delivery.event, attempt: (last?.attempt ?? 0) + 1, trigger: 'resend', retryInMs: null });
}
