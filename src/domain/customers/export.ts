import type { ConversationStreamEvent } from '../conversations/events.js';

/**
 * What a customer's export (GDPR art. 15 access request; docs/erasure.md) holds of one conversation, assembled
 * from its stream's events as stored (read with the customer's key: erased fields read `[erased]`). Pure: the
 * command side reads the events (bounded, commands/customers/exportCustomer.ts) and records the audit.
 */

/** Who wrote a message: the customer, the AI agent, a teammate (in the service or on the platform), or the survey. */
export type ExportAuthor =
  | { kind: 'customer' }
  | { kind: 'ai_agent'; agentId: string | null }
  | { kind: 'teammate'; by: string | null }
  | { kind: 'system' };

export interface ExportMessage {
  messageId: string;
  /** `internal_note`: a teammate's note on the conversation, never shown to the customer. */
  kind: 'message' | 'internal_note';
  direction: 'inbound' | 'outbound' | 'internal';
  author: ExportAuthor;
  text: string;
  attachments?: unknown[];
  at: string;
}

export interface ExportActionCall {
  callId: string;
  actionName: string;
  mode: string;
  /** The arguments as stored (what the model asked for). */
  arguments: Record<string, unknown>;
  /** What the customer was asked to confirm, or told while a teammate decided. */
  prompt: string | null;
  outcome: 'pending' | 'succeeded' | 'failed' | 'rejected' | 'declined' | 'refused' | 'expired';
  /** The mapped response as stored (succeeded), or the error in plain words (failed, rejected). */
  result: string | null;
  status: number | null;
  requestedAt: string;
  finishedAt: string | null;
}

export interface ConversationExport {
  conversationId: string;
  startedAt: string | null;
  /** What the channel said about the customer when it started. */
  customer: Record<string, unknown> | null;
  messages: ExportMessage[];
  ratings: { surveyId: string; rating: number; comment: string | null; via: string; at: string }[];
  actionCalls: ExportActionCall[];
  handoffSummaries: { wants: string; tried: string; why: string; at: string }[];
  verifiedIdentities: { userId: string; email: string | null; at: string }[];
  /** How teammates resolved it when closing (the closing note), when they wrote one. */
  resolutions: { resolution: string; by: string | null; at: string }[];
}

type Event = Pick<ConversationStreamEvent, 'type' | 'data'>;

export function emptyConversationExport(conversationId: string): ConversationExport {
  return { conversationId, startedAt: null, customer: null, messages: [], ratings: [], actionCalls: [], handoffSummaries: [], verifiedIdentities: [], resolutions: [] };
}

/** Adds one event of the conversation's stream to its export (events in stream order). */
export function addToConversationExport(out: ConversationExport, event: Event): void {
  if (addMessage(out, event)) return;
  if (addActionCall(out, event)) return;
  const e = event as ConversationStreamEvent;
  switch (e.type) {
    case 'ConversationStarted':
      out.startedAt = e.data.at;
      out.customer = { ...e.data.customer };
      return;
    case 'CsatSubmitted':
      out.ratings.push({ surveyId: e.data.surveyId, rating: e.data.rating, comment: e.data.comment, via: e.data.via, at: e.data.at });
      return;
    case 'HandoffSummarized':
      out.handoffSummaries.push({ wants: e.data.wants, tried: e.data.tried, why: e.data.why, at: e.data.at });
      return;
    case 'CustomerIdentityVerified':
      out.verifiedIdentities.push({ userId: e.data.userId, email: e.data.email, at: e.data.at });
      return;
    case 'AiSessionClosed':
      if (e.data.resolution) out.resolutions.push({ resolution: e.data.resolution, by: e.data.by, at: e.data.at });
      return;
    default:
      return;
  }
}

function addMessage(out: ConversationExport, event: Event): boolean {
  const e = event as ConversationStreamEvent;
  const push = (m: ExportMessage) => (out.messages.push(m), true);
  switch (e.type) {
    case 'MessageReceived':
      return push({ messageId: e.data.messageId, kind: 'message', direction: 'inbound', author: { kind: 'customer' }, text: e.data.text, ...(e.data.attachments ? { attachments: e.data.attachments } : {}), at: e.data.at });
    case 'AgentReplied':
      return push({ messageId: e.data.messageId, kind: 'message', direction: 'outbound', author: { kind: 'ai_agent', agentId: e.data.agentId }, text: e.data.text, at: e.data.at });
    case 'OperatorMessageSent':
      return push({ messageId: e.data.messageId, kind: 'message', direction: 'outbound', author: { kind: 'teammate', by: e.data.by }, text: e.data.text, at: e.data.at });
    case 'OperatorMessageRecorded':
      // Written by a teammate on the platform itself: the platform does not say which one.
      return push({ messageId: e.data.messageId, kind: 'message', direction: 'outbound', author: { kind: 'teammate', by: null }, text: e.data.text, ...(e.data.attachments ? { attachments: e.data.attachments } : {}), at: e.data.at });
    case 'CsatRequested':
      return e.data.messageId && e.data.text ? push({ messageId: e.data.messageId, kind: 'message', direction: 'outbound', author: { kind: 'system' }, text: e.data.text, at: e.data.at }) : true;
    case 'NoteAdded':
      return push({ messageId: e.data.noteId, kind: 'internal_note', direction: 'internal', author: { kind: 'teammate', by: `user:${e.data.authorId}` }, text: e.data.text, at: e.data.at });
    default:
      return false;
  }
}

function addActionCall(out: ConversationExport, event: Event): boolean {
  const e = event as ConversationStreamEvent;
  if (e.type === 'ActionCallRequested') {
    const { callId, actionName, mode, arguments: args, at } = e.data;
    out.actionCalls.push({ callId, actionName, mode, arguments: { ...args }, prompt: null, outcome: 'pending', result: null, status: null, requestedAt: at, finishedAt: null });
    return true;
  }
  if (!e.type.startsWith('Action')) return false;
  const data = e.data as { callId?: string; at: string };
  const call = out.actionCalls.find((c) => c.callId === data.callId);
  if (!call) return true;
  const finish = (outcome: ExportActionCall['outcome'], result: string | null = null, status: number | null = null) =>
    Object.assign(call, { outcome, result, status, finishedAt: data.at });
  switch (e.type) {
    case 'ActionConfirmationAsked':
      call.prompt = e.data.prompt;
      break;
    case 'ActionApprovalRequested':
      call.prompt = e.data.holdingReply;
      break;
    case 'ActionCallSucceeded':
      finish('succeeded', e.data.response, e.data.status);
      break;
    case 'ActionCallFailed':
      finish('failed', e.data.error, e.data.status);
      break;
    case 'ActionCallRejected':
      finish('rejected', e.data.error);
      break;
    case 'ActionCallDeclined':
      finish('declined');
      break;
    case 'ActionCallRefused':
      finish('refused', e.data.reason);
      break;
    case 'ActionApprovalExpired':
      finish('expired');
      break;
    default:
      break;
  }
  return true;
}
