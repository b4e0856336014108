import type { CommandDeps } from '../../commands/deps.js';
import {
  lastDeliveryAttempt,
  loadDeliveryProgress,
  moveDeliveryProgress,
  recordAttempt,
  recordDeliveries,
  sendDelivery,
  signingSecrets,
  type DeliveryProgress,
} from '../../commands/webhookDeliveries/deliveries.js';
import { loadWebhookEndpoints } from '../../commands/webhookEndpoints/streamReads.js';
import { disableWebhookEndpoint } from '../../commands/webhookEndpoints/webhookEndpoints.js';
import type { PublicEventType } from '../../domain/publicEvents/catalog.js';
import type { WebhookDeliveryEvent } from '../../domain/webhookDeliveries/events.js';
import type { WebhookEndpoint } from '../../domain/webhookEndpoints/state.js';
import type { Logger } from '../../ports/logger.js';
import type { OutboundWebhookMetrics } from '../../ports/metrics.js';
import type { ReadStore } from '../../ports/readStore.js';
import type { SecretBox } from '../../ports/secretBox.js';
import type { WebhookSender } from '../../ports/webhookSender.js';
import { firstPublicEventAtOrAfter } from '../../projections/publicEvents/queries.js';
import type { WebhookEndpointDoc } from '../../projections/webhookEndpoints/webhookEndpointsProjection.js';
import type { CompanyEvents, DeliverableEvent } from './webhookEvents.js';

/**
 * One endpoint as the delivery worker serves it: its progress and its next events kept in memory between turns,
 * so a delivery costs the POST and nothing else on its way. What it cost before, for each delivered event, one after
 * the other: four reads (the company's endpoints, the progress, the next public event, the delivery's last attempt)
 * and two appends (the attempt, the progress). Now:
 * - the endpoint's settings are read once a turn (a turn delivers up to TURN_DELIVERIES events);
 * - its events are read a page of EVENTS_PER_READ at a time;
 * - a delivery's last attempt is read only for the first event after the progress was (re)loaded: after that the
 *   worker knows it (it made them);
 * - successes are recorded in batches with the progress they make, one append (`recordDeliveries`) once
 *   RECORD_EVERY are waiting or RECORD_AFTER_MS after the oldest, and before anything else is recorded (a failure, a
 *   replay, the endpoint disabled), so the log keeps the order attempts were made in. A crash loses at most that
 *   batch's records: those events are sent again under the same `webhook-id` (at least once; none is lost, as the
 *   progress never passes an event that was not delivered).
 * A failure is recorded at once, in the delivery's stream (the retry schedule resumes from it after a restart).
 *
 * An endpoint that answers has up to MAX_WINDOW deliveries in flight, the next events of as many different
 * conversations (a window: on a busy machine a delivery waits mostly for its round trip, and one at a time an
 * endpoint could not keep up with a busy company). The order per conversation holds: an event is sent only with
 * or after the ones before it of its conversation delivered. The window starts at one after a (re)load and after
 * any failure and doubles with each window delivered whole, so a failing or hanging endpoint has one delivery in
 * flight. When one in a window fails, those before it count as delivered and the failed one is retried as
 * before; those after it that were delivered are remembered (`ahead`) and passed over when their turn comes (a
 * crash meanwhile sends them again, same id), and those after it that failed are sent again in order, their
 * attempt counted in the metrics but not logged.
 */

export const TURN_DELIVERIES = 25;
/** At most this many deliveries of one endpoint in flight at once, each of another conversation. */
export const MAX_WINDOW = 8;
export const EVENTS_PER_READ = 50;
export const RECORD_EVERY = 100;
export const RECORD_AFTER_MS = 500;

export interface RunDeps {
  commands: CommandDeps;
  readStore: ReadStore;
  secretBox: SecretBox;
  sender: WebhookSender;
  /** Where the endpoints' events come from: read and serialised once per company (webhookEvents.ts). */
  events: CompanyEvents;
  settings: { retryScheduleMs: number[] };
  logger: Logger;
  metrics?: OutboundWebhookMetrics;
  random?: () => number;
}

type AttemptData = Extract<WebhookDeliveryEvent, { type: 'WebhookDeliveryAttempted' }>['data'];

export interface EndpointRun {
  id: string;
  companyId: string;
  /** The progress as recorded (null until read): what a crash falls back to. */
  recorded: DeliveryProgress | null;
  /** Delivered or skipped through here: ahead of `recorded` by what is not recorded yet. */
  through: number;
  /** Successes not recorded yet, oldest first, and when the oldest was made. */
  unrecorded: AttemptData[];
  unrecordedSince: number;
  /** Events after `through` of the endpoint's types, oldest first, read for the settings of `queueFor`. */
  queue: DeliverableEvent[];
  queueFor: string;
  /** The last failed attempt of the head event; 'unknown' until read, after a (re)load. */
  failure: { n: number; attempt: number; nextRetryAt: string | null } | null | 'unknown';
  /** Deliveries in flight at once for it now (1 … MAX_WINDOW). */
  window: number;
  /** Events after the head already delivered (a window whose earlier event failed). */
  ahead: Set<number>;
}

export type TurnOutcome = { kind: 'again' } | { kind: 'idle' } | { kind: 'retryAt'; at: number } | { kind: 'forget' };

export const newRun = (doc: Pick<WebhookEndpointDoc, 'id' | 'companyId'>): EndpointRun => ({
  id: doc.id,
  companyId: doc.companyId,
  recorded: null,
  through: 0,
  unrecorded: [],
  unrecordedSince: 0,
  queue: [],
  queueFor: '',
  failure: 'unknown',
  window: 1,
  ahead: new Set(),
});

const settle = (run: EndpointRun, progress: DeliveryProgress) => {
  run.recorded = progress;
  run.through = progress.through;
  run.queue = [];
  run.failure = null;
  run.ahead.clear();
};

/** Reads the progress, and starts a new endpoint at its creation or applies a replay asked for. False: forget the run. */
async function prepare(deps: RunDeps, run: EndpointRun, endpoint: WebhookEndpoint, doc: WebhookEndpointDoc): Promise<boolean> {
  const { commands, readStore } = deps;
  if (!run.recorded) {
    run.recorded = await loadDeliveryProgress(commands, run.id);
    run.through = run.recorded.through;
    run.failure = 'unknown';
  }
  const from = run.recorded;
  if (from.revision === null) {
    // A new endpoint takes what happens from its creation on, not the company's whole history (replay is for that).
    const first = await firstPublicEventAtOrAfter(readStore, run.companyId, endpoint.createdAt);
    const moved = await moveDeliveryProgress(commands, { companyId: run.companyId, endpointId: run.id, from, to: first - 1 });
    if (!moved) return false;
    settle(run, moved);
  }
  if (doc.replay && doc.replay.replayId !== run.recorded.replayId) {
    if (!(await recordNow(deps, run))) return false;
    const first = await firstPublicEventAtOrAfter(readStore, run.companyId, doc.replay.from);
    const moved = await moveDeliveryProgress(commands, { companyId: run.companyId, endpointId: run.id, from: run.recorded, to: first - 1, replay: doc.replay });
    if (!moved) return false;
    settle(run, moved);
  }
  return true;
}

/**
 * One turn of one endpoint, holding one of the worker's slots: up to TURN_DELIVERIES steps (a delivery, a window
 * of them, a page of events it does not take) in the log's order, until none is left, a delivery fails, or this
 * processor no longer serves the endpoint.
 */
export async function serveTurn(deps: RunDeps, run: EndpointRun, doc: WebhookEndpointDoc, stillMine: () => boolean): Promise<TurnOutcome> {
  const endpoint = (await loadWebhookEndpoints(deps.commands.eventStore, run.companyId)).endpoints.get(run.id);
  if (!endpoint?.active) {
    await recordNow(deps, run);
    return { kind: 'forget' };
  }
  if (!(await prepare(deps, run, endpoint, doc))) return { kind: 'forget' };
  const queueFor = `${endpoint.updatedAt}:${endpoint.eventTypes.join(',')}`;
  if (run.queueFor !== queueFor) [run.queue, run.queueFor] = [[], queueFor];
  // Opened once a turn: a turn is short, and the previous secret's grace is checked at its start.
  const secrets = signingSecrets(deps.secretBox, endpoint, deps.commands.clock.now());
  let outcome: TurnOutcome = { kind: 'again' };
  for (let i = 0; i < TURN_DELIVERIES && outcome.kind === 'again'; i++) {
    if (!stillMine()) break;
    const next = await nextEvent(deps, run, endpoint);
    if (!next) outcome = { kind: 'idle' };
    else if (next === 'skipped') continue;
    else if (run.ahead.delete(next.n)) passed(run, next);
    else if (run.window > 1 && run.failure === null) outcome = await deliverWindow(deps, run, { endpoint, secrets });
    else outcome = await deliver(deps, run, { endpoint, secrets }, next);
  }
  if (run.unrecorded.length >= RECORD_EVERY || (run.unrecorded.length > 0 && Date.now() - run.unrecordedSince >= RECORD_AFTER_MS)) {
    if (!(await recordNow(deps, run))) return { kind: 'forget' };
  }
  return outcome;
}

/**
 * The next event to deliver, reading a page when the queue is empty; null when there is none, 'skipped' when a
 * page held none it takes and more are stored (each page read counts as a step of the turn, so a long stretch
 * of events it does not take is passed over a bounded amount at a time).
 */
async function nextEvent(deps: RunDeps, run: EndpointRun, endpoint: WebhookEndpoint): Promise<DeliverableEvent | 'skipped' | null> {
  if (run.queue.length === 0) {
    const types = endpoint.eventTypes.includes('*') ? null : (endpoint.eventTypes as PublicEventType[]);
    const page = await deps.events.page(run.companyId, { after: run.through, types, limit: EVENTS_PER_READ });
    run.queue = page.items;
    // Events it does not take are passed over in memory, recorded with the next batch.
    if (page.items.length === 0 && page.next > run.through) run.through = page.next;
    if (page.items.length === 0 && page.hasMore) return 'skipped';
  }
  return run.queue[0] ?? null;
}

async function deliver(deps: RunDeps, run: EndpointRun, to: { endpoint: WebhookEndpoint; secrets: string[] }, event: DeliverableEvent): Promise<TurnOutcome> {
  const { commands, settings } = deps;
  const { endpoint } = to;
  if (run.failure === 'unknown') {
    const last = await lastDeliveryAttempt(commands, run.id, String(event.n));
    // A retry continues the schedule; after a success (a replay) or a schedule that ran out (turned on again) it starts over.
    run.failure = last && !last.ok && last.trigger === 'delivery' && last.nextRetryAt !== null ? { n: event.n, attempt: last.attempt, nextRetryAt: last.nextRetryAt } : null;
  }
  const failure = run.failure?.n === event.n && run.failure.nextRetryAt !== null ? run.failure : null;
  if (failure && Date.parse(failure.nextRetryAt!) > commands.clock.now().getTime()) return { kind: 'retryAt', at: Date.parse(failure.nextRetryAt!) };
  const attempt = failure ? failure.attempt + 1 : 1;
  const wait = settings.retryScheduleMs[attempt - 1];
  const retryInMs = wait === undefined ? null : Math.round(wait * (0.8 + 0.4 * (deps.random ?? Math.random)()));
  const input = { companyId: run.companyId, endpoint, deliveryId: String(event.n), event: event.event, attempt, trigger: 'delivery' as const, retryInMs };
  const result = await sendDelivery({ ...commands, secretBox: deps.secretBox, sender: deps.sender }, input, { secrets: to.secrets, body: event.body });
  deps.metrics?.attempted(run.id, result.ok, result.latencyMs);
  if (result.ok) {
    delivered(deps, run, event, result);
    passed(run, event);
    run.failure = null;
    run.window = Math.min(MAX_WINDOW, 2);
    return { kind: 'again' };
  }
  return failed(deps, run, event, result, retryInMs);
}

/** A delivered event waits to be recorded with the next ones. */
function delivered(deps: RunDeps, run: EndpointRun, event: DeliverableEvent, result: AttemptData) {
  deps.metrics?.lag(run.id, Math.max(0, Date.parse(result.at) - Date.parse(event.timestamp)));
  if (run.unrecorded.length === 0) run.unrecordedSince = Date.now();
  run.unrecorded.push(result);
}

/** The head event is done with: the endpoint's progress moves past it. */
function passed(run: EndpointRun, event: DeliverableEvent) {
  run.queue.shift();
  run.through = event.n;
}

/**
 * Sends the next events of up to `run.window` different conversations at once, then takes the answers in the
 * log's order: see the module's comment.
 */
async function deliverWindow(deps: RunDeps, run: EndpointRun, to: { endpoint: WebhookEndpoint; secrets: string[] }): Promise<TurnOutcome> {
  const { commands, settings } = deps;
  const picked: DeliverableEvent[] = [];
  const conversations = new Set<string>();
  for (const event of run.queue) {
    const conversation = event.conversationId ?? '';
    if (picked.length === run.window || conversations.has(conversation) || run.ahead.has(event.n)) break;
    conversations.add(conversation);
    picked.push(event);
  }
  const wait = settings.retryScheduleMs[0];
  const retryInMs = wait === undefined ? null : Math.round(wait * (0.8 + 0.4 * (deps.random ?? Math.random)()));
  const sendDeps = { ...commands, secretBox: deps.secretBox, sender: deps.sender };
  const results = await Promise.all(
    picked.map((event) => sendDelivery(sendDeps, { companyId: run.companyId, endpoint: to.endpoint, deliveryId: String(event.n), event: event.event, attempt: 1, trigger: 'delivery', retryInMs }, { secrets: to.secrets, body: event.body })),
  );
  let failure: { event: DeliverableEvent; result: AttemptData } | null = null;
  for (const [i, event] of picked.entries()) {
    const result = results[i]!;
    deps.metrics?.attempted(run.id, result.ok, result.latencyMs);
    if (result.ok) delivered(deps, run, event, result);
    if (result.ok && !failure) passed(run, event);
    else if (result.ok) run.ahead.add(event.n);
    else failure ??= { event, result };
  }
  if (!failure) {
    run.window = Math.min(MAX_WINDOW, run.window * 2);
    return { kind: 'again' };
  }
  return failed(deps, run, failure.event, failure.result, retryInMs);
}

/** The head event's attempt failed: recorded at once, then retried later, or the endpoint disabled when the schedule ran out. */
async function failed(deps: RunDeps, run: EndpointRun, event: DeliverableEvent, result: AttemptData, retryInMs: number | null): Promise<TurnOutcome> {
  const { commands, settings } = deps;
  const attempt = result.attempt;
  run.window = 1;
  if (!(await recordNow(deps, run))) return { kind: 'forget' };
  await recordAttempt(commands, result);
  run.failure = { n: event.n, attempt, nextRetryAt: result.nextRetryAt };
  if (retryInMs !== null) return { kind: 'retryAt', at: Date.parse(result.nextRetryAt!) };
  const hours = Math.round(settings.retryScheduleMs.reduce((a, b) => a + b, 0) / 360_000) / 10;
  const why = `deliveries failed for ${hours} h (${attempt} attempts; last: ${result.httpStatus ?? result.response.slice(0, 100)})`;
  await disableWebhookEndpoint(commands, run.companyId, run.id, why);
  deps.logger.warn({ endpointId: run.id, companyId: run.companyId, attempts: attempt }, 'webhook endpoint disabled after persistent failure');
  return { kind: 'forget' };
}

/**
 * Records the successes waiting and the progress made, if any: one append. False when another processor moved
 * the progress meanwhile (the endpoint changed hands): the run is to be forgotten and read again.
 */
export async function recordNow(deps: RunDeps, run: EndpointRun): Promise<boolean> {
  if (!run.recorded || run.recorded.revision === null) return run.unrecorded.length === 0;
  if (run.unrecorded.length === 0 && run.through === run.recorded.through) return true;
  const recorded = await recordDeliveries(deps.commands, { companyId: run.companyId, endpointId: run.id, from: run.recorded, to: run.through, attempts: run.unrecorded });
  if (!recorded) {
    deps.logger.info({ endpointId: run.id, unrecorded: run.unrecorded.length }, 'another processor moved the endpoint\'s progress; its unrecorded deliveries will be sent again under the same ids');
    return false;
  }
  run.recorded = recorded;
  run.unrecorded = [];
  return true;
}
