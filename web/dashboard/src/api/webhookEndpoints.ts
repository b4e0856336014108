// Outbound webhooks: the company's endpoints, their delivery log, test events, resends and replays.
import { query, request, type RequestOptions } from './client.js';
import type { Page } from './types.js';

export interface WebhookEndpoint {
  id: string;
  url: string;
  /** Public event types, or `*` for every one. */
  eventTypes: string[];
  active: boolean;
  description: string;
  /** Set when the service switched the endpoint off after persistent failure. */
  disabled: { reason: string; at: string } | null;
  /** After a rotation: until when the previous secret still signs too. */
  previousSecretValidUntil: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookEndpointInput {
  url: string;
  eventTypes: string[];
  description: string;
  active?: boolean;
}

export interface WebhookAttempt {
  attempt: number;
  trigger: 'delivery' | 'resend' | 'test' | string;
  ok: boolean;
  /** Null when no answer came (timeout, refused address, connection error). */
  httpStatus: number | null;
  latencyMs: number;
  /** The first bytes of the receiver's answer, or the error. */
  response: string;
  at: string;
}

export type WebhookDeliveryStatus = 'delivered' | 'retrying' | 'failed';

/** One event's delivery to one endpoint: where it stands and its most recent attempts, newest first. */
export interface WebhookDelivery {
  /** The delivery's id: the public event's number, or `test-<uuid>` for a test event. */
  id: string;
  eventId: string;
  eventType: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  recentAttempts: WebhookAttempt[];
  nextRetryAt: string | null;
  createdAt: string;
  updatedAt: string;
}

type Opts = RequestOptions;
const base = (id: string) => `/api/webhook-endpoints/${encodeURIComponent(id)}`;

export async function listWebhookEndpoints(cursor: string | null, o?: Opts): Promise<Page<WebhookEndpoint>> {
  const result = await request<{ endpoints: WebhookEndpoint[]; nextCursor?: string | null }>('GET', `/api/webhook-endpoints${query({ limit: 50, cursor })}`, undefined, o);
  return { items: result.endpoints, nextCursor: result.nextCursor ?? null };
}
export const getWebhookEndpoint = async (id: string, o?: Opts) => (await request<{ endpoint: WebhookEndpoint }>('GET', base(id), undefined, o)).endpoint;

/** The answer's `secret` is shown this once. */
export const createWebhookEndpoint = (input: WebhookEndpointInput) => request<{ endpoint: WebhookEndpoint; secret: string }>('POST', '/api/webhook-endpoints', input);
export const updateWebhookEndpoint = async (id: string, input: Partial<WebhookEndpointInput>) =>
  (await request<{ endpoint: WebhookEndpoint }>('PATCH', base(id), input)).endpoint;
export const deleteWebhookEndpoint = (id: string) => request<void>('DELETE', base(id));
/** A new secret, shown this once; the previous one keeps signing until `endpoint.previousSecretValidUntil`. */
export const rotateWebhookEndpointSecret = (id: string) => request<{ endpoint: WebhookEndpoint; secret: string }>('POST', `${base(id)}/rotate-secret`);
/** Every matching public event from `from` on, delivered again in order. */
export const replayWebhookEndpoint = (id: string, from: string) => request<{ replay: { endpointId: string; from: string } }>('POST', `${base(id)}/replay`, { from });

/** The endpoint's deliveries, the most recently attempted first. */
export async function listWebhookDeliveries(id: string, cursor: string | null, o?: Opts): Promise<Page<WebhookDelivery>> {
  const result = await request<{ deliveries: WebhookDelivery[]; nextCursor?: string | null }>('GET', `${base(id)}/deliveries${query({ limit: 50, cursor })}`, undefined, o);
  return { items: result.deliveries, nextCursor: result.nextCursor ?? null };
}
/** What one send did (a test event or a resend), as the delivery log will show it. */
export type SentAttempt = WebhookAttempt & { deliveryId: string; eventId: string };

/** Signs and sends a `webhook.test` event now; it shows in the delivery log. */
export const sendWebhookTestEvent = async (id: string) => (await request<{ attempt: SentAttempt }>('POST', `${base(id)}/test`)).attempt;
/** Sends one delivery again now, with the same `webhook-id`. */
export const resendWebhookDelivery = async (id: string, deliveryId: string) =>
  (await request<{ attempt: SentAttempt }>('POST', `${base(id)}/deliveries/${encodeURIComponent(deliveryId)}/resend`)).attempt;

/** Below this balance (micro-dollars) the company's endpoints get `credits.low`. */
export const getCreditsLowThreshold = async (o?: Opts) =>
  (await request<{ settings: { creditsLowThresholdMicros: number } }>('GET', '/api/webhook-settings', undefined, o)).settings.creditsLowThresholdMicros;
export const setCreditsLowThreshold = async (micros: number) =>
  (await request<{ settings: { creditsLowThresholdMicros: number } }>('PUT', '/api/webhook-settings', { creditsLowThresholdMicros: micros })).settings.creditsLowThresholdMicros;
