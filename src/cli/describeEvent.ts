import type { RecordedEvent } from '../ports/eventStore.js';

/** One human-readable line per conversation event, for the replay timeline. */
export function describeEvent(e: RecordedEvent): string {
  const d = e.data as Record<string, unknown>;
  const quote = (t: unknown) => JSON.stringify(String(t ?? '').length > 80 ? `${String(t).slice(0, 77)}...` : String(t ?? ''));
  switch (e.type) {
    case 'ConversationStarted':
      return `conversation started on integration ${d.integrationId} (${d.connectorType}) with customer ${JSON.stringify((d.customer as { clientId: unknown }).clientId)}`;
    case 'MessageReceived':
      return `customer: ${quote(d.text)}`;
    case 'OperatorMessageRecorded':
      return `operator (on the platform): ${quote(d.text)}`;
    case 'OperatorMessageSent':
      return `operator (${d.by}): ${quote(d.text)}`;
    case 'AgentReplied':
      return `agent (${d.model}, ${d.inputTokens}+${d.outputTokens} tokens${d.handoff ? ', handoff' : ''}): ${quote(d.text)}`;
    case 'MessageSendAttempted':
      return `sending message ${d.messageId} (attempt ${d.attempt}, idempotency key ${d.idempotencyKey})`;
    case 'MessageDelivered':
      if (d.deliveredTo === 'sandbox') return `message ${d.messageId} delivered to the sandbox (the integration has no platform API URL: sent nowhere)`;
      return `message ${d.messageId} delivered${d.platformMessageId !== null ? ` (platform id ${JSON.stringify(d.platformMessageId)})` : ''}`;
    case 'MessageDeliveryFailed':
      return `message ${d.messageId} NOT delivered after ${d.attempts} attempts: ${d.reason}`;
    case 'MessagesUnanswered':
      return `not answered: ${d.reason}`;
    case 'AiSessionOpened':
      return `AI session ${d.sessionId} opened (active)`;
    case 'AiSessionPaused':
      return `AI session paused (${d.reason}${d.by ? ` by ${d.by}` : ''})`;
    case 'AiSessionResumed':
      return `AI session resumed${d.by ? ` by ${d.by}` : ''}`;
    case 'AiSessionClosed':
      return `AI session closed (${d.reason}, ${d.action})${d.resolution ? `, resolved: ${quote(d.resolution)}` : ''}`;
    case 'ConversationReopened':
      return `conversation reopened${d.by ? ` by ${d.by}` : ''}: AI session ${d.sessionId} opened (active)`;
    case 'DialogTransferred':
      return `dialog transferred (${d.action}): dialog ${JSON.stringify(d.dialogId)}, request ${JSON.stringify(d.requestId)}`;
    case 'StageChanged':
      return `moved to pipeline stage ${d.stageId}`;
    case 'HumanRequested':
      return 'the customer asked for a human: waiting in "Needs human"';
    case 'ConversationAssigned':
      return `assigned to user ${d.assigneeId}${d.previousAssigneeId ? ` (was user ${d.previousAssigneeId})` : ''} by ${d.by}`;
    case 'ConversationUnassigned':
      return `unassigned (was user ${d.previousAssigneeId}) by ${d.by}`;
    default:
      return JSON.stringify(d);
  }
}
