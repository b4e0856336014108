import type { PlatformId } from '../domain/platformId.js';

/**
 * The messaging platform port: webhook registration and sending messages (API.md, "The messaging
 * platform"). Every failure is a PlatformError whose message is safe to log and show.
 */
export type PlatformErrorKind = 'refused' | 'timeout' | 'unreachable' | 'blocked' | 'bad_response';

export class PlatformError extends Error {
  override readonly name = 'PlatformError';
  constructor(
    readonly kind: PlatformErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export const WEBHOOK_EVENTS = ['inbox', 'outbox', 'close_dialog', 'close_request', 'dialog_transferred'] as const;

export interface RegisterWebhookInput {
  apiUrl: string;
  apiToken: string;
  /** Our webhook URL; an existing registration with this URL is updated instead of duplicated. */
  url: string;
  name: string;
}

export interface SendMessageInput {
  apiUrl: string;
  apiToken: string;
  clientId: PlatformId;
  channelId: PlatformId;
  transport: string;
  text: string;
  /** Stable per outgoing message: sent as the Idempotency-Key header on every attempt. */
  idempotencyKey?: string;
}

export interface PlatformClient {
  registerWebhook(input: RegisterWebhookInput): Promise<{ webhookId: PlatformId; created: boolean }>;
  /**
   * `messageId` is null when the platform accepted the message but named no id: the message
   * was sent, so this is not an error (an error would invite a retry and a second send).
   */
  sendMessage(input: SendMessageInput): Promise<{ messageId: PlatformId | null }>;
}

