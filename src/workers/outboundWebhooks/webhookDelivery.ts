import { randomUUID } from 'node:crypto';
import type { Bus } from '../../ports/bus.js';
import { lastPublicEventNumber } from '../../projections/publicEvents/queries.js';
import { listActiveWebhookEndpoints } from '../../projections/webhookEndpoints/queries.js';
import type { WebhookEndpointDoc } from '../../projections/webhookEndpoints/webhookEndpointsProjection.js';
import { createFairSlots, type FairSlots } from '../../shared/fairness/fairSlots.js';
import { newRun, RECORD_AFTER_MS, recordNow, serveTurn, type EndpointRun, type RunDeps, type TurnOutcome } from './webhookEndpointRun.js';
import { createCompanyEvents } from './webhookEvents.js';
import { soleOwner, startEndpointOwners, type EndpointOwners } from './webhookOwners.js';

/**
 * Outbound webhook delivery. Each endpoint is a queue of its own: the company's public events in their numbered
 * order (the publicEvents read model), of the types it takes, from where its progress says it got. An endpoint's
 * turn (one window of deliveries, each of another conversation) holds one slot, and endpoints take the worker's
 * slots in turn, at most `companyConcurrency` of one company (fairSlots): a hanging endpoint holds one slot for one
 * timeout at a time, and waits out its retries without holding any, so it delays neither the company's other
 * endpoints nor other companies. The order per conversation holds under retries: an event is not sent before the
 * ones before it of its conversation were delivered. At least once: progress moves only past delivered events, and a crash before it was
 * recorded sends them again with the same `webhook-id`. What one endpoint's turn does, and what it keeps in memory
 * between turns: webhookEndpointRun.ts. Which endpoints this processor serves when several run: webhookOwners.ts.
 */

export interface WebhookDeliverySettings {
  retryScheduleMs: number[];
  concurrency: number;
  companyConcurrency: number;
  pollMs: number;
}

export interface WebhookDeliveryDeps extends Omit<RunDeps, 'events'> {
  settings: WebhookDeliverySettings;
  /** Shares the endpoints with the other processors met on it; without it this processor serves them all. */
  bus?: Bus;
  /** This processor's id among them (random by default). */
  instanceId?: string;
  /** How often processors say they are alive (default 1 s). */
  heartbeatMs?: number;
}

interface Worker {
  deps: WebhookDeliveryDeps & RunDeps;
  owners: EndpointOwners;
  slots: FairSlots;
  runs: Map<string, EndpointRun>;
  busy: Set<string>;
  retryAt: Map<string, number>;
  recordTimers: Map<string, NodeJS.Timeout>;
  inFlight: Set<Promise<void>>;
  stopped: boolean;
}

export async function startWebhookDeliveries(deps: WebhookDeliveryDeps): Promise<{ stop(): Promise<void>; owners: EndpointOwners }> {
  const { settings, logger } = deps;
  const owners = deps.bus
    ? await startEndpointOwners({ bus: deps.bus, instanceId: deps.instanceId ?? randomUUID(), heartbeatMs: deps.heartbeatMs ?? 1000, logger })
    : soleOwner;
  const w: Worker = {
    deps: { ...deps, events: createCompanyEvents(deps.readStore) },
    owners,
    slots: createFairSlots({ total: settings.concurrency, perCompany: settings.companyConcurrency }),
    runs: new Map(),
    busy: new Set(),
    retryAt: new Map(),
    recordTimers: new Map(),
    inFlight: new Set(),
    stopped: false,
  };
  let timer: NodeJS.Timeout | null = null;
  const loop = async () => {
    try {
      await tick(w);
    } catch (err) {
      logger.error({ err }, 'could not look at the webhook endpoints; trying again');
    }
    if (!w.stopped) timer = setTimeout(() => void loop(), settings.pollMs);
  };
  void loop();

  return {
    owners,
    async stop() {
      w.stopped = true;
      if (timer) clearTimeout(timer);
      for (const t of w.recordTimers.values()) clearTimeout(t);
      await Promise.allSettled([...w.inFlight]);
      // What was delivered is recorded before the processor goes, so the next one does not send it again.
      await Promise.allSettled([...w.runs.values()].map((run) => recordNow(w.deps, run)));
      await owners.stop();
    },
  };
}

/**
 * Runs `work` for one endpoint, which nothing else touches meanwhile (`busy` until it is over), then `next`: what
 * comes after must start once the endpoint is free, or a poll in between would start a second turn beside it.
 */
function exclusive<T>(w: Worker, id: string, work: () => Promise<T>, next?: (result: T) => void) {
  w.busy.add(id);
  const run = work().then(
    (result) => {
      w.busy.delete(id);
      next?.(result);
    },
    (err: unknown) => {
      w.busy.delete(id);
      w.deps.logger.error({ err, endpointId: id }, 'webhook delivery failed unexpectedly; the endpoint is read again and tried later');
      w.runs.delete(id);
      w.retryAt.set(id, Date.now() + 1000);
    },
  );
  w.inFlight.add(run);
  void run.finally(() => w.inFlight.delete(run));
}

function schedule(w: Worker, doc: WebhookEndpointDoc) {
  const turn = async (): Promise<TurnOutcome | null> => {
    const release = await w.slots.acquire(doc.companyId, 60_000);
    if (!release) return null;
    try {
      if (w.stopped || !w.owners.owns(doc.id)) return null;
      let run = w.runs.get(doc.id);
      if (!run) w.runs.set(doc.id, (run = newRun(doc)));
      return await serveTurn(w.deps, run, doc, () => !w.stopped && w.owners.owns(doc.id));
    } finally {
      release();
    }
  };
  exclusive(w, doc.id, turn, (outcome) => {
    if (outcome) afterTurn(w, doc, outcome);
  });
}

function afterTurn(w: Worker, doc: WebhookEndpointDoc, outcome: TurnOutcome) {
  if (outcome.kind === 'forget') return void w.runs.delete(doc.id);
  if (outcome.kind === 'retryAt') w.retryAt.set(doc.id, outcome.at);
  else w.retryAt.delete(doc.id);
  const run = w.runs.get(doc.id);
  // Successes wait to be recorded with the next ones; a quiet endpoint records them RECORD_AFTER_MS later.
  if (run && run.unrecorded.length > 0 && !w.recordTimers.has(doc.id)) {
    const t = setTimeout(() => {
      w.recordTimers.delete(doc.id);
      if (!w.stopped && !w.busy.has(doc.id)) exclusive(w, doc.id, () => record(w, doc.id));
    }, RECORD_AFTER_MS);
    w.recordTimers.set(doc.id, t);
  }
  if (outcome.kind === 'again' && !w.stopped) schedule(w, doc);
}

/** Records what a run holds, and forgets it when another processor moved its progress meanwhile. */
async function record(w: Worker, id: string) {
  const run = w.runs.get(id);
  if (run && !(await recordNow(w.deps, run))) w.runs.delete(id);
}

/** Lets go of an endpoint this processor no longer serves (or that is gone): what it delivered is recorded first. */
function letGo(w: Worker, id: string) {
  if (w.busy.has(id)) return;
  exclusive(w, id, async () => {
    await record(w, id);
    w.runs.delete(id);
  });
}

async function tick(w: Worker) {
  const { readStore } = w.deps;
  const lastN = new Map<string, number>();
  const listed = new Set<string>();
  let cursor: string | null = null;
  do {
    const page = await listActiveWebhookEndpoints(readStore, cursor);
    for (const doc of page.items) {
      listed.add(doc.id);
      if (w.stopped || w.busy.has(doc.id)) continue;
      if (!w.owners.owns(doc.id)) {
        if (w.runs.has(doc.id)) letGo(w, doc.id);
        continue;
      }
      if ((w.retryAt.get(doc.id) ?? 0) > Date.now()) continue;
      if (!lastN.has(doc.companyId)) lastN.set(doc.companyId, await lastPublicEventNumber(readStore, doc.companyId));
      const run = w.runs.get(doc.id);
      // Nothing new for it and no replay asked for: not worth a turn.
      if (run?.recorded && run.through >= lastN.get(doc.companyId)! && (doc.replay?.replayId ?? null) === run.recorded.replayId) continue;
      if (!w.busy.has(doc.id) && !w.stopped) schedule(w, doc);
    }
    cursor = page.nextCursor;
  } while (cursor && !w.stopped);
  for (const id of w.runs.keys()) if (!listed.has(id) && !w.stopped) letGo(w, id);
}
