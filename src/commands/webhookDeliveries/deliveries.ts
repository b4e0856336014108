import { createHash, randomUUID } from 'node:crypto';
import type { PublicEvent } from '../../domain/publicEvents/catalog.js';
import { SUCCESSES_PER_EVENT, webhookDeliveryStream, webhookProgressStream, type WebhookDeliveryEvent } from '../../domain/webhookDeliveries/events.js';
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

/** The secrets that sign now: the current one, and each one it replaced (newest first) until its grace ends. */
export function signingSecrets(box: SecretBox, endpoint: WebhookEndpoint, now: Date): string[] {
  const previous = [endpoint.previousSecret, ...(endpoint.earlierSecrets ?? [])].filter((s) => s !== null && Date.parse(s.validUntil) > now.getTime());
  return [box.open(endpoint.secret), ...previous.map((s) => box.open(s!.secret))];
}

type AttemptInput = { companyId: string; endpoint: WebhookEndpoint; deliveryId: string; event: PublicEvent | TestEvent; attempt: number; trigger: AttemptData['trigger']; retryInMs: number | null };

/**
 * One attempt to deliver `event` to `endpoint`, recorded in the delivery's stream whatever came of it.
 * `retryInMs`: when a failed attempt is to be retried (null: it is not, e.g. the schedule ran out).
 */
export async function attemptDelivery(deps: DeliveryDeps, input: AttemptInput): Promise<AttemptData> {
  const data = await sendDelivery(deps, input);
  await recordAttempt(deps, data);
  return data;
}

/**
 * Sends one attempt and says what came of it, recording nothing: the delivery worker records a success with the
 * endpoint's progress, in batches (`recordDeliveries`), and a failure in the delivery's own stream (`recordAttempt`).
 * `opened`: the signing secrets, opened once for a turn of several deliveries rather than for each, and the event's
 * body, serialised once for every endpoint that receives it.
 */
export async function sendDelivery(deps: DeliveryDeps, input: AttemptInput, opened?: { secrets: string[]; body?: string }): Promise<AttemptData> {
  const now = deps.clock.now();
  const secrets = opened?.secrets ?? signingSecrets(deps.secretBox, input.endpoint, now);
  const result = await deps.sender.send({ url: input.endpoint.url, id: input.event.id, timestamp: now, body: opened?.body ?? JSON.stringify(input.event), secrets });
  const at = deps.clock.now();
  return {
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
}

const attemptEvent = (data: AttemptData) => ({
  id: uuidFrom(`attempt:${data.endpointId}:${data.deliveryId}:${data.trigger}:${data.attempt}:${Date.parse(data.at)}`),
  type: 'WebhookDeliveryAttempted',
  data,
  metadata: { companyId: data.companyId },
});

/** Records one attempt in its delivery's stream (a failure: the retry schedule continues from it). */
export async function recordAttempt(deps: CommandDeps, data: AttemptData): Promise<void> {
  await deps.eventStore.append(webhookDeliveryStream(data.endpointId, data.deliveryId), [attemptEvent(data)], 'any');
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
 * Moves the endpoint's progress (forward past events it does not take, back for a replay), guarded by the revision
 * it was read at: the progress now, or null when another worker moved it meanwhile (the caller reads it again).
 */
export async function moveDeliveryProgress(
  deps: CommandDeps,
  input: { companyId: string; endpointId: string; from: DeliveryProgress; to: number; replay?: { replayId: string; from: string } },
): Promise<DeliveryProgress | null> {
  const at = deps.clock.now().toISOString();
  const event = input.replay
    ? { type: 'WebhookDeliveriesRewound', data: { endpointId: input.endpointId, through: input.to, replayId: input.replay.replayId, from: input.replay.from, at } }
    : { type: 'WebhookDeliveriesAdvanced', data: { endpointId: input.endpointId, through: input.to, replayId: input.from.replayId, at } };
  try {
    const result = await deps.eventStore.append(
      webhookProgressStream(input.endpointId),
      [{ id: uuidFrom(`progress:${input.endpointId}:${input.from.revision ?? 'start'}`), ...event, metadata: { companyId: input.companyId } }],
      input.from.revision === null ? 'no_stream' : input.from.revision,
    );
    return { through: input.to, replayId: input.replay ? input.replay.replayId : input.from.replayId, revision: result.nextRevision };
  } catch (err) {
    if (err instanceof WrongExpectedRevisionError) return null;
    throw err;
  }
}

/**
 * Records a batch of the endpoint's successful deliveries and the progress they make, in one append to its progress
 * stream (the attempts first, the progress last: the stream's last event is still the progress), guarded by the
 * revision the progress was read at. Null when another worker moved it meanwhile: nothing is written, and the
 * caller forgets what it kept and reads the progress again (the deliveries not recorded are sent again, under the
 * same `webhook-id`). The successes go as one `WebhookDeliveriesSucceeded` per SUCCESSES_PER_EVENT (the delivery
 * log folds each into one document), not one event each: one append, and one read-model write, per batch.
 */
export async function recordDeliveries(
  deps: CommandDeps,
  input: { companyId: string; endpointId: string; from: DeliveryProgress; to: number; attempts: AttemptData[] },
): Promise<DeliveryProgress | null> {
  const at = deps.clock.now().toISOString();
  const advanced = {
    id: uuidFrom(`progress:${input.endpointId}:${input.from.revision ?? 'start'}`),
    type: 'WebhookDeliveriesAdvanced',
    data: { endpointId: input.endpointId, through: input.to, replayId: input.from.replayId, at },
    metadata: { companyId: input.companyId },
  };
  try {
    const events = [...successEvents(input.companyId, input.endpointId, input.from.revision, input.attempts), advanced];
    const result = await deps.eventStore.append(webhookProgressStream(input.endpointId), events, input.from.revision === null ? 'no_stream' : input.from.revision);
    return { through: input.to, replayId: input.from.replayId, revision: result.nextRevision };
  } catch (err) {
    if (err instanceof WrongExpectedRevisionError) return null;
    throw err;
  }
}

/**
 * The successes as events of at most SUCCESSES_PER_EVENT each. An id names its content, not only the revision it is
 * appended at: EventStoreDB takes an append of known ids at the same revision for a repeat, so another processor's
 * batch from the same revision must not share them (it is refused as a conflict instead).
 */
function successEvents(companyId: string, endpointId: string, revision: bigint | null, attempts: AttemptData[]) {
  const events = [];
  for (let i = 0; i < attempts.length; i += SUCCESSES_PER_EVENT) {
    const chunk = attempts.slice(i, i + SUCCESSES_PER_EVENT);
    const [first, last] = [chunk[0]!, chunk.at(-1)!];
    const deliveries = chunk.map((a) => ({ deliveryId: a.deliveryId, eventId: a.eventId, eventType: a.eventType, attempt: a.attempt, httpStatus: a.httpStatus, latencyMs: a.latencyMs, response: a.response, at: a.at }));
    events.push({
      id: uuidFrom(`succeeded:${endpointId}:${revision ?? 'start'}:${i}:${first.deliveryId}:${first.attempt}:${first.at}:${last.deliveryId}:${last.attempt}:${last.at}`),
      type: 'WebhookDeliveriesSucceeded',
      data: { endpointId, companyId, deliveries },
      metadata: { companyId },
    });
  }
  return events;
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

/**
 * A manual resend of one delivered (or failed) event now: same `webhook-id`, outside the in-order queue. Its number
 * follows the attempts made so far: those of the delivery's stream, and `attemptsSoFar` (the delivery log's count,
 * which also holds the successes the worker recorded with the endpoint's progress).
 */
export async function resendDelivery(deps: DeliveryDeps, companyId: string, endpoint: WebhookEndpoint, delivery: { n: number; event: PublicEvent; attemptsSoFar?: number }) {
  const last = await lastDeliveryAttempt(deps, endpoint.id, String(delivery.n));
  const attempt = Math.max(last?.attempt ?? 0, delivery.attemptsSoFar ?? 0) + 1;
  return attemptDelivery(deps, { companyId, endpoint, deliveryId: String(delivery.n), event: delivery.event, attempt, trigger: 'resend', retryInMs: null });
}
