// One readable sentence per stored conversation event, for the event history. The raw JSON stays one click away.
import type { ConversationEvent } from '../api/types.js';
import { describePausedReason, formatDateTime, formatNumber, humanize } from './format.js';

const QUOTE_MAX = 120;

/** “text” in typographic quotes, cut at QUOTE_MAX characters. Text quoted already (a summary quoting the customer) is not quoted twice. */
export function quote(text: unknown): string {
  let value = String(text ?? '').replace(/\s+/g, ' ').trim();
  if (value.length >= 2 && value.startsWith('“') && value.endsWith('”')) value = value.slice(1, -1);
  return `“${value.length > QUOTE_MAX ? `${value.slice(0, QUOTE_MAX - 1)}…` : value}”`;
}

/** " by Nadia" for a teammate's act (`by` is `user:<id>`); nothing for the system's own. */
const byWhom = (by: unknown, teammate: Names['teammate']) => (typeof by === 'string' && by.startsWith('user:') ? ` by ${teammate(by.slice('user:'.length))}` : '');

/** " from “Shipping” and “Returns”" — the knowledge-base documents an answer drew from (none recorded: nothing). */
function fromSources(provenance: unknown): string {
  const sources = (provenance as { sources?: unknown } | null | undefined)?.sources;
  if (!Array.isArray(sources)) return '';
  if (sources.length === 0) return ' without a knowledge-base source';
  const titles = [...new Set(sources.map((s) => String((s as { title?: unknown }).title ?? '').trim() || 'an untitled document'))];
  const shown = titles.slice(0, 3).map((t) => `“${t.length > 60 ? `${t.slice(0, 59)}…` : t}”`);
  const more = titles.length > shown.length ? ` and ${formatNumber(titles.length - shown.length)} more` : '';
  return ` from ${shown.length > 1 && !more ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : shown.join(', ')}${more}`;
}
/** " (the model's reason: “…”)" when the model said why it handed off (untrusted text: quoted and cut, never markup). */
const modelReason = (reason: unknown) => (typeof reason === 'string' && reason.trim() ? ` (the model's reason: ${quote(reason)})` : '');
/** A handoff for want of a confident answer says so; the model's own handoff gives its reason. */
const handoffWhy = (d: Record<string, unknown>) =>
  d.handoffCause === 'experiment_holdout'
    ? ' (the conversation is in an experiment’s holdout: people answer it)'
    : d.handoffCause === 'no_confident_answer'
    ? ` (no confident answer${typeof d.handoffReason === 'string' && d.handoffReason.trim() && d.handoffReason !== 'no confident answer' ? `: ${quote(d.handoffReason)}` : ''})`
    : modelReason(d.handoffReason);

const CLOSE_REASONS: Record<string, string> = {
  close_dialog: 'the dialog was closed on the platform',
  close_request: 'the platform asked to close the dialog',
  api: 'closed by an operator',
};

type Data = Record<string, unknown>;
interface Names {
  stageName: (id: string) => string | undefined;
  teammate: (id: unknown) => string;
  /** The support team's name (absent where the page has not loaded teams). */
  teamName?: (id: string) => string | undefined;
}

/**
 * The sentence of each event type a conversation stream holds. test/unit/domain/catalog.test.ts checks that these
 * are exactly those of the server's domain, so a new event cannot ship without its sentence.
 */
const SENTENCES: Record<string, (d: Data, names: Names) => string> = {
  ConversationStarted: (d) => {
    const customer = (d.customer ?? {}) as { clientId?: unknown; transport?: unknown };
    const via = d.connectorType === 'webchat' ? 'the web chat' : 'the messaging platform';
    return `Conversation started on ${via} with client ${String(customer.clientId ?? '?')}${customer.transport ? ` (${String(customer.transport)})` : ''}.`;
  },
  MessageReceived: (d) => `Customer message received: ${quote(d.text)}`,
  OperatorMessageRecorded: (d) => `Operator wrote on the platform: ${quote(d.text)}`,
  OperatorMessageSent: (d) => `Operator message queued for the customer: ${quote(d.text)}`,
  AgentReplied: (d) => d.aiFailed ? `The AI could not answer: the customer got the agent's handoff message: ${quote(d.text)}` : `AI agent replied${d.handoff ? ` and handed over to a human${handoffWhy(d)}` : ''}${fromSources(d.provenance)}: ${quote(d.text)}`,
  MessageSendAttempted: (d) => `Sending a message to the customer (attempt ${formatNumber(Number(d.attempt) || 1)}).`,
  MessageDelivered: (d) => d.deliveredTo === 'sandbox' ? 'Message delivered to the sandbox (no platform API URL: sent nowhere).' : 'Message delivered to the customer.',
  MessageDeliveryFailed: (d) => `Reply not delivered: ${String(d.reason ?? 'unknown reason')} (after ${formatNumber(Number(d.attempts) || 1)} attempt${Number(d.attempts) === 1 ? '' : 's'}).`,
  MessagesUnanswered: (d) => `Customer message not answered: ${String(d.reason ?? 'unknown reason')}`,
  AiSessionOpened: () => 'AI session started: the AI agent answers this customer.',
  AiSessionPaused: (d, { teammate }) =>
    d.reason === 'api' && typeof d.by === 'string' && d.by.startsWith('user:')
      ? `Paused${byWhom(d.by, teammate)}.`
      : `${describePausedReason(typeof d.reason === 'string' ? d.reason : null)}${d.reason === 'api' ? '' : byWhom(d.by, teammate)}.`,
  AiSessionResumed: (d, { teammate }) => (d.by === 'hand-back-timeout' ? 'AI resumed: the customer wrote after the hand-back timeout had passed.' : `AI resumed${byWhom(d.by, teammate)}.`),
  AiSessionClosed: (d, { teammate }) => {
    if (typeof d.resolution === 'string' && d.resolution) return `Resolved${byWhom(d.by, teammate)}: ${quote(d.resolution)}`;
    if (d.reason === 'api' && byWhom(d.by, teammate)) return `AI session closed${byWhom(d.by, teammate)}.`;
    return `AI session closed: ${CLOSE_REASONS[String(d.reason)] ?? humanize(String(d.reason ?? '')).toLowerCase()}.`;
  },
  ConversationReopened: (d, { teammate }) => `Conversation reopened${byWhom(d.by, teammate)}: a new AI session started.`,
  DialogTransferred: () => 'Dialog transferred to a human operator on the platform.',
  StageChanged: (d, { stageName, teammate }) => {
    const name = typeof d.stageId === 'string' ? stageName(d.stageId) : undefined;
    return `Moved to the stage ${name ? quote(name) : 'with id ' + String(d.stageId)}${byWhom(d.by, teammate)}.`;
  },
  HumanRequested: () => 'The customer asked for a human: waiting in “Needs human”.',
  ConversationAssigned: (d, { teammate }) => (d.reason === 'auto' ? `Assigned to ${teammate(d.assigneeId)} automatically (round-robin).` : d.by === `user:${String(d.assigneeId)}` ? `Taken by ${teammate(d.assigneeId)}.` : `Assigned to ${teammate(d.assigneeId)}${byWhom(d.by, teammate)}.`),
  ConversationUnassigned: (d, { teammate }) => `Unassigned from ${teammate(d.previousAssigneeId)}${byWhom(d.by, teammate)}.`,
  ConversationRoutedToTeam: (d, { teammate, teamName }) => {
    const name = typeof d.teamId === 'string' ? teamName?.(d.teamId) : undefined;
    if (d.teamId === null) return `No longer for a team${byWhom(d.by, teammate)}: the whole company takes it.`;
    const team = name ? `the team ${quote(name)}` : 'a team';
    return d.by === 'routing' ? `Routed to ${team} by the integration's routing rule.` : `Moved to ${team}${byWhom(d.by, teammate)}.`;
  },
  NoteAdded: (d, { teammate }) => {
    const mentions = Array.isArray(d.mentions) ? d.mentions.map((m) => teammate(m)) : [];
    return `Internal note by ${teammate(d.authorId)}${mentions.length ? `, mentioning ${mentions.join(', ')}` : ''}: ${quote(String(d.text))}`;
  },
  ConversationPrioritized: (d, { teammate }) => `Priority set to ${String(d.priority)} (was ${String(d.previousPriority)})${byWhom(d.by, teammate)}.`,
  ConversationSnoozed: (d, { teammate }) => `Snoozed until ${formatDateTime(String(d.until))}${byWhom(d.by, teammate)}: out of the open queues until then.`,
  ConversationWoke: (d, { teammate }) =>
    d.reason === 'customer_message' ? 'Back from the snooze: the customer wrote.' : d.reason === 'time' ? 'Back from the snooze: its time came.' : `Snooze ended${byWhom(d.by, teammate)}.`,
  CsatRequested: (d) => `Satisfaction survey sent ${d.via === 'webchat' ? 'in the web chat' : 'as a message'}.`,
  CsatSubmitted: (d) => `The customer rated the conversation ${formatNumber(Number(d.rating))}/5${typeof d.comment === 'string' && d.comment ? `: ${quote(d.comment)}` : '.'}`,
  ExperimentArmAssigned: (d) =>
    d.arm === 'holdout' ? 'Joined the agent’s experiment in its holdout: people answer this conversation.' : `Joined the agent’s experiment in arm ${String(d.arm).toUpperCase()} (version ${formatNumber(Number(d.version))}).`,
  HandoffSummarized: (d) => `Handoff summary ${d.writtenBy === 'llm' ? 'written by the AI model' : 'taken from the messages'}: the customer wants ${quote(d.wants)}`,
  CustomerIdentityVerified: (d) => `The visitor's identity was verified by the company's site (user ${quote(d.userId)}).`,
  ActionCallRequested: (d) => `The AI asked to use the action ${quote(d.actionName)}${d.mode === 'auto' ? '' : d.mode === 'confirm' ? ' (the customer confirms first)' : ' (a teammate approves first)'}.`,
  ActionCallRejected: (d) => `The action call was refused before it was made: ${quote(d.error)}.`,
  ActionConfirmationAsked: (d) => `The AI asked the customer to confirm: ${quote(d.prompt)}`,
  ActionCallConfirmed: () => 'The customer confirmed the action.',
  ActionCallDeclined: (d) => (d.why === 'no' ? 'The customer said no: the action was not made.' : d.why === 'silence' ? 'The customer did not confirm in time: the action was not made.' : 'The customer wrote something else: the action was not made.'),
  ActionApprovalRequested: () => 'Waiting for a teammate to approve the action.',
  ActionCallApproved: (d, { teammate }) => `${teammate(d.by)} approved the action.`,
  ActionCallRefused: (d, { teammate }) => `${teammate(d.by)} refused the action${typeof d.reason === 'string' && d.reason ? `: ${quote(d.reason)}` : '.'}`,
  ActionApprovalExpired: () => 'Nobody approved the action in time: handed to people.',
  ActionCallStarted: (d) => `Calling the action${d.mocked ? ' (mocked: its sample response)' : ''}.`,
  ActionCallSucceeded: (d) => `The action answered${typeof d.status === 'number' ? ` (${d.status})` : ''} in ${formatNumber(Number(d.durationMs))} ms${d.mocked ? ', mocked' : ''}.`,
  ActionCallFailed: (d) => `The action failed${typeof d.status === 'number' ? ` (${d.status})` : ''}: ${quote(d.error)}${d.outcomeUnknown ? ' It may have been made; it is not retried.' : ''}`,
  WebhookDeliveryLogged: (d) => `Webhook delivery from the messaging platform logged (${d.kind === 'status_event' ? 'a status event' : 'a message'}).`,
};

/** The event types this dashboard has a sentence for. */
export const SENTENCE_EVENT_TYPES: readonly string[] = Object.keys(SENTENCES);

/**
 * The sentence for one event. `stageName` resolves a stage id to its name for StageChanged. An event type this
 * dashboard does not know yet still reads as words ("Something happened"), never as a crash.
 */
export function describeConversationEvent(
  event: Pick<ConversationEvent, 'type' | 'data'>,
  stageName: (id: string) => string | undefined = () => undefined,
  userName: (id: string) => string | undefined = () => undefined,
  teamName: (id: string) => string | undefined = () => undefined,
): string {
  const d = (event.data ?? {}) as Data;
  const teammate = (id: unknown) => (typeof id === 'string' ? (userName(id) ?? `a teammate (${id.slice(0, 8)})`) : 'a teammate');
  const sentence = Object.hasOwn(SENTENCES, event.type) ? SENTENCES[event.type] : undefined;
  if (sentence) return sentence(d, { stageName, teammate, teamName });
  return `${humanize(event.type.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase())}.`;
}
