import { conversationDecider, conversationStream, type ConversationCommand } from '../../domain/conversations/decider.js';
import { DomainError } from '../../domain/errors.js';
import { handleCommand, loadState } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';

/** A teammate deciding: their company, id and current role (the action may name the roles that decide). */
export interface Approver {
  companyId: string;
  userId: string;
  role: string;
}

/** Who the action-expiry timer records as the actor of what it ends. */
export const ACTION_EXPIRY = 'system:action-expiry';

async function onConversation(deps: CommandDeps, companyId: string, conversationId: string, command: ConversationCommand, actor: string) {
  const stream = conversationStream(conversationId);
  const { state } = await loadState(deps.eventStore, stream, conversationDecider);
  // Another company's conversation is answered like a missing one, and so is every call in it.
  if (!state.exists || state.companyId !== companyId) throw new DomainError('NOT_FOUND', 'Conversation not found');
  return handleCommand(deps.eventStore, stream, conversationDecider, command, { metadata: { companyId, actor } });
}

export const approveActionCall = (deps: CommandDeps, approver: Approver, conversationId: string, callId: string) =>
  onConversation(
    deps,
    approver.companyId,
    conversationId,
    { type: 'ApproveActionCall', callId, by: `user:${approver.userId}`, role: approver.role, now: deps.clock.now().toISOString() },
    `user:${approver.userId}`,
  );

export const refuseActionCall = (deps: CommandDeps, approver: Approver, conversationId: string, callId: string, reason: string | null) =>
  onConversation(
    deps,
    approver.companyId,
    conversationId,
    { type: 'RefuseActionCall', callId, by: `user:${approver.userId}`, role: approver.role, reason, now: deps.clock.now().toISOString() },
    `user:${approver.userId}`,
  );

/** The timer's end of a wait: an approval expires (into a handoff), a confirmation met with silence is declined. Idempotent. */
export async function endExpiredWait(deps: CommandDeps, conversationId: string, callId: string, mode: 'confirm' | 'approve') {
  const stream = conversationStream(conversationId);
  const now = deps.clock.now().toISOString();
  const command: ConversationCommand = mode === 'approve' ? { type: 'ExpireActionCall', callId, now } : { type: 'DeclineActionCall', callId, why: 'silence', now };
  const { state } = await loadState(deps.eventStore, stream, conversationDecider);
  return handleCommand(deps.eventStore, stream, conversationDecider, command, { metadata: { ...(state.companyId ? { companyId: state.companyId } : {}), actor: ACTION_EXPIRY } });
}
