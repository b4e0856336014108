// Outbound webhooks: the company's endpoints, their delivery log, test events, resends and replays.
import { query, request, type RequestOptions } from './client.js';
import type {
  SentAttempt,
  WebhookDeliveryPage,
  WebhookEndpointChanges,
  WebhookEndpointInput,
  WebhookEndpointOne,
  WebhookEndpointPage,
  WebhookEndpointWithSecret,
  WebhookReplayBody,
  WebhookReplayStarted,
  WebhookSettings,
  WebhookSettingsBody,
  Reply,
  webhookDeliveries,
} from './serverTypes.js';
import type { Page } from './types.js';

export type { SentAttempt, WebhookEndpointInput };
export type WebhookEndpoint = WebhookEndpointOne['endpoint'];
/** One event's delivery to one endpoint: where it stands and its most recent attempts, newest first. */
export type WebhookDelivery = WebhookDeliveryPage['deliveries'][number];
export type WebhookAttempt = WebhookDelivery['recentAttempts'][number];
export type WebhookDeliveryStatus = WebhookDelivery['status'];

type Opts = RequestOptions;
const base = (id: string) => `/api/webhook-endpoints/${encodeURIComponent(id)}`;

export async function listWebhookEndpoints(cursor: string | null, o?: Opts): Promise<Page<WebhookEndpoint>> {
  const result = await request<WebhookEndpointPage>('GET', `/api/webhook-endpoints${query({ limit: 50, cursor })}`, undefined, o);
  return { items: result.endpoints, nextCursor: result.nextCursor };
}
export const getWebhookEndpoint = async (id: string, o?: Opts) => (await request<WebhookEndpointOne>('GET', base(id), undefined, o)).endpoint;

/** The answer's `secret` is shown this once. */
export const createWebhookEndpoint = (input: WebhookEndpointInput) => request<WebhookEndpointWithSecret>('POST', '/api/webhook-endpoints', input);
export const updateWebhookEndpoint = async (id: string, input: WebhookEndpointChanges) => (await request<WebhookEndpointOne>('PATCH', base(id), input)).endpoint;
export const deleteWebhookEndpoint = (id: string) => request<void>('DELETE', base(id));
/** A new secret, shown this once; the previous one keeps signing until `endpoint.previousSecretValidUntil`. */
export const rotateWebhookEndpointSecret = (id: string) => request<WebhookEndpointWithSecret>('POST', `${base(id)}/rotate-secret`);
/** Every matching public event from `from` on, delivered again in order. */
export const replayWebhookEndpoint = (id: string, from: string) => request<WebhookReplayStarted>('POST', `${base(id)}/replay`, { from } satisfies WebhookReplayBody);

/** The endpoint's deliveries, the most recently attempted first. */
export async function listWebhookDeliveries(id: string, cursor: string | null, o?: Opts): Promise<Page<WebhookDelivery>> {
  const result = await request<WebhookDeliveryPage>('GET', `${base(id)}/deliveries${query({ limit: 50, cursor })}`, undefined, o);
  return { items: result.deliveries, nextCursor: result.nextCursor };
}

/** Signs and sends a `webhook.test` event now; it shows in the delivery log. */
export const sendWebhookTestEvent = async (id: string) => (await request<Reply<typeof webhookDeliveries.sendTestEventSchema>>('POST', `${base(id)}/test`)).attempt;
/** Sends one delivery again now, with the same `webhook-id`. */
export const resendWebhookDelivery = async (id: string, deliveryId: string) =>
  (await request<Reply<typeof webhookDeliveries.resendWebhookDeliverySchema>>('POST', `${base(id)}/deliveries/${encodeURIComponent(deliveryId)}/resend`)).attempt;

/** Below this balance (micro-dollars) the company's endpoints get `credits.low`. */
export const getCreditsLowThreshold = async (o?: Opts) => (await request<WebhookSettings>('GET', '/api/webhook-settings', undefined, o)).settings.creditsLowThresholdMicros;
export const setCreditsLowThreshold = async (micros: number) =>
  (await request<WebhookSettings>('PUT', '/api/webhook-settings', { creditsLowThresholdMicros: micros } satisfies WebhookSettingsBody)).settings.creditsLowThresholdMicros;
