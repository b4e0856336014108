import type { ConversationStreamEventType } from '../domain/conversations/events.js';
import type { RecordedEvent } from '../ports/eventStore.js';

type Data = Record<string, unknown>;

const quote = (t: unknown) => JSON.stringify(String(t ?? '').length > 80 ? `${String(t).slice(0, 77)}...` : String(t ?? ''));

/**
 * One line per conversation event type, keyed by the domain's own list of them (conversationEvents): a new
 * conversation event does not compile until it has its line here.
 */
const lines: { [T in ConversationStreamEventType]: (d: Data) => string } = {
  ConversationStarted: (d) => `conversation started on integration ${d.integrationId} (${d.connectorType}) with customer ${JSON.stringify((d.customer as { clientId: unknown }).clientId)}`,
  MessageReceived: (d) => `customer: ${quote(d.text)}`,
  OperatorMessageRecorded: (d) => `operator (on the platform): ${quote(d.text)}`,
  OperatorMessageSent: (d) => `operator (${d.by}): ${quote(d.text)}`,
  AgentReplied: (d) => d.aiFailed ? `agent's handoff message, sent because the model failed: ${quote(d.text)}` : `agent (${d.model}, ${d.inputTokens}+${d.outputTokens} tokens${d.handoff ? (d.handoffCause === 'no_confident_answer' ? ', handoff: no confident answer' : d.handoffCause === 'experiment_holdout' ? ', handoff: experiment holdout' : ', handoff') : ''}): ${quote(d.text)}`,
  MessageSendAttempted: (d) => `sending message ${d.messageId} (attempt ${d.attempt}, idempotency key ${d.idempotencyKey})`,
  MessageDelivered: (d) => {
    if (d.deliveredTo === 'sandbox') return `message ${d.messageId} delivered to the sandbox (the integration has no platform API URL: sent nowhere)`;
    return `message ${d.messageId} delivered${d.platformMessageId !== null ? ` (platform id ${JSON.stringify(d.platformMessageId)})` : ''}`;
  },
  MessageDeliveryFailed: (d) => `message ${d.messageId} NOT delivered after ${d.attempts} attempts: ${d.reason}`,
  MessagesUnanswered: (d) => `not answered: ${d.reason}`,
  AiSessionOpened: (d) => `AI session ${d.sessionId} opened (active)`,
  AiSessionPaused: (d) => `AI session paused (${d.reason}${d.by ? ` by ${d.by}` : ''})`,
  AiSessionResumed: (d) => `AI session resumed${d.by ? ` by ${d.by}` : ''}`,
  AiSessionClosed: (d) => `AI session closed (${d.reason}, ${d.action})${d.resolution ? `, resolved: ${quote(d.resolution)}` : ''}`,
  ConversationReopened: (d) => `conversation reopened${d.by ? ` by ${d.by}` : ''}: AI session ${d.sessionId} opened (active)`,
  DialogTransferred: (d) => `dialog transferred (${d.action}): dialog ${JSON.stringify(d.dialogId)}, request ${JSON.stringify(d.requestId)}`,
  StageChanged: (d) => `moved to pipeline stage ${d.stageId}`,
  HumanRequested: () => 'the customer asked for a human: waiting in "Needs human"',
  ConversationAssigned: (d) => `assigned to user ${d.assigneeId}${d.previousAssigneeId ? ` (was user ${d.previousAssigneeId})` : ''} by ${d.by}${d.reason === 'auto' ? ' (automatic assignment)' : ''}`,
  ConversationUnassigned: (d) => `unassigned (was user ${d.previousAssigneeId}) by ${d.by}`,
  ConversationRoutedToTeam: (d) => `team ${d.teamId ?? 'none'} (was ${d.previousTeamId ?? 'none'}) by ${d.by}`,
  NoteAdded: (d) => `internal note by user ${d.authorId}${Array.isArray(d.mentions) && d.mentions.length ? ` mentioning ${d.mentions.map((m) => `user ${String(m)}`).join(', ')}` : ''}: ${quote(d.text)}`,
  ConversationPrioritized: (d) => `priority ${d.priority} (was ${d.previousPriority}) by ${d.by}`,
  ConversationSnoozed: (d) => `snoozed until ${d.until} by ${d.by}`,
  ConversationWoke: (d) => `woke from the snooze until ${d.snoozedUntil} (${d.reason}${d.by ? ` by ${d.by}` : ''})`,
  CsatRequested: (d) => `satisfaction survey sent (${d.via})`,
  CsatSubmitted: (d) => `customer rated ${d.rating}/5 (${d.via})${d.comment ? `: ${JSON.stringify(d.comment)}` : ''}`,
  ExperimentArmAssigned: (d) => (d.arm === 'holdout' ? `joined experiment ${d.experimentId} in its holdout: handed to people` : `joined experiment ${d.experimentId} in arm ${String(d.arm).toUpperCase()} (version ${d.version})`),
  HandoffSummarized: (d) => `handoff summary (${d.writtenBy === 'llm' ? `written by ${d.model}, ${d.inputTokens}+${d.outputTokens} tokens` : 'extracted from the messages'}): wants ${quote(d.wants)}`,
  CustomerIdentityVerified: (d) => `visitor identity verified: user ${JSON.stringify(d.userId)}${d.email ? ` (${d.email})` : ''}`,
  ActionCallRequested: (d) => `agent asked to call action ${d.actionName} (${d.mode}) with ${JSON.stringify(d.arguments)}`,
  ActionCallRejected: (d) => `action call refused before it was made: ${d.error}`,
  ActionConfirmationAsked: (d) => `asked the customer to confirm: ${quote(d.prompt)}`,
  ActionCallConfirmed: () => 'the customer confirmed the action',
  ActionCallDeclined: (d) => `the action was not confirmed (${d.why === 'no' ? 'the customer said no' : d.why === 'silence' ? 'no answer in time' : 'the customer wrote something else'})`,
  ActionApprovalRequested: (d) => `waiting for a teammate to approve the action (until ${d.expiresAt})`,
  ActionCallApproved: (d) => `action approved by ${d.by}`,
  ActionCallRefused: (d) => `action refused by ${d.by}${d.reason ? `: ${quote(d.reason)}` : ''}`,
  ActionApprovalExpired: () => 'nobody approved the action in time: handed to people',
  ActionCallStarted: (d) => `calling the action${d.mocked ? ' (mocked: sample response)' : ''} (idempotency key ${d.idempotencyKey})`,
  ActionCallSucceeded: (d) => `action answered${d.status !== null ? ` ${d.status}` : ''} in ${d.durationMs} ms${d.mocked ? ' (mocked)' : ''}`,
  ActionCallFailed: (d) => `action failed${d.status !== null ? ` (${d.status})` : ''} after ${d.durationMs} ms: ${d.error}${d.outcomeUnknown ? ' (outcome unknown: not retried)' : ''}`,
  WebhookDeliveryLogged: (d) => `webhook delivery ${d.logId} logged: ${d.httpStatus} ${d.outcome} (${d.kind})`,
};

const isConversationEvent = (type: string): type is ConversationStreamEventType => Object.hasOwn(lines, type);

/** One human-readable line per conversation event, for the replay timeline (other events: their data as JSON). */
export function describeEvent(e: RecordedEvent): string {
  const d = e.data as Data;
  return isConversationEvent(e.type) ? lines[e.type](d) : JSON.stringify(d);
}
