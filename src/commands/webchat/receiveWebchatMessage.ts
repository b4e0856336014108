import { randomUUID } from 'node:crypto';
import { conversationStream, type VerifiedVisitor } from '../../domain/conversations/decider.js';
import type { WebchatIntegration } from '../integrations/streamReads.js';
import { conversationIdFor, sessionIdFor, withDeterministicIds } from '../conversations/conversationIds.js';
import { defaultStage } from '../conversations/defaultStage.js';
import { handleCommand } from '../handleCommand.js';
import { deterministicId } from '../hashing.js';
import type { CommandDeps } from '../deps.js';

export type { WebchatIntegration };

export interface WebchatMessageInput {
  visitorId: string;
  clientMessageId: string;
  text: string;
  /** The visitor's name as the page gave it: names the customer in the dashboard. */
  name?: string;
  /** The email the visitor gave in the pre-chat form (unverified): kept on the customer's profile. */
  email?: string;
  /** The visitor's identity as the company's site signed it (checked at hello); absent: anonymous. */
  verifiedVisitor?: VerifiedVisitor;
}

export interface WebchatMessageOutcome {
  conversationId: string;
  /** Deterministic from (integration, visitor, clientMessageId): a resend gets the same id. */
  messageId: string;
  /** True when this clientMessageId was stored before: nothing was appended. */
  duplicate: boolean;
  position: bigint | null;
}

/** The message id of a visitor's message, the same for every resend of one clientMessageId. */
export const webchatMessageId = (integrationId: number, visitorId: string, clientMessageId: string) =>
  deterministicId(`webchat-message:${integrationId}:${visitorId}:${clientMessageId}`);

/**
 * A web chat visitor's message: the same ReceiveCustomerMessage as a platform webhook (it starts the
 * conversation and opens an AI session when needed), with the visitor as the customer and the widget's
 * clientMessageId as the dedupe key, kept forever. Event ids derive from the message id, so a resend racing
 * the original appends nothing. Resolves only once the events are stored (the ack follows).
 */
export async function receiveWebchatMessage(deps: CommandDeps, integration: WebchatIntegration, input: WebchatMessageInput): Promise<WebchatMessageOutcome> {
  const now = deps.clock.now().toISOString();
  const conversationId = conversationIdFor(integration.integrationId, input.visitorId);
  const messageId = webchatMessageId(integration.integrationId, input.visitorId, input.clientMessageId);
  const result = await handleCommand(
    deps.eventStore,
    conversationStream(conversationId),
    withDeterministicIds(messageId),
    {
      type: 'ReceiveCustomerMessage',
      start: {
        conversationId,
        companyId: integration.companyId,
        integrationId: integration.integrationId,
        connectorType: 'webchat',
        customer: { clientId: input.visitorId, channelId: null, transport: 'webchat', ...(input.name ? { name: input.name } : {}) },
        defaultStageId: await defaultStage(deps, integration.companyId, conversationId),
      },
      sessionId: sessionIdFor(messageId),
      // Like a platform's client object: a name given later (a visitor who signed in) renames the customer.
      ...(input.name || input.email ? { client: { ...(input.name ? { name: input.name } : {}), ...(input.email ? { email: input.email } : {}) } } : {}),
      clientMessageId: input.clientMessageId,
      ...(input.verifiedVisitor ? { verifiedVisitor: input.verifiedVisitor } : {}),
      messageId,
      dedupeKey: `webchat:${input.clientMessageId}`,
      dedupeUntil: null,
      text: input.text,
      platform: {},
      now,
    },
    { metadata: { companyId: integration.companyId, actor: 'visitor', correlationId: randomUUID() }, maxRetries: 10 },
  );
  return { conversationId, messageId, duplicate: result.events.length === 0, position: result.position };
}
