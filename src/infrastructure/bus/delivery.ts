/**
 * Bus semantics both adapters (in-process and NATS JetStream) share, so they agree: name checks, subscribe
 * defaults, redelivery delays, the error text a dead letter records.
 */
import { DEFAULT_BACKOFF_MS, DEFAULT_MAX_DELIVER, InvalidBusNameError, type SubscribeOptions } from '../../ports/bus.js';

/** The delay before redelivering a message whose `deliveryCount`-th delivery failed (the last entry repeats). */
export function redeliveryDelayMs(backoffMs: readonly number[], deliveryCount: number): number {
  if (backoffMs.length === 0) return 0;
  const index = Math.min(Math.max(deliveryCount - 1, 0), backoffMs.length - 1);
  return Math.max(0, backoffMs[index] ?? 0);
}

/** Subjects: dot-separated tokens of [A-Za-z0-9_-] (see InvalidBusNameError). */
export function assertValidSubject(subject: string): void {
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(subject)) throw new InvalidBusNameError('subject', subject);
}

/** Durable names are one token of 1-64 characters of [A-Za-z0-9_-] (NATS consumer names derive from them). */
export function assertValidDurable(durable: string): void {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(durable)) throw new InvalidBusNameError('durable', durable);
}

/** SubscribeOptions with defaults applied and validated; shared by the adapters so they agree. */
export interface ResolvedSubscribeOptions {
  durable: string;
  maxDeliver: number;
  backoffMs: readonly number[];
  concurrency: number;
}

export function resolveSubscribeOptions(subject: string, options: SubscribeOptions): ResolvedSubscribeOptions {
  assertValidSubject(subject);
  assertValidDurable(options.durable);
  const maxDeliver = options.maxDeliver ?? DEFAULT_MAX_DELIVER;
  const concurrency = options.concurrency ?? 1;
  const backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  if (!Number.isInteger(maxDeliver) || maxDeliver < 1) throw new RangeError(`maxDeliver must be an integer >= 1, got ${maxDeliver}`);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be an integer >= 1, got ${concurrency}`);
  if (backoffMs.some((ms) => !Number.isFinite(ms) || ms < 0)) throw new RangeError('backoffMs entries must be finite numbers >= 0');
  return { durable: options.durable, maxDeliver, backoffMs: [...backoffMs], concurrency };
}

/** The text recorded as a dead letter's `error` for whatever a handler threw. */
export function handlerErrorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}
