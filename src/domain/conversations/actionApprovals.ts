import { DomainError } from '../errors.js';
import type { ConversationEvent } from './events.js';
export { APPROVAL_EXPIRED_REASON } from './state.js';
import type { ConversationState, DecidedCall } from './state.js';

/**
 * The out-of-band half of an action call that waits (actionCalls.ts): a teammate approves or refuses an `approve`
 * call, and the clock ends an approval nobody decided in time (into a handoff; a confirmation met with silence is
 * declined by the reply loop's DeclineActionCall, `why: 'silence'`, actionCallDecisions.ts). Only the conversation's pending call can be decided. Deciding it again the same way is
 * a no-op (a double click, a retried request); the other way, or after the clock ended it, is a CONFLICT.
 */

/** `role`: the teammate's role now; `by`: `user:<id>`. */
export interface ApproveActionCall {
  type: 'ApproveActionCall';
  callId: string;
  by: string;
  role: string;
  now: string;
}
export interface RefuseActionCall {
  type: 'RefuseActionCall';
  callId: string;
  by: string;
  role: string;
  reason: string | null;
  now: string;
}
/** The approval timer: the approval window of `callId` has passed. */
export interface ExpireActionCall {
  type: 'ExpireActionCall';
  callId: string;
  now: string;
}
/** (The confirmation timer declines with the reply loop's own DeclineActionCall, `why: 'silence'`.) */
export type ActionApprovalCommand = ApproveActionCall | RefuseActionCall | ExpireActionCall;

const PAST: Record<DecidedCall['decision'], string> = {
  approved: 'approved',
  refused: 'refused',
  expired: 'expired without a decision',
  confirmed: 'confirmed by the customer',
  declined: 'declined',
};

/** The call a teammate may decide now, or the refusal that says why not. */
function approvable(state: ConversationState, command: ApproveActionCall | RefuseActionCall, decision: 'approved' | 'refused'): 'decide' | 'done' {
  if (!state.exists) throw new DomainError('NOT_FOUND', 'Conversation not found');
  const pending = state.pendingAction;
  if (pending?.callId !== command.callId) {
    const decided = state.decidedCalls.find((c) => c.callId === command.callId);
    if (!decided) throw new DomainError('NOT_FOUND', 'Action call not found');
    if (decided.decision === decision) return 'done';
    throw new DomainError('CONFLICT', `This action call was already ${PAST[decided.decision]}`);
  }
  if (pending.mode !== 'approve') throw new DomainError('INVALID_STATE', "This action call waits for the customer's confirmation, not a teammate's approval");
  if (pending.approverRoles && !pending.approverRoles.includes(command.role)) {
    throw new DomainError('FORBIDDEN', `Only ${pending.approverRoles.join(' or ')} teammates may decide this action call`);
  }
  // The timer records the expiry shortly after; until then no decision is taken past the deadline.
  if (Date.parse(command.now) >= Date.parse(pending.expiresAt)) throw new DomainError('CONFLICT', 'The approval window of this action call has passed');
  return 'decide';
}

export function decideApproveActionCall(command: ApproveActionCall, state: ConversationState): ConversationEvent[] {
  if (approvable(state, command, 'approved') === 'done') return [];
  return [{ type: 'ActionCallApproved', data: { callId: command.callId, by: command.by, at: command.now } }];
}

export function decideRefuseActionCall(command: RefuseActionCall, state: ConversationState): ConversationEvent[] {
  if (approvable(state, command, 'refused') === 'done') return [];
  const reason = command.reason?.trim().slice(0, 500) || null;
  return [{ type: 'ActionCallRefused', data: { callId: command.callId, by: command.by, reason, at: command.now } }];
}

/** The pending approval whose deadline has passed at `now`; null: nothing to end (decided meanwhile, or not due). */
const due = (state: ConversationState, callId: string, now: string) => {
  const pending = state.pendingAction;
  return pending?.callId === callId && pending.mode === 'approve' && Date.parse(now) >= Date.parse(pending.expiresAt) ? pending : null;
};

/**
 * No teammate decided in time: the approval expires and the conversation goes to people, as a handoff (the AI
 * session pauses, the conversation joins "Needs human" with APPROVAL_EXPIRED_REASON). The customer was told by
 * the holding reply that a teammate decides; the teammate who takes the handoff answers them.
 */
export function decideExpireActionCall(command: ExpireActionCall, state: ConversationState): ConversationEvent[] {
  if (!due(state, command.callId, command.now)) return [];
  const events: ConversationEvent[] = [{ type: 'ActionApprovalExpired', data: { callId: command.callId, at: command.now } }];
  const session = state.session;
  if (session?.state === 'active') events.push({ type: 'AiSessionPaused', data: { sessionId: session.id, reason: 'handoff', by: null, at: command.now } });
  return events;
}
