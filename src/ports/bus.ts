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
  /** Delays between redeliveries after a failure (ms). */
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
