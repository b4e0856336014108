import type { CommandDeps } from '../commands/deps.js';
import { attemptDelivery, lastDeliveryAttempt, loadDeliveryProgress, moveDeliveryProgress, type DeliveryDeps, type DeliveryProgress } from '../commands/webhookDeliveries/deliveries.js';
import { loadWebhookEndpoints } from '../commands/webhookEndpoints/queries.js';
import { disableWebhookEndpoint } from '../commands/webhookEndpoints/webhookEndpoints.js';
import type { PublicEventType } from '../domain/publicEvents/catalog.js';
import type { WebhookEndpoint } from '../domain/webhookEndpoints/state.js';
import type { Logger } from '../ports/logger.js';
import type { WebhookDeliveryMetrics } from '../ports/metrics.js';
import type { ReadStore } from '../ports/readStore.js';
import type { SecretBox } from '../ports/secretBox.js';
import type { WebhookSender } from '../ports/webhookSender.js';
import { firstPublicEventAtOrAfter, lastPublicEventNumber, listPublicEvents } from '../projections/publicEvents/queries.js';
import { listActiveWebhookEndpoints } from '../projections/webhookEndpoints/queries.js';
import type { WebhookEndpointDoc } from '../projections/webhookEndpoints/webhookEndpointsProjection.js';
import { createFairSlots } from './fairSlots.js';

/**
 * Outbound webhook delivery. Each endpoint is a queue of its own: the company's public events in their numbered
 * order (the publicEvents read model), of the types it takes, from where its progress stream says it got. At most
 * one delivery per endpoint is in flight, and endpoints take the worker's slots in turn, at most
 * `companyConcurrency` of one company (fairSlots): a hanging endpoint holds one slot for one timeout at a time,
 * and waits out its retries without holding any, so it delays neither the company's other endpoints nor other
 * companies. The order per endpoint is the event log's, so it holds per conversation under retries: an event is
 * not sent before the one before it was delivered. At least once: progress moves only after a 2xx, and a
 * crash in between sends the event again with the same `webhook-id`.
 */

export interface WebhookDeliverySettings {
  retryScheduleMs: number[];
  concurrency: number;
  companyConcurrency: number;
  pollMs: number;
}

export interface WebhookDeliveryDeps {
  commands: CommandDeps;
  readStore: ReadStore;
  secretBox: SecretBox;
  sender: WebhookSender;
  settings: WebhookDeliverySettings;
  logger: Logger;
  metrics?: WebhookDeliveryMetrics;
  /** 0..1; jitter of the retry waits (tests fix it). */
  random?: () => number;
}

type Outcome = 'again' | 'idle';

export function startWebhookDeliveries(deps: WebhookDeliveryDeps): { stop(): Promise<void> } {
  const { settings, logger } = deps;
  const slots = createFairSlots({ total: settings.concurrency, perCompany: settings.companyConcurrency });
  const busy = new Set<string>();
  const retryAt = new Map<string, number>();
  const known = new Map<string, { through: number; replayId: string | null }>();
  const inFlight = new Set<Promise<void>>();
  let stopped = false;

  const schedule = (doc: WebhookEndpointDoc) => {
    busy.add(doc.id);
    const run = (async () => {
      const release = await slots.acquire(doc.companyId, 60_000);
      if (!release) return void busy.delete(doc.id);
      let outcome: Outcome = 'idle';
      try {
        if (!stopped) outcome = await serveEndpoint(deps, doc, { retryAt, known });
      } catch (err) {
        logger.error({ err, endpointId: doc.id }, 'webhook delivery failed unexpectedly; the endpoint is tried again later');
        retryAt.set(doc.id, Date.now() + 1000);
      } finally {
        release();
        busy.delete(doc.id);
      }
      if (outcome === 'again' && !stopped) schedule(doc);
    })();
    inFlight.add(run);
    void run.finally(() => inFlight.delete(run));
  };

  const tick = async () => {
    const lastN = new Map<string, number>();
    let cursor: string | null = null;
    do {
      const page = await listActiveWebhookEndpoints(deps.readStore, cursor);
      for (const doc of page.items) {
        if (stopped || busy.has(doc.id) || (retryAt.get(doc.id) ?? 0) > Date.now()) continue;
        if (!lastN.has(doc.companyId)) lastN.set(doc.companyId, await lastPublicEventNumber(deps.readStore, doc.companyId));
        const seen = known.get(doc.id);
        // Nothing new for it and no replay asked for: not worth a turn.
        if (seen && seen.through >= lastN.get(doc.companyId)! && (doc.replay?.replayId ?? null) === seen.replayId) continue;
        if (!busy.has(doc.id) && !stopped) schedule(doc);
      }
      cursor = page.nextCursor;
    } while (cursor && !stopped);
  };

  let timer: NodeJS.Timeout | null = null;
  const loop = async () => {
    try {
      await tick();
    } catch (err) {
      logger.error({ err }, 'could not look at the webhook endpoints; trying again');
    }
    if (!stopped) timer = setTimeout(() => void loop(), settings.pollMs);
  };
  void loop();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}

interface Memory {
  retryAt: Map<string, number>;
  known: Map<string, { through: number; replayId: string | null }>;
}

/** One turn of one endpoint: apply a replay, skip events it does not take, or make one delivery attempt. */
async function serveEndpoint(deps: WebhookDeliveryDeps, doc: WebhookEndpointDoc, memory: Memory): Promise<Outcome> {
  const { commands, readStore } = deps;
  const companyId = doc.companyId;
  const endpoint = (await loadWebhookEndpoints(commands.eventStore, companyId)).endpoints.get(doc.id);
  if (!endpoint?.active) return 'idle';
  const progress = await loadDeliveryProgress(commands, endpoint.id);
  memory.known.set(endpoint.id, { through: progress.through, replayId: progress.replayId });
  if (progress.revision === null) {
    // A new endpoint takes what happens from its creation on, not the company's whole history (replay is for that).
    const first = await firstPublicEventAtOrAfter(readStore, companyId, endpoint.createdAt);
    await moveDeliveryProgress(commands, { companyId, endpointId: endpoint.id, from: progress, to: first - 1 });
    return 'again';
  }
  if (doc.replay && doc.replay.replayId !== progress.replayId) {
    const first = await firstPublicEventAtOrAfter(readStore, companyId, doc.replay.from);
    await moveDeliveryProgress(commands, { companyId, endpointId: endpoint.id, from: progress, to: first - 1, replay: doc.replay });
    return 'again';
  }
  const types = endpoint.eventTypes.includes('*') ? null : (endpoint.eventTypes as PublicEventType[]);
  const page = await listPublicEvents(readStore, companyId, { after: progress.through, types, limit: 1 });
  const next = page.items[0];
  if (!next) {
    if (page.next > progress.through) await moveDeliveryProgress(commands, { companyId, endpointId: endpoint.id, from: progress, to: page.next });
    return page.hasMore ? 'again' : 'idle';
  }
  return deliver(deps, memory, { companyId, endpoint, progress, event: next });
}

async function deliver(
  deps: WebhookDeliveryDeps,
  memory: Memory,
  input: { companyId: string; endpoint: WebhookEndpoint; progress: DeliveryProgress; event: Awaited<ReturnType<typeof listPublicEvents>>['items'][number] },
): Promise<Outcome> {
  const { commands, settings } = deps;
  const { companyId, endpoint, progress, event } = input;
  const deliveryId = String(event.n);
  const last = await lastDeliveryAttempt(commands, endpoint.id, deliveryId);
  // A retry continues the schedule; after a success (a replay) or a schedule that ran out (turned on again) it starts over.
  const retrying = last !== null && !last.ok && last.trigger === 'delivery' && last.nextRetryAt !== null;
  if (retrying && Date.parse(last.nextRetryAt!) > commands.clock.now().getTime()) {
    memory.retryAt.set(endpoint.id, Date.parse(last.nextRetryAt!));
    return 'idle';
  }
  const attempt = retrying ? last.attempt + 1 : 1;
  const wait = settings.retryScheduleMs[attempt - 1];
  const retryInMs = wait === undefined ? null : Math.round(wait * (0.8 + 0.4 * (deps.random ?? Math.random)()));
  const deliveryDeps: DeliveryDeps = { ...commands, secretBox: deps.secretBox, sender: deps.sender };
  const result = await attemptDelivery(deliveryDeps, { companyId, endpoint, deliveryId, event: event.event, attempt, trigger: 'delivery', retryInMs });
  deps.metrics?.attempted(endpoint.id, result.ok, result.latencyMs);
  if (result.ok) {
    deps.metrics?.lag(endpoint.id, Math.max(0, Date.parse(result.at) - Date.parse(event.timestamp)));
    memory.retryAt.delete(endpoint.id);
    await moveDeliveryProgress(commands, { companyId, endpointId: endpoint.id, from: progress, to: event.n });
    return 'again';
  }
  if (retryInMs !== null) {
    memory.retryAt.set(endpoint.id, Date.parse(result.nextRetryAt!));
    return 'idle';
  }
  const hours = Math.round(settings.retryScheduleMs.reduce((a, b) => a + b, 0) / 360_000) / 10;
  const why = `deliveries failed for ${hours} h (${attempt} attempts; last: ${result.httpStatus ?? result.response.slice(0, 100)})`;
  await disableWebhookEndpoint(commands, companyId, endpoint.id, why);
  deps.logger.warn({ endpointId: endpoint.id, companyId, attempts: attempt }, 'webhook endpoint disabled after persistent failure');
  return 'idle';
}
