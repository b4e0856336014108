import { CSAT_QUESTION, CSAT_WEBCHAT_QUESTION } from '../../domain/conversations/csat.js';
import { conversationDecider, conversationStream } from '../../domain/conversations/decider.js';
import { sendDecider, sendStream } from '../../domain/conversations/send/decider.js';
import type { ConversationState } from '../../domain/conversations/state.js';
import type { ConversationEvent, DeliveredTo } from '../../domain/conversations/events.js';
import type { PlatformId } from '../../domain/platformId.js';
import { loadIntegration } from '../../commands/integrations/streamReads.js';
import { handleCommand, loadState, toDomainEvent } from '../../commands/handleCommand.js';
import type { CommandDeps } from '../../commands/deps.js';
import type { SecretBox } from '../../ports/secretBox.js';
import type { Bus, BusSubscription } from '../../ports/bus.js';
import { noopJobMetrics, type JobMetrics } from '../../ports/metrics.js';
import type { EventStore } from '../../ports/eventStore.js';
import { PlatformError, type PlatformClient } from '../../ports/platform.js';
import { pushFor, type WebchatPush } from '../../ports/webchatPush.js';
import { createFairScheduler, type FairScheduler } from '../../shared/fairness/fairScheduler.js';
import { SEND_MESSAGE, sendMessageJob, webchatSubject, type SendMessageJob } from './replyJobs.js';
import { inSpan, SpanKind, withActiveSpan } from '../../ports/tracing.js';
import { jobAttributes } from '../../processing/jobAttributes.js';

export interface SendWorkerDeps extends CommandDeps {
  bus: Bus;
  platform: PlatformClient;
  secretBox: SecretBox;
  maxDeliver?: number;
  backoffMs?: number[];
  concurrency?: number;
  /** Send jobs taken off the bus and waiting for their turn in this process at most (beyond it they wait in the bus). */
  queueCapacity?: number;
  /** Jobs held per company (the queue-depth metric). */
  jobMetrics?: JobMetrics;
  /** Times each AI reply this process wrote from its customer's message to the channel's acceptance. */
  replyLatency?: ReplyLatency;
}

/**
 * Delivers agent replies and operator messages through their channel, then records the outcome.
 * A failed send is redelivered with backoff; the last attempt records the failure with its reason.
 */
export interface SendWorker extends BusSubscription {
  scheduler: FairScheduler;
}

/** The company of a send job published before jobs named it: they share one turn. */
const UNNAMED_COMPANY = 'unnamed';

export async function startSendWorker(deps: SendWorkerDeps): Promise<SendWorker> {
  const maxDeliver = deps.maxDeliver ?? 5;
  const concurrency = deps.concurrency ?? 8;
  const unrecorded = new Map<string, Unrecorded>();
  // Sends are never shed (the answer exists and is paid for): a full queue leaves the rest in the bus.
  const scheduler = createFairScheduler({ slots: concurrency, perCompany: Math.max(1, Math.floor((concurrency * 3) / 4)), now: () => deps.clock.now().getTime() });
  const metrics = deps.jobMetrics ?? noopJobMetrics;
  metrics.watchBacklog('send', () => scheduler.backlog());
  const onDelivered = (messageId: string) => {
    const seconds = deps.replyLatency?.delivered(messageId, deps.clock.now().getTime());
    if (seconds !== null && seconds !== undefined) metrics.replyDelivered(seconds);
  };
  const subscription = await deps.bus.subscribe<SendMessageJob>(
    SEND_MESSAGE,
    { durable: 'outbound-sender', concurrency: (deps.queueCapacity ?? 10_000) + concurrency, maxDeliver, backoffMs: deps.backoffMs ?? [1000, 5000, 15000, 30000] },
    async (message) => {
      const job = sendMessageJob.parse(message.data);
      const companyId = job.companyId ?? UNNAMED_COMPANY;
      // The trace of the message this answers (carried from the reply's span by the job) ends here.
      await inSpan('send', { kind: SpanKind.CONSUMER, traceparent: job.traceparent, attributes: jobAttributes(job, message.deliveryCount) }, async (span) => {
        const tracker = metrics.jobStarted('send');
        if (job.companyId) tracker.waiting(job.companyId);
        try {
          // One conversation's messages go out one at a time, in the order they were stored.
          await scheduler.submit({
            companyId,
            lane: job.conversationId,
            since: deps.clock.now().getTime(),
            run: () =>
              withActiveSpan(span, () => {
                span.addEvent('turn started');
                return sendMessage(deps, job, { attempt: message.deliveryCount, lastAttempt: message.deliveryCount >= maxDeliver, onCompany: tracker.running, onDelivered }, unrecorded);
              }),
          });
        } finally {
          tracker.done();
        }
      });
    },
  );
  return { scheduler, stop: () => subscription.stop() };
}

/**
 * Sends that reached the channel but whose outcome could not be stored yet (e.g. a full disk): a redelivery
 * records them instead of sending again. Per process and bounded; a crash in that gap is the documented
 * at-least-once window, narrowed by the attempt record and the idempotency key.
 */
const MAX_UNRECORDED = 10_000;
type Unrecorded = { platformMessageId: PlatformId | null; deliveredTo: DeliveredTo };

type Delivery = { attempt: number; lastAttempt: boolean; onCompany?: (companyId: string) => void; onDelivered?: (messageId: string) => void };

export async function sendMessage(deps: SendWorkerDeps, job: SendMessageJob, delivery: Delivery, unrecorded: Map<string, Unrecorded> = new Map()): Promise<void> {
  const stream = conversationStream(job.conversationId);
  const { state } = await loadState(deps.eventStore, stream, conversationDecider);
  const pending = state.outbound[job.messageId];
  if (!pending) return; // sent or failed already: a redelivery
  if (state.companyId) delivery.onCompany?.(state.companyId);
  const outgoing = await findOutgoing(deps.eventStore, stream, job);
  if (!outgoing) {
    deps.logger.error({ ...job }, 'message not sent: its event was not found in the conversation');
    return;
  }
  const outcome = outcomeRecorder(deps, job, state.companyId, delivery, unrecorded);
  const remembered = unrecorded.get(job.messageId);
  if (remembered) {
    // It went out; only storing that failed, and this process remembers it. Never send it twice.
    await outcome.delivered(remembered.platformMessageId, remembered.deliveredTo);
    return;
  }

  const integration = await loadIntegration(deps.eventStore, state.integrationId!);
  if (integration === null) {
    deps.logger.warn({ ...job }, 'message not sent: its integration was deleted');
    await outcome.fail('the integration was deleted');
    return;
  }
  if (integration.connectorType !== 'webchat' && !integration.apiUrl) {
    // The sandbox: without a platform address there is nobody to send to, and a newcomer trying the service
    // without a platform account should see the answer as delivered (to the sandbox), not as a failure.
    deps.logger.info({ ...job }, 'reply kept in the sandbox: the integration has no platform API URL');
    await outcome.delivered(null, 'sandbox');
    return;
  }
  if (integration.connectorType === 'webchat') {
    // A push is safe to repeat (the widget drops a message id it already shows): no attempt record and no send
    // guard, the delivery is the one write.
    await pushToWebchat(deps, job, outgoing, state.verifiedVisitor?.userId ?? null);
    await outcome.delivered(null, 'webchat');
    return;
  }
  if (!integration.apiToken) {
    await outcome.fail('the integration has a platform API URL but no platform API token; set the token on the integration');
    return;
  }
  const known = (await loadState(deps.eventStore, sendStream(job.messageId), sendDecider)).state.accepted;
  if (known) {
    // It reached the customer, but the conversation forgot it was sent (a late duplicate of the reply, which
    // EventStoreDB would store again): its guard, send-<messageId>, remembers on every event store.
    await outcome.delivered(known.platformMessageId, known.deliveredTo);
    return;
  }

  // Recorded before the call: a store that cannot write stops the send, and an attempt whose outcome was
  // lost (a crash right after the call) is visible in the audit and resent with the same idempotency key.
  if (pending.attempts > 0) deps.logger.warn({ ...job, previousAttempts: pending.attempts }, 'resending a message whose last attempt has no recorded outcome');
  await outcome.record({ type: 'RecordSendAttempt', messageId: job.messageId, idempotencyKey: job.messageId, now: outcome.at() });
  await sendToPlatform(deps, job, { integration, customer: state.customer!, text: outgoing.data.text ?? CSAT_QUESTION }, delivery, outcome);
}

type OutcomeRecorder = ReturnType<typeof outcomeRecorder>;

/** Records what became of a send in its conversation: delivered (remembered until stored) or failed. */
function outcomeRecorder(deps: SendWorkerDeps, job: SendMessageJob, companyId: string | null, delivery: Delivery, unrecorded: Map<string, Unrecorded>) {
  const stream = conversationStream(job.conversationId);
  const metadata = { companyId: companyId ?? undefined, actor: 'outbound-sender' };
  const record = (c: Parameters<typeof conversationDecider.decide>[0]) => handleCommand(deps.eventStore, stream, conversationDecider, c, { metadata });
  const at = () => deps.clock.now().toISOString();
  return {
    record,
    at,
    fail: (reason: string) => record({ type: 'RecordDeliveryFailure', messageId: job.messageId, reason, attempts: delivery.attempt, now: at() }),
    async delivered(platformMessageId: PlatformId | null, deliveredTo: DeliveredTo) {
      unrecorded.set(job.messageId, { platformMessageId, deliveredTo });
      if (unrecorded.size > MAX_UNRECORDED) unrecorded.delete(unrecorded.keys().next().value!);
      // The send's own guard first: it outlives the conversation's memory of settled sends. Only a platform
      // send needs it: a web-chat push is safe to repeat, and the sandbox sends nothing.
      if (deliveredTo === 'platform') await handleCommand(
        deps.eventStore,
        sendStream(job.messageId),
        sendDecider,
        { type: 'RecordSendAccepted', messageId: job.messageId, conversationId: job.conversationId, platformMessageId, deliveredTo, now: at() },
        { metadata },
      );
      await record({ type: 'RecordDelivery', messageId: job.messageId, platformMessageId, deliveredTo, now: at() });
      unrecorded.delete(job.messageId);
      delivery.onDelivered?.(job.messageId);
    },
  };
}

/**
 * Whichever instance holds the visitor's socket pushes it; a visitor offline gets it on resume. The widget
 * drops a message id it already shows, so a repeated push is harmless.
 */
async function pushToWebchat(deps: SendWorkerDeps, job: SendMessageJob, outgoing: Outgoing, verifiedUserId: string | null): Promise<void> {
  const push: WebchatPush =
    outgoing.type === 'CsatRequested'
      ? { type: 'csat', surveyId: outgoing.data.surveyId, question: CSAT_WEBCHAT_QUESTION, createdAt: outgoing.data.at }
      : { type: 'message', id: job.messageId, author: outgoing.type === 'AgentReplied' ? 'agent' : 'operator', text: outgoing.data.text, createdAt: outgoing.data.at };
  await deps.bus.broadcast(webchatSubject(job.conversationId), pushFor(push, verifiedUserId));
}

type Integration = NonNullable<Awaited<ReturnType<typeof loadIntegration>>>;
type Customer = NonNullable<ConversationState['customer']>;

/** Sends through the messaging platform; a platform failure is retried (thrown) until the last attempt records it. */
async function sendToPlatform(
  deps: SendWorkerDeps,
  job: SendMessageJob,
  message: { integration: Integration; customer: Customer; text: string },
  delivery: Delivery,
  outcome: OutcomeRecorder,
): Promise<void> {
  const { integration, customer } = message;
  let sent: { messageId: PlatformId | null };
  try {
    sent = await deps.platform.sendMessage({
      apiUrl: integration.apiUrl!,
      apiToken: deps.secretBox.open(integration.apiToken!),
      clientId: customer.clientId,
      channelId: customer.channelId ?? '',
      transport: customer.transport,
      text: message.text,
      idempotencyKey: job.messageId,
    });
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    // A blocked address will not unblock itself: no point retrying.
    if (delivery.lastAttempt || err.kind === 'blocked') {
      deps.logger.warn({ ...job, kind: err.kind, attempt: delivery.attempt }, 'message delivery failed for good');
      await outcome.fail(err.message);
      return;
    }
    deps.logger.info({ ...job, kind: err.kind, attempt: delivery.attempt }, 'message delivery failed; will retry');
    throw err;
  }
  await outcome.delivered(sent.messageId, 'platform');
}

type Outgoing = Extract<ConversationEvent, { type: 'AgentReplied' | 'OperatorMessageSent' | 'CsatRequested' }>;

/** The message to send: read at the revision the job names, else found by a bounded backward read. */
async function findOutgoing(store: EventStore, stream: string, job: SendMessageJob): Promise<Outgoing | null> {
  const isIt = (e: ConversationEvent): e is Outgoing =>
    (e.type === 'AgentReplied' || e.type === 'OperatorMessageSent' || e.type === 'CsatRequested') && e.data.messageId === job.messageId;
  if (job.revision !== undefined) {
    const [at] = await store.readStream(stream, { fromRevision: BigInt(job.revision), maxCount: 1 });
    const e = at ? toDomainEvent<ConversationEvent>(at) : null;
    if (e && isIt(e)) return e;
  }
  let before: bigint | undefined;
  for (let pages = 0; pages < 16; pages++) {
    const page = await store.readStream(stream, { direction: 'backwards', maxCount: 64, ...(before !== undefined ? { fromRevision: before } : {}) });
    for (const recorded of page) {
      const e = toDomainEvent<ConversationEvent>(recorded);
      if (isIt(e)) return e;
    }
    const oldest = page.at(-1);
    if (page.length < 64 || !oldest || oldest.revision === 0n) return null;
    before = oldest.revision - 1n;
  }
  return null;
}

/**
 * From a customer's message to its AI reply reaching the channel: the reply worker notes when the messages a
 * reply answers arrived, the send worker reports the time once the channel accepted it. Both run in the same
 * process; a reply sent by another instance (NATS) is not timed. Bounded: the oldest notes go first.
 */
export interface ReplyLatency {
  replied(replyId: string, sinceMs: number): void;
  /** Seconds since the first message it answers, or null for a message this process did not write. */
  delivered(messageId: string, nowMs: number): number | null;
}

export function createReplyLatency(max = 20_000): ReplyLatency {
  const since = new Map<string, number>();
  return {
    replied(replyId, sinceMs) {
      since.set(replyId, sinceMs);
      if (since.size > max) since.delete(since.keys().next().value!);
    },
    delivered(messageId, nowMs) {
      const at = since.get(messageId);
      if (at === undefined) return null;
      since.delete(messageId);
      return Math.max(0, (nowMs - at) / 1000);
    },
  };
}
