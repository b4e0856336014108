import { conversationDecider, conversationStream } from '../domain/conversations/decider.js';
import type { ConversationEvent } from '../domain/conversations/events.js';
import { integrationDecider, integrationStream } from '../domain/integrations/integration.js';
import { handleCommand, loadState, toDomainEvent } from '../commands/handleCommand.js';
import type { CommandDeps, SecretBox } from '../commands/ports.js';
import type { Bus, BusSubscription } from '../ports/bus.js';
import { PlatformError, type PlatformClient } from '../ports/platform.js';
import { SEND_MESSAGE, sendMessageJob, webchatSubject, type SendMessageJob } from './jobs.js';

export interface SendWorkerDeps extends CommandDeps {
  bus: Bus;
  platform: PlatformClient;
  secretBox: SecretBox;
  maxDeliver?: number;
  backoffMs?: number[];
  concurrency?: number;
}

export interface WebchatPush {
  type: 'message';
  id: string;
  author: 'agent' | 'operator';
  text: string;
  createdAt: string;
}

/**
 * Delivers agent replies and operator messages through their channel, then records the outcome.
 * A failed send is redelivered with backoff; the last attempt records the failure with its reason.
 */
export async function startSendWorker(deps: SendWorkerDeps): Promise<BusSubscription> {
  const maxDeliver = deps.maxDeliver ?? 5;
  return deps.bus.subscribe<SendMessageJob>(
    SEND_MESSAGE,
    { durable: 'outbound-sender', concurrency: deps.concurrency ?? 8, maxDeliver, backoffMs: deps.backoffMs ?? [1000, 5000, 15000, 30000] },
    async (message) => {
      const job = sendMessageJob.parse(message.data);
      await sendMessage(deps, job, { attempt: message.deliveryCount, lastAttempt: message.deliveryCount >= maxDeliver });
    },
  );
}

export async function sendMessage(deps: SendWorkerDeps, job: SendMessageJob, delivery: { attempt: number; lastAttempt: boolean }): Promise<void> {
  const stream = conversationStream(job.conversationId);
  const events = (await deps.eventStore.readStream(stream)).map((e) => toDomainEvent<ConversationEvent>(e));
  const state = events.reduce(conversationDecider.evolve, conversationDecider.initialState);
  if (state.outbound[job.messageId] !== 'pending') return; // sent or failed already: a redelivery
  const outgoing = events.find((e) => (e.type === 'AgentReplied' || e.type === 'OperatorMessageSent') && e.data.messageId === job.messageId);
  if (!outgoing || (outgoing.type !== 'AgentReplied' && outgoing.type !== 'OperatorMessageSent')) return;
  const metadata = { companyId: state.companyId ?? undefined, actor: 'outbound-sender' };
  const record = (c: Parameters<typeof conversationDecider.decide>[0]) => handleCommand(deps.eventStore, stream, conversationDecider, c, { metadata });
  const fail = (reason: string) => record({ type: 'RecordDeliveryFailure', messageId: job.messageId, reason, attempts: delivery.attempt, now: deps.clock.now().toISOString() });

  const { state: integration } = await loadState(deps.eventStore, integrationStream(state.integrationId!), integrationDecider);
  if (integration.status !== 'active_record') {
    deps.logger.warn({ ...job }, 'message not sent: its integration was deleted');
    await fail('the integration was deleted');
    return;
  }

  if (integration.connectorType === 'webchat') {
    const push: WebchatPush = {
      type: 'message',
      id: job.messageId,
      author: outgoing.type === 'AgentReplied' ? 'agent' : 'operator',
      text: outgoing.data.text,
      createdAt: outgoing.data.at,
    };
    // Whichever instance holds the visitor's socket pushes it; a visitor offline gets it on resume.
    await deps.bus.broadcast(webchatSubject(job.conversationId), push);
    await record({ type: 'RecordDelivery', messageId: job.messageId, platformMessageId: null, now: deps.clock.now().toISOString() });
    return;
  }

  if (!integration.apiUrl || !integration.apiToken) {
    await fail('the integration has no platform API URL or API token');
    return;
  }
  const customer = state.customer!;
  try {
    const sent = await deps.platform.sendMessage({
      apiUrl: integration.apiUrl,
      apiToken: deps.secretBox.open(integration.apiToken),
      clientId: customer.clientId,
      channelId: customer.channelId ?? '',
      transport: customer.transport,
      text: outgoing.data.text,
    });
    await record({ type: 'RecordDelivery', messageId: job.messageId, platformMessageId: sent.messageId, now: deps.clock.now().toISOString() });
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    // A blocked address will not unblock itself: no point retrying.
    if (delivery.lastAttempt || err.kind === 'blocked') {
      deps.logger.warn({ ...job, kind: err.kind, attempt: delivery.attempt }, 'message delivery failed for good');
      await fail(err.message);
      return;
    }
    deps.logger.info({ ...job, kind: err.kind, attempt: delivery.attempt }, 'message delivery failed; will retry');
    throw err;
  }
}
