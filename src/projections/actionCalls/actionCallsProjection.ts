import { emptyHistogram, record, type Histogram } from '../analytics/histogram.js';
import { localDate } from '../../domain/localDay.js';
import type { ActionMode } from '../../domain/actions/definition.js';
import { companyTimezoneEvents } from '../../domain/company/timezone/events.js';
import { DEFAULT_TIMEZONE } from '../../domain/company/timezone/state.js';
import { actionCallEvents, type ActionCallEventType } from '../../domain/conversations/actionCalls.js';
import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { playgroundActionCallEvents } from '../../domain/playground/actionCalls/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection, type ProjectionContext, type RecordedEventOf } from '../projection.js';
import { listIndexes } from '../listIndexes.js';

/** One document per action call (id: the callId), the company's action log. */
export const ACTION_CALLS = 'action_calls';
/** Per company, action and local day: the analytics of its calls. */
export const ACTION_CALL_DAYS = 'action_call_days';
/** What the projection needs to place a call in O(1): each conversation's company, each company's timezone. */
export const ACTION_CALL_CONVERSATIONS = 'action_call_conversations';
export const ACTION_CALL_COMPANIES = 'action_call_companies';

/**
 * The most of a call's mapped response the log keeps. The event holds what the model read (up to
 * ACTION_CALL_LIMITS.response); the log is for people scanning calls, and never holds more than this.
 */
export const LOGGED_RESPONSE_CHARS = 2000;

export const ACTION_CALL_STATUSES = [
  'requested',
  'waiting_confirmation',
  'waiting_approval',
  'confirmed',
  'approved',
  'running',
  'succeeded',
  'failed',
  'rejected',
  'declined',
  'refused',
  'expired',
] as const;
export type ActionCallStatus = (typeof ACTION_CALL_STATUSES)[number];

export interface ActionCallDoc extends Doc {
  companyId: string;
  /** The customer conversation it answered; null for a live playground call. */
  conversationId: string | null;
  /** A live playground call: the session it was made from (no conversation); absent on a conversation's call. */
  playgroundSessionId?: string | null;
  callId: string;
  replyId: string;
  actionId: string;
  actionName: string;
  mode: ActionMode;
  /** As recorded: identity values replaced by their source, long strings cut. */
  arguments: Record<string, string | number | boolean>;
  agentVersion: number | null;
  status: ActionCallStatus;
  /** The customer's confirmation question (confirm) and until when it waits (confirm and approve). */
  confirmationPrompt: string | null;
  expiresAt: string | null;
  /** Why the customer did not confirm: no, another reply, silence. */
  declinedWhy: 'no' | 'other_reply' | 'silence' | null;
  /** The teammate who approved or refused (a user id or an actor such as `api-token:<id>`), and the refusal's reason. */
  decidedBy: string | null;
  decidedAt: string | null;
  reason: string | null;
  mocked: boolean | null;
  httpStatus: number | null;
  durationMs: number | null;
  /** The mapped response the model read, cut to LOGGED_RESPONSE_CHARS (responseTruncated says when it was). */
  response: string | null;
  responseTruncated: boolean;
  /** Why it was rejected before the call, or how the call failed, in plain words. */
  error: string | null;
  /** A failed call that may have reached the endpoint. */
  outcomeUnknown: boolean;
  requestedAt: string;
  updatedAt: string;
  /** When it reached a final status (succeeded, failed, rejected, declined, refused, expired). */
  finishedAt: string | null;
}

/** What one action's calls came to on one local day; terminal outcomes count on the day they happened. */
export const ACTION_DAY_COUNTERS = ['calls', 'succeeded', 'failed', 'rejected', 'declined', 'approved', 'refused', 'expired', 'playground'] as const;
export type ActionDayCounter = (typeof ACTION_DAY_COUNTERS)[number];

export interface ActionCallDayDoc extends Doc, Record<ActionDayCounter, number> {
  companyId: string;
  actionId: string;
  /** The name its latest call of the day gave it (actions may be renamed or deleted since). */
  actionName: string;
  month: string;
  date: string;
  /** Durations of the calls made (succeeded or failed), in the analytics histogram (±12 %). */
  duration: Histogram;
}

interface ConversationDoc extends Doc {
  companyId: string;
}

const CONVERSATION_PREFIX = 'conversation-';
const COMPANY_PREFIX = 'company-';
const dayId = (companyId: string, actionId: string, date: string) => `${companyId}|${actionId}|${date}`;

const schemas = { ...conversationEvents, ...companyTimezoneEvents, ...playgroundActionCallEvents };
/** The call's life (src/domain/conversations/actionCalls.ts): the one list of its event types. */
const CALL_TYPES = Object.keys(actionCallEvents) as ActionCallEventType[];
type CallEvent = RecordedEventOf<typeof schemas, ActionCallEventType>;
type Later = Exclude<CallEvent, { type: 'ActionCallRequested' }>;

const cut = (text: string) => (text.length > LOGGED_RESPONSE_CHARS ? text.slice(0, LOGGED_RESPONSE_CHARS) : text);

/** How an event after the request changes the call, and what it counts for the day (null: nothing). */
function change(event: Later, doc: ActionCallDoc): { doc: ActionCallDoc; counter: ActionDayCounter | null; durationMs?: number } {
  const at = event.data.at;
  const next = { ...doc, updatedAt: at };
  const done = { finishedAt: at };
  switch (event.type) {
    case 'ActionCallRejected':
      return { doc: { ...next, ...done, status: 'rejected', error: event.data.error }, counter: 'rejected' };
    case 'ActionConfirmationAsked':
      return { doc: { ...next, status: 'waiting_confirmation', confirmationPrompt: event.data.prompt, expiresAt: event.data.expiresAt }, counter: null };
    case 'ActionCallConfirmed':
      return { doc: { ...next, status: 'confirmed' }, counter: null };
    case 'ActionCallDeclined':
      return { doc: { ...next, ...done, status: 'declined', declinedWhy: event.data.why }, counter: 'declined' };
    case 'ActionApprovalRequested':
      return { doc: { ...next, status: 'waiting_approval', expiresAt: event.data.expiresAt }, counter: null };
    case 'ActionCallApproved':
      return { doc: { ...next, status: 'approved', decidedBy: event.data.by, decidedAt: at }, counter: 'approved' };
    case 'ActionCallRefused':
      return { doc: { ...next, ...done, status: 'refused', decidedBy: event.data.by, decidedAt: at, reason: event.data.reason }, counter: 'refused' };
    case 'ActionApprovalExpired':
      return { doc: { ...next, ...done, status: 'expired' }, counter: 'expired' };
    case 'ActionCallStarted':
      return { doc: { ...next, status: 'running', mocked: event.data.mocked }, counter: null };
    case 'ActionCallSucceeded': {
      const d = event.data;
      const response = { response: cut(d.response), responseTruncated: d.response.length > LOGGED_RESPONSE_CHARS };
      return { doc: { ...next, ...done, status: 'succeeded', httpStatus: d.status, durationMs: d.durationMs, mocked: d.mocked, ...response }, counter: 'succeeded', durationMs: d.durationMs };
    }
    case 'ActionCallFailed': {
      const d = event.data;
      return { doc: { ...next, ...done, status: 'failed', httpStatus: d.status, durationMs: d.durationMs, error: d.error, outcomeUnknown: d.outcomeUnknown ?? false }, counter: 'failed', durationMs: d.durationMs };
    }
  }
}

async function countDay(ctx: ProjectionContext, call: ActionCallDoc, at: string, counter: ActionDayCounter, durationMs?: number): Promise<void> {
  const timezone = (await ctx.get<Doc & { timezone: string }>(ACTION_CALL_COMPANIES, call.companyId))?.timezone ?? DEFAULT_TIMEZONE;
  const date = localDate(at, timezone);
  const id = dayId(call.companyId, call.actionId, date);
  const doc = (await ctx.get<ActionCallDayDoc>(ACTION_CALL_DAYS, id)) ?? emptyActionDay(call.companyId, call.actionId, call.actionName, date);
  const next: ActionCallDayDoc = { ...doc, actionName: call.actionName, [counter]: (doc[counter] ?? 0) + 1 };
  if (durationMs !== undefined) next.duration = record(doc.duration, durationMs);
  ctx.put(ACTION_CALL_DAYS, next);
}

export function emptyActionDay(companyId: string, actionId: string, actionName: string, date: string): ActionCallDayDoc {
  return {
    id: dayId(companyId, actionId, date),
    companyId,
    actionId,
    actionName,
    month: date.slice(0, 7),
    date,
    ...(Object.fromEntries(ACTION_DAY_COUNTERS.map((c) => [c, 0])) as Record<ActionDayCounter, number>),
    duration: emptyHistogram(),
  };
}

async function applyRequested(event: Extract<CallEvent, { type: 'ActionCallRequested' }>, conversationId: string, ctx: ProjectionContext): Promise<void> {
  const conversation = await ctx.get<ConversationDoc>(ACTION_CALL_CONVERSATIONS, conversationId);
  if (!conversation) return;
  const d = event.data;
  const doc = newCall({ ...d, companyId: conversation.companyId, conversationId });
  ctx.put(ACTION_CALLS, doc);
  await countDay(ctx, doc, d.at, 'calls');
}

type PlaygroundCallEvent = RecordedEventOf<typeof schemas, keyof typeof playgroundActionCallEvents>;

/**
 * A live playground call: in the log with its session instead of a conversation, counted in the day's calls and
 * as `playground`. It is made at once (only auto calls run in the playground), so it starts as running.
 */
async function applyPlaygroundCall(event: PlaygroundCallEvent, ctx: ProjectionContext): Promise<void> {
  if (event.type === 'PlaygroundActionCallStarted') {
    const d = event.data;
    const doc: ActionCallDoc = { ...newCall({ ...d, replyId: d.answerId, conversationId: null, playgroundSessionId: d.sessionId }), status: 'running', mocked: false };
    ctx.put(ACTION_CALLS, doc);
    await countDay(ctx, doc, d.at, 'calls');
    await countDay(ctx, doc, d.at, 'playground');
    return;
  }
  const doc = await ctx.get<ActionCallDoc>(ACTION_CALLS, event.data.callId);
  if (!doc?.playgroundSessionId || doc.status !== 'running') return;
  const d = event.data;
  const settled = { ...doc, updatedAt: d.at, finishedAt: d.at, httpStatus: d.status, durationMs: d.durationMs };
  const next: ActionCallDoc = d.ok
    ? { ...settled, status: 'succeeded', response: cut(d.response ?? ''), responseTruncated: (d.response ?? '').length > LOGGED_RESPONSE_CHARS }
    : { ...settled, status: 'failed', error: d.error };
  ctx.put(ACTION_CALLS, next);
  await countDay(ctx, next, d.at, d.ok ? 'succeeded' : 'failed', d.durationMs);
}

type NewCall = Pick<ActionCallDoc, 'companyId' | 'conversationId' | 'playgroundSessionId' | 'callId' | 'replyId' | 'actionId' | 'actionName' | 'mode' | 'arguments'> & {
  agentVersion?: number;
  at: string;
};

function newCall(d: NewCall): ActionCallDoc {
  return {
    id: d.callId,
    companyId: d.companyId,
    conversationId: d.conversationId,
    ...(d.playgroundSessionId ? { playgroundSessionId: d.playgroundSessionId } : {}),
    callId: d.callId,
    replyId: d.replyId,
    actionId: d.actionId,
    actionName: d.actionName,
    mode: d.mode,
    arguments: d.arguments,
    agentVersion: d.agentVersion ?? null,
    status: 'requested',
    confirmationPrompt: null,
    expiresAt: null,
    declinedWhy: null,
    decidedBy: null,
    decidedAt: null,
    reason: null,
    mocked: null,
    httpStatus: null,
    durationMs: null,
    response: null,
    responseTruncated: false,
    error: null,
    outcomeUnknown: false,
    requestedAt: d.at,
    updatedAt: d.at,
    finishedAt: null,
  };
}

/**
 * The action log and its analytics, from the action-call events on customer conversations
 * (src/domain/conversations/actionCalls.ts). Each event costs a fixed number of keyed reads and writes: the
 * call's own document, its conversation's company, the company's timezone and one day document.
 */
export const actionCallsProjection = defineProjection(schemas, {
  name: 'actionCalls',
  collections: [
    {
      name: ACTION_CALLS,
      // The action log: newest first, narrowed by action, status and conversation, alone or together.
      indexes: listIndexes(['companyId'], ['actionId', 'status', 'conversationId'], ['requestedAt']),
    },
    { name: ACTION_CALL_DAYS, indexes: [['companyId', 'month']] },
    { name: ACTION_CALL_CONVERSATIONS, indexes: [] },
    { name: ACTION_CALL_COMPANIES, indexes: [] },
  ],
  eventTypes: ['ConversationStarted', 'CompanyTimezoneSet', ...CALL_TYPES, 'PlaygroundActionCallStarted', 'PlaygroundActionCallFinished'],
  async apply(event, ctx) {
    if (event.type === 'CompanyTimezoneSet') {
      if (event.stream.startsWith(COMPANY_PREFIX)) ctx.put(ACTION_CALL_COMPANIES, { id: event.stream.slice(COMPANY_PREFIX.length), timezone: event.data.timezone });
      return;
    }
    if (event.type === 'PlaygroundActionCallStarted' || event.type === 'PlaygroundActionCallFinished') return applyPlaygroundCall(event, ctx);
    // Customer conversations; of the playground only live calls (above). Mocked calls and replays never reach the log.
    if (!event.stream.startsWith(CONVERSATION_PREFIX)) return;
    const conversationId = conversationIdOfStream(event.stream);
    if (event.type === 'ConversationStarted') {
      ctx.put(ACTION_CALL_CONVERSATIONS, { id: conversationId, companyId: event.data.companyId } satisfies ConversationDoc);
      return;
    }
    if (event.type === 'ActionCallRequested') return applyRequested(event, conversationId, ctx);
    const doc = await ctx.get<ActionCallDoc>(ACTION_CALLS, event.data.callId);
    // A call of another conversation's stream is not this one's (ids are the writer's; never trust one across streams).
    if (!doc || doc.conversationId !== conversationId) return;
    const { doc: next, counter, durationMs } = change(event, doc);
    ctx.put(ACTION_CALLS, next);
    if (counter) await countDay(ctx, next, event.data.at, counter, durationMs);
  },
});
