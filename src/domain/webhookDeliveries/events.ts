import { z } from 'zod';

/**
 * Outbound webhook deliveries, recorded as they happen (no decision: the worker appends what it did).
 * - `webhookdelivery-<endpointId>-<deliveryId>`: the attempts of one delivery (a public event's number, or
 *   `test-<uuid>` for a test event). Small streams: their last event says where a delivery stands.
 * - `webhookprogress-<endpointId>`: how far the endpoint's in-order delivery got. Its last event is all that
 *   counts, read backwards, so a long-lived endpoint costs the same as a new one. The successful attempts of the
 *   worker's deliveries are recorded here too, in batches before the progress they make (one append per batch
 *   rather than one per attempt), so its last event is still a progress event. A batch is one event of at most
 *   SUCCESSES_PER_EVENT successes, not one per success: the delivery log folds it into one document.
 */
const at = z.iso.datetime();

/** How many bytes of a receiver's answer are kept. */
export const RESPONSE_BYTES_KEPT = 256;
/** At most this many successes in one `WebhookDeliveriesSucceeded`: the log's document of a batch stays bounded. */
export const SUCCESSES_PER_EVENT = 100;

const response = z.string().max(RESPONSE_BYTES_KEPT * 4);

export const webhookDeliveryEvents = {
  WebhookDeliveryAttempted: z.object({
    endpointId: z.uuid(),
    companyId: z.uuid(),
    deliveryId: z.string().min(1).max(100),
    /** The public event's id: the `webhook-id` header, the same on every attempt. */
    eventId: z.string().max(100),
    eventType: z.string().max(100),
    attempt: z.number().int().min(1),
    ok: z.boolean(),
    /** The receiver's HTTP status; null when none came (timeout, refused address, connection error). */
    httpStatus: z.number().int().nullable(),
    latencyMs: z.number().int().min(0),
    /** The first bytes of the answer (or the error), for the delivery log. */
    response,
    /** When the next attempt is due; null after a success, a manual or test send, or the last attempt. */
    nextRetryAt: at.nullable(),
    trigger: z.enum(['delivery', 'resend', 'test']),
    at,
  }),
  /**
   * The worker's successful attempts of one batch, in the order made (trigger `delivery`, no retry due). A failure,
   * a resend or a test stays a `WebhookDeliveryAttempted` of its own.
   */
  WebhookDeliveriesSucceeded: z.object({
    endpointId: z.uuid(),
    companyId: z.uuid(),
    deliveries: z
      .array(
        z.object({
          deliveryId: z.string().min(1).max(100),
          eventId: z.string().max(100),
          eventType: z.string().max(100),
          attempt: z.number().int().min(1),
          httpStatus: z.number().int().nullable(),
          latencyMs: z.number().int().min(0),
          response,
          at,
        }),
      )
      .min(1)
      .max(SUCCESSES_PER_EVENT),
  }),
  /** Delivered (or skipped, for types it does not take) every public event of the company up to `through`. */
  WebhookDeliveriesAdvanced: z.object({ endpointId: z.uuid(), through: z.number().int().min(0), replayId: z.uuid().nullable(), at }),
  /** A replay moved the endpoint back to just before its first event at or after `from`. */
  WebhookDeliveriesRewound: z.object({ endpointId: z.uuid(), through: z.number().int().min(0), replayId: z.uuid(), from: at, at }),
};
type Events = typeof webhookDeliveryEvents;
export type WebhookDeliveryEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];

export const webhookDeliveryStream = (endpointId: string, deliveryId: string) => `webhookdelivery-${endpointId}-${deliveryId}`;
export const webhookProgressStream = (endpointId: string) => `webhookprogress-${endpointId}`;
