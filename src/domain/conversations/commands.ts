import type { PlatformId } from '../platformId.js';
import type { AnswerProvenance } from '../answers/provenance.js';
import type { Customer, DeliveredTo, PausedReason, PlatformRefs } from './events.js';

export interface Start {
  conversationId: string;
  companyId: string;
  integrationId: number;
  connectorType: 'msgplatform' | 'webchat';
  customer: Customer;
  defaultStageId: string | null;
}

export interface Delivery {
  messageId: string;
  dedupeKey: string;
  dedupeUntil: string | null;
  text: string;
  attachments?: unknown[];
  platform: PlatformRefs;
}

export type ConversationCommand =
  | ({ type: 'ReceiveCustomerMessage'; start: Start; sessionId: string; client?: Record<string, unknown>; clientMessageId?: string; now: string } & Delivery)
  | ({ type: 'RecordOperatorMessage'; start: Start; now: string } & Delivery)
  | { type: 'PauseSession'; reason: PausedReason; by: string | null; now: string }
  | { type: 'ResumeSession'; by: string | null; now: string }
  | { type: 'CloseSession'; reason: 'close_dialog' | 'close_request' | 'api'; by: string | null; resolution?: string; now: string }
  | { type: 'ReopenConversation'; sessionId: string; by: string | null; now: string }
  | { type: 'TransferDialog'; dialogId: PlatformId | null; requestId: PlatformId | null; now: string }
  | { type: 'ChangeStage'; stageId: string; validStageIds: string[]; by: string | null; now: string }
  | {
      type: 'AppendAgentReply';
      messageId: string;
      sessionId: string;
      agentId: string | null;
      text: string;
      inReplyTo: string[];
      model: string;
      inputTokens: number;
      outputTokens: number;
      handoff: boolean;
      /** The model's reason for a handoff (bounded plain text); kept only when `handoff`. */
      handoffReason?: string;
      provenance?: AnswerProvenance;
      now: string;
    }
  | { type: 'SendOperatorMessage'; messageId: string; text: string; by: string; now: string }
  | { type: 'RecordSendAttempt'; messageId: string; idempotencyKey: string; now: string }
  | { type: 'RecordDelivery'; messageId: string; platformMessageId: PlatformId | null; deliveredTo?: DeliveredTo; now: string }
  | { type: 'RecordDeliveryFailure'; messageId: string; reason: string; attempts: number; now: string }
  | { type: 'MarkUnanswered'; messageIds: string[]; reason: string; handoff: boolean; now: string }
  /** `assignee`: the user as the teammates query found them; null when no such user belongs to the company. */
  | { type: 'AssignConversation'; assigneeId: string; assignee: Teammate | null; by: string; now: string }
  | { type: 'UnassignConversation'; by: string; now: string };

/** A user who may own conversations of their company (what the membership query answers). */
export interface Teammate {
  userId: string;
  companyId: string;
}

