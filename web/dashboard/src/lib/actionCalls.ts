import type { ActionCall, ActionCallStatus } from '../api/actionCalls.js';
import type { ConversationEvent } from '../api/types.js';
import type { Tone } from '../components/ui.js';

/** The events of an action call (src/domain/conversations/actionCalls.ts on the server): each carries its callId. */
export const ACTION_CALL_EVENT_TYPES = new Set([
  'ActionCallRequested',
  'ActionCallRejected',
  'ActionConfirmationAsked',
  'ActionCallConfirmed',
  'ActionCallDeclined',
  'ActionApprovalRequested',
  'ActionCallApproved',
  'ActionCallRefused',
  'ActionApprovalExpired',
  'ActionCallStarted',
  'ActionCallSucceeded',
  'ActionCallFailed',
]);

export const STATUS_LABEL: Record<ActionCallStatus, string> = {
  requested: 'Requested',
  waiting_confirmation: 'Waiting for the customer',
  waiting_approval: 'Waiting for approval',
  confirmed: 'Confirmed',
  approved: 'Approved',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  rejected: 'Rejected',
  declined: 'Declined',
  refused: 'Refused',
  expired: 'Expired',
};

export const STATUS_TONE: Record<ActionCallStatus, Tone> = {
  requested: 'info',
  waiting_confirmation: 'warning',
  waiting_approval: 'warning',
  confirmed: 'info',
  approved: 'info',
  running: 'info',
  succeeded: 'success',
  failed: 'danger',
  rejected: 'danger',
  declined: 'neutral',
  refused: 'danger',
  expired: 'neutral',
};

export const MODE_LABEL: Record<ActionCall['mode'], string> = { auto: 'Runs on its own', confirm: 'Customer confirms', approve: 'Teammate approves' };

export const DECLINED_LABEL: Record<NonNullable<ActionCall['declinedWhy']>, string> = { no: 'the customer said no', other_reply: 'the customer wrote something else', silence: 'the customer did not answer in time' };

type Data = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

export const callIdOf = (event: ConversationEvent): string | null => (ACTION_CALL_EVENT_TYPES.has(event.type) ? str((event.data as Data | null)?.callId) : null);

/** One event's change to a call (the same steps the server's action log takes). */
function apply(call: ActionCall, type: string, d: Data): ActionCall {
  const at = str(d.at) ?? call.updatedAt;
  const next = { ...call, updatedAt: at };
  const done = { finishedAt: at };
  switch (type) {
    case 'ActionCallRejected':
      return { ...next, ...done, status: 'rejected', error: str(d.error) };
    case 'ActionConfirmationAsked':
      return { ...next, status: 'waiting_confirmation', confirmationPrompt: str(d.prompt), expiresAt: str(d.expiresAt) };
    case 'ActionCallConfirmed':
      return { ...next, status: 'confirmed' };
    case 'ActionCallDeclined':
      return { ...next, ...done, status: 'declined', declinedWhy: (str(d.why) as ActionCall['declinedWhy']) ?? null };
    case 'ActionApprovalRequested':
      return { ...next, status: 'waiting_approval', expiresAt: str(d.expiresAt) };
    case 'ActionCallApproved':
      return { ...next, status: 'approved', decidedBy: str(d.by), decidedAt: at };
    case 'ActionCallRefused':
      return { ...next, ...done, status: 'refused', decidedBy: str(d.by), decidedAt: at, reason: str(d.reason) };
    case 'ActionApprovalExpired':
      return { ...next, ...done, status: 'expired' };
    case 'ActionCallStarted':
      return { ...next, status: 'running', mocked: d.mocked === true };
    case 'ActionCallSucceeded':
      return { ...next, ...done, status: 'succeeded', httpStatus: num(d.status), durationMs: num(d.durationMs), response: str(d.response), mocked: d.mocked === true };
    case 'ActionCallFailed':
      return { ...next, ...done, status: 'failed', httpStatus: num(d.status), durationMs: num(d.durationMs), error: str(d.error), outcomeUnknown: d.outcomeUnknown === true };
  }
  return next;
}

/**
 * A conversation's action calls from its events, by callId: what a timeline groups into one card per call.
 * Events of a call whose request is not among them are left out.
 */
export function foldActionCalls(events: ConversationEvent[], conversationId: string): Map<string, ActionCall> {
  const calls = new Map<string, ActionCall>();
  for (const event of events) {
    const callId = callIdOf(event);
    if (!callId) continue;
    const d = (event.data ?? {}) as Data;
    if (event.type === 'ActionCallRequested') {
      const at = str(d.at) ?? event.createdAt;
      calls.set(callId, {
        callId, conversationId, playgroundSessionId: null, replyId: str(d.replyId) ?? '', agentVersion: num(d.agentVersion), actionId: str(d.actionId) ?? '', actionName: str(d.actionName) ?? 'action', mode: (str(d.mode) as ActionCall['mode']) ?? 'auto',
        arguments: (d.arguments as ActionCall['arguments']) ?? {}, status: 'requested', confirmationPrompt: null, expiresAt: null, declinedWhy: null,
        decidedBy: null, decidedAt: null, reason: null, mocked: null, httpStatus: null, durationMs: null, response: null, responseTruncated: false,
        error: null, outcomeUnknown: false, requestedAt: at, updatedAt: at, finishedAt: null,
      });
      continue;
    }
    const call = calls.get(callId);
    if (call) calls.set(callId, apply(call, event.type, d));
  }
  return calls;
}

/** `order_id=4411, customer=[platform.clientId]`: a call's arguments on one line. */
export const argumentsLine = (args: ActionCall['arguments']) =>
  Object.entries(args)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');

export type TimelineEntry<M> = { kind: 'message'; message: M } | { kind: 'call'; call: ActionCall };

/**
 * Messages with the conversation's action calls between them, each call before the first message written after
 * it was requested (the reply it was made for, or the holding reply), so a call reads where it happened.
 */
export function interleaveCalls<M extends { createdAt: string }>(messages: M[], calls: ActionCall[]): TimelineEntry<M>[] {
  const pending = [...calls].sort((a, b) => (a.requestedAt < b.requestedAt ? -1 : a.requestedAt > b.requestedAt ? 1 : 0));
  const out: TimelineEntry<M>[] = [];
  for (const message of messages) {
    while (pending.length > 0 && pending[0]!.requestedAt <= message.createdAt) out.push({ kind: 'call', call: pending.shift()! });
    out.push({ kind: 'message', message });
  }
  for (const call of pending) out.push({ kind: 'call', call });
  return out;
}
