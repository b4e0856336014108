import { CSAT_QUESTION } from '../../domain/conversations/csat.js';
import { conversationDecider, conversationStream } from '../../domain/conversations/decider.js';
import { DEFAULT_CSAT_SETTINGS } from '../../domain/integrations/events.js';
import type { CommandDeps } from '../deps.js';
import { handleCommand, loadState } from '../handleCommand.js';
import { deterministicId } from '../hashing.js';
import { loadIntegration } from '../integrations/streamReads.js';

/**
 * After a session closed: its survey, when the conversation's integration asks for one. The ids come from the
 * session, so a repeated call (the reactor is at least once) asks nothing twice. Costs the conversation's and
 * the integration's cached states, never a stream read.
 */
export async function requestCsat(deps: CommandDeps, input: { conversationId: string; sessionId: string; correlationId?: string }) {
  const stream = conversationStream(input.conversationId);
  const { state } = await loadState(deps.eventStore, stream, conversationDecider);
  if (!state.exists || state.integrationId === null) return null;
  const integration = await loadIntegration(deps.eventStore, state.integrationId);
  const settings = integration?.csat ?? DEFAULT_CSAT_SETTINGS;
  if (!integration || !integration.active || !settings.enabled) return null;
  const via = state.connectorType === 'webchat' ? 'webchat' : 'platform';
  return handleCommand(
    deps.eventStore,
    stream,
    conversationDecider,
    {
      type: 'RequestCsat',
      surveyId: deterministicId(`csat:${input.sessionId}`),
      sessionId: input.sessionId,
      via,
      messageId: deterministicId(`csat-question:${input.sessionId}`),
      ...(via === 'platform' ? { question: CSAT_QUESTION } : {}),
      skipWithoutCustomerReply: settings.skipWithoutCustomerReply,
      now: deps.clock.now().toISOString(),
    },
    { metadata: { companyId: state.companyId ?? undefined, actor: 'csat', ...(input.correlationId ? { correlationId: input.correlationId } : {}) } },
  );
}

/** A web-chat visitor's answer (the visitor's own conversation: the socket proved who they are). */
export async function submitWebchatCsat(deps: CommandDeps, input: { conversationId: string; companyId: string; visitorId: string; surveyId: string; rating: number; comment: string | null }) {
  return handleCommand(
    deps.eventStore,
    conversationStream(input.conversationId),
    conversationDecider,
    { type: 'SubmitCsat', surveyId: input.surveyId, rating: input.rating, comment: input.comment, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `visitor:${input.visitorId}` } },
  );
}
