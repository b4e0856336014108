import type { SentAttempt, WebhookDelivery, WebhookEndpoint } from '../api/webhookEndpoints.js';

/**
 * The public event catalog as the endpoint form offers it. The dashboard cannot import server code, so
 * test/unit/webhooksPage.test.ts checks that these are exactly the types of src/domain/publicEvents/catalog.ts.
 */
export const PUBLIC_EVENT_TYPES: { type: string; label: string }[] = [
  { type: 'conversation.started', label: 'A customer starts a conversation' },
  { type: 'message.received', label: 'A customer message arrives' },
  { type: 'message.answered', label: 'The agent answers (answer, model, sources)' },
  { type: 'message.delivery_failed', label: 'A reply could not be delivered' },
  { type: 'conversation.handed_off', label: 'The agent hands a conversation to a person' },
  { type: 'conversation.assigned', label: 'A conversation is assigned to a teammate' },
  { type: 'conversation.closed', label: 'A conversation is closed' },
  { type: 'conversation.transferred', label: 'The platform transfers a conversation' },
  { type: 'credits.low', label: 'Credits fall below your threshold' },
  { type: 'credits.exhausted', label: 'Credits run out' },
  { type: 'endpoint.disabled', label: 'Another endpoint was disabled after persistent failure' },
  { type: 'customer.erased', label: "A customer's personal data was erased" },
];

export const ALL_EVENTS = '*';

/** How the endpoint list names what an endpoint subscribes to. */
export function describeEventTypes(types: readonly string[]): string {
  if (types.includes(ALL_EVENTS)) return 'All events';
  return types.join(', ');
}

/** Where an endpoint stands: turned off by the service, by a person, or live. */
export function endpointStatus(endpoint: Pick<WebhookEndpoint, 'active' | 'disabled'>): { label: string; tone: 'success' | 'neutral' | 'danger' } {
  if (endpoint.disabled) return { label: 'Disabled', tone: 'danger' };
  if (!endpoint.active) return { label: 'Inactive', tone: 'neutral' };
  return { label: 'Active', tone: 'success' };
}

/** The banner of an endpoint the service switched off. */
export function disabledSentence(endpoint: Pick<WebhookEndpoint, 'url' | 'disabled'>): string | null {
  if (!endpoint.disabled) return null;
  return `${endpoint.url} was disabled after failing for too long: ${endpoint.disabled.reason}. Fix the receiver, then enable it: delivery resumes where it stopped.`;
}

/** The last attempt of a delivery (its attempts are kept newest first). */
export const lastAttempt = (delivery: Pick<WebhookDelivery, 'recentAttempts'>) => delivery.recentAttempts[0] ?? null;

/** What a receiver answered, on one line and bounded: a log row shows the first bytes only. */
export function responseExcerpt(response: string, max = 120): string {
  const flat = response.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * A `datetime-local` value (the browser's local time) as the ISO 8601 instant the replay takes; null when it is
 * empty, malformed or in the future (the server refuses a replay from the future).
 */
export function replayFrom(local: string, now = Date.now()): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(local)) return null;
  const at = new Date(local);
  if (Number.isNaN(at.getTime()) || at.getTime() > now) return null;
  return at.toISOString();
}

/** A `datetime-local` value for `ms` in the browser's local time (the replay field's default: an hour ago). */
export function toLocalInput(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** How many attempts of a delivery the log keeps (the server's RECENT_ATTEMPTS_KEPT). */
const ATTEMPTS_SHOWN = 10;

/**
 * The log with a send the user just made (a test event, a resend) on top, as the server's log will show it once
 * its read model has the attempt: the page need not wait for that to show what happened.
 */
export function withSentAttempt(log: readonly WebhookDelivery[], sent: SentAttempt, eventType: string): WebhookDelivery[] {
  const { deliveryId, eventId, ...attempt } = sent;
  const before = log.find((d) => d.id === deliveryId);
  const delivery: WebhookDelivery = {
    id: deliveryId,
    eventId,
    eventType: before?.eventType ?? eventType,
    status: attempt.ok ? 'delivered' : 'failed',
    attempts: (before?.attempts ?? 0) + 1,
    recentAttempts: [attempt, ...(before?.recentAttempts ?? [])].slice(0, ATTEMPTS_SHOWN),
    nextRetryAt: null,
    createdAt: before?.createdAt ?? attempt.at,
    updatedAt: attempt.at,
  };
  return [delivery, ...log.filter((d) => d.id !== deliveryId)];
}

/** A dollar amount as typed ("5", "0.50") in micro-dollars; null when it is not a non-negative amount. */
export function dollarsToMicros(typed: string): number | null {
  const value = typed.trim().replace(/^\$/, '');
  if (!/^\d{1,9}(\.\d{1,6})?$/.test(value)) return null;
  const [whole, fraction = ''] = value.split('.');
  return Number(whole) * 1_000_000 + Number(fraction.padEnd(6, '0'));
}
