/**
 * The message bus port: at-least-once delivery of jobs to workers. Handlers must be idempotent;
 * `dedupeId` lets the bus drop a republished message within its dedupe window.
 */
export interface BusMessage<T = unknown> {
  subject: string;
  data: T;
  /** How many times this message has been delivered, from 1. */
  deliveryCount: number;
  dedupeId: string;
}

export interface PublishOptions {
  /** Same id within the dedupe window (default 2 min in NATS) → published once. */
  dedupeId: string;
}

export interface SubscribeOptions {
  /** Durable consumer name: instances sharing it compete for messages. */
  durable: string;
  /** Max deliveries before the message goes to the dead-letter subject. Default 5. */
  maxDeliver?: number;
  /**
   * Delays between redeliveries after a failure (ms): entry i after the (i+1)-th failed delivery, the last entry
   * repeating. Default DEFAULT_BACKOFF_MS. Shared by all subscribers of a durable (the latest subscribe() wins).
   */
  backoffMs?: number[];
  /** Parallel handler calls per instance. Default 1. */
  concurrency?: number;
}

export type BusHandler<T = unknown> = (message: BusMessage<T>) => Promise<void>;

export interface BusSubscription {
  stop(): Promise<void>;
}

export interface Bus {
  publish<T>(subject: string, data: T, options: PublishOptions): Promise<void>;
  /** Work-queue subscription: each message handled by one instance; a throw means redeliver later. */
  subscribe<T>(subject: string, options: SubscribeOptions, handler: BusHandler<T>): Promise<BusSubscription>;
  /**
   * Fan-out, fire-and-forget notifications (e.g. a webchat reply for whichever instance holds the socket):
   * every instance listening receives it; nothing is stored.
   */
  broadcast<T>(subject: string, data: T): Promise<void>;
  listen<T>(subject: string, handler: (data: T) => void): Promise<BusSubscription>;
  /** Dead-lettered messages land on `dead.<subject>`; subscribe to it like any subject. */
  isConnected(): boolean;
  close(): Promise<void>;
}

export const deadLetterSubject = (subject: string) => `dead.${subject}`;

/**
 * What lands on `deadLetterSubject(subject)` when a durable gives up on a message. Its BusMessage.dedupeId is
 * `<durable>:<original dedupeId>`, so the same message dead-lettered by two durables is kept twice and a
 * repeated dead-lettering by one durable is deduped.
 */
export interface DeadLetter<T = unknown> {
  /** The subject the message was published on. */
  subject: string;
  /** The durable consumer that gave up. */
  durable: string;
  data: T;
  /** The original message's dedupeId. */
  dedupeId: string;
  /** The last handler error's message. */
  error: string;
  /** Deliveries made before giving up. */
  deliveryCount: number;
  /** ISO timestamp. */
  deadAt: string;
}

export const DEFAULT_MAX_DELIVER = 5;
/** Default redelivery delays after a failure: 1st failure waits 1 s, 2nd 5 s, later ones 30 s. */
export const DEFAULT_BACKOFF_MS: readonly number[] = [1_000, 5_000, 30_000];

/**
 * A subject or durable name adapters refuse. Subjects are dot-separated tokens of letters, digits, `_` and `-` (no
 * wildcards): adapters map them onto their own namespaces (e.g. NATS `mas.jobs.<subject>`), and dedupe is per subject.
 * Durable names are one token of 1-64 characters of [A-Za-z0-9_-] (NATS consumer names derive from them).
 */
export class InvalidBusNameError extends Error {
  override readonly name = 'InvalidBusNameError';
  constructor(
    readonly kind: 'subject' | 'durable',
    readonly value: string,
  ) {
    super(
      kind === 'subject'
        ? `invalid bus subject ${JSON.stringify(value)}: use dot-separated tokens of [A-Za-z0-9_-]`
        : `invalid durable name ${JSON.stringify(value)}: use 1-64 characters of [A-Za-z0-9_-]`,
    );
  }
}

/** publish/subscribe/broadcast/listen on a bus after close(). */
export class BusClosedError extends Error {
  override readonly name = 'BusClosedError';
  constructor() {
    super('the bus is closed');
  }
}
