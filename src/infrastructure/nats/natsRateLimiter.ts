/**
 * The RateLimiter on NATS JetStream (chosen by NATS_URL): every instance connected to one NATS counts into the
 * same counters, so a limit holds for the whole cluster. Works on nats-server 2.9+ without the KV client.
 *
 * Storage: one memory stream (`streamName`, default `MAS_LIMITS`) holding `<prefix>.limits.>` with
 * max_msgs_per_subject 1 — a key-value bucket by hand. The counter of (rule, key, window) is the last message on
 * `<prefix>.limits.<limit>_<windowMs>.<base64url key>.<window index>`, its payload the count in decimal. The stream's
 * max_age (2 × `maxWindowMs` + 10 s) drops a window's counter once it is neither current nor previous.
 *
 * Counting is compare-and-set: read the current and previous window's counters, then publish the new count with
 * `Nats-Expected-Last-Subject-Sequence` = the sequence read (0: no counter yet); a concurrent writer on another
 * instance makes the publish fail and the round is retried. Within this instance the hits on one counter are
 * queued and decided in batches (one read-and-set for all hits waiting), so a flood does not turn into a storm of
 * conflicting writes.
 *
 * When NATS does not answer (a request fails or times out after `timeoutMs`), decisions fall back to an
 * in-memory limiter of this instance for `fallbackMs` (a warning is logged): the limits then hold per instance
 * rather than letting everything through or refusing every visitor while NATS is away.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  jetstreamManager,
  type JetStreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import type { Logger } from '../../ports/logger.js';
import type { RateLimit, RateLimiter } from '../../ports/rateLimiter.js';
import { assertValidRateLimit, hitsAllowed, windowAt } from '../rateLimit/slidingWindow.js';
import { createMemoryRateLimiter } from '../memory/memoryRateLimiter.js';

export interface NatsRateLimiterOptions {
  /** A connection owned by the caller (e.g. the bus's): close() leaves it open. */
  nc: NatsConnection;
  logger: Logger;
  /** Default `MAS_LIMITS`. */
  streamName?: string;
  /** First subject token of the counters. Default `mas`. */
  subjectsPrefix?: string;
  /** The longest window a rule may use (sets the stream's max_age). Default 60 000 ms. */
  maxWindowMs?: number;
  /** How long one NATS request may take before the in-memory fallback decides. Default 1 000 ms. */
  timeoutMs?: number;
  /** How long decisions stay with the fallback after NATS failed. Default 5 000 ms. */
  fallbackMs?: number;
  /** Stream replicas (3 on a NATS cluster). Default 1. */
  replicas?: number;
  /** The clock of the windows (tests move it); the fallback period runs on real time. */
  now?: () => number;
}

/** Compare-and-set rounds lost to other instances before this batch is decided by the fallback. */
const MAX_CAS_ROUNDS = 20;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const nanos = (ms: number) => Math.round(ms * 1_000_000);

interface Queue {
  key: string;
  rule: RateLimit;
  waiting: Array<(allowed: boolean) => void>;
}

class ContendedError extends Error {
  override readonly name = 'ContendedError';
}

export async function openNatsRateLimiter(options: NatsRateLimiterOptions): Promise<RateLimiter> {
  const streamName = options.streamName ?? 'MAS_LIMITS';
  const prefix = options.subjectsPrefix ?? 'mas';
  const maxWindowMs = options.maxWindowMs ?? 60_000;
  const timeoutMs = options.timeoutMs ?? 1_000;
  const fallbackMs = options.fallbackMs ?? 5_000;
  const now = options.now ?? Date.now;
  const log = options.logger.child({ component: 'natsRateLimiter' });
  const jsm = await jetstreamManager(options.nc, { timeout: timeoutMs });
  const js = jsm.jetstream();
  const ensure = () =>
    ensureStream(jsm, {
      name: streamName,
      subjects: [`${prefix}.limits.>`],
      max_age: nanos(2 * maxWindowMs + 10_000),
      num_replicas: options.replicas ?? 1,
    });
  await ensure();

  const fallback = createMemoryRateLimiter({ now });
  const queues = new Map<string, Queue>();
  let fallbackUntil = 0;
  let closed = false;

  const subjectOf = (key: string, rule: RateLimit, index: number) =>
    `${prefix}.limits.${rule.limit}_${rule.windowMs}.${Buffer.from(key).toString('base64url')}.${index}`;

  async function read(subject: string): Promise<{ count: number; seq: number }> {
    const stored = await jsm.streams.getMessage(streamName, { last_by_subj: subject });
    if (!stored) return { count: 0, seq: 0 };
    const count = Number(decoder.decode(stored.data));
    return { count: Number.isSafeInteger(count) && count > 0 ? count : 0, seq: stored.seq };
  }

  /** How many of `wanted` hits the shared counter grants now (0..wanted), recorded before resolving. */
  async function grant(key: string, rule: RateLimit, wanted: number): Promise<number> {
    for (let round = 0; round < MAX_CAS_ROUNDS; round++) {
      const { index, elapsed } = windowAt(now(), rule.windowMs);
      const subject = subjectOf(key, rule, index);
      const [current, previous] = await Promise.all([read(subject), read(subjectOf(key, rule, index - 1))]);
      const granted = Math.min(wanted, hitsAllowed(rule, previous.count, current.count, elapsed));
      if (granted === 0) return 0;
      try {
        await js.publish(subject, encoder.encode(String(current.count + granted)), {
          expect: { lastSubjectSequence: current.seq },
          timeout: timeoutMs,
        });
        return granted;
      } catch (err) {
        if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamWrongLastSequence) continue;
        throw err;
      }
    }
    throw new ContendedError(`the counter stayed contended for ${MAX_CAS_ROUNDS} rounds`);
  }

  function decideLocally(queue: Queue, count: number): number {
    let granted = 0;
    for (let i = 0; i < count; i++) if (fallback.takeNow(queue.key, queue.rule)) granted++;
    return granted;
  }

  async function drain(id: string, queue: Queue): Promise<void> {
    while (queue.waiting.length > 0) {
      const batch = queue.waiting.splice(0);
      let granted: number;
      if (closed || Date.now() < fallbackUntil) {
        granted = decideLocally(queue, batch.length);
      } else {
        try {
          granted = await grant(queue.key, queue.rule, batch.length).catch(async (err: unknown) => {
            // A memory stream is gone after a nats-server restart: make it again and retry once.
            if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
            await ensure();
            return grant(queue.key, queue.rule, batch.length);
          });
        } catch (err) {
          if (err instanceof ContendedError) log.warn({ err }, 'NATS rate-limit counter contended: this batch counted in this instance');
          else {
            fallbackUntil = Date.now() + fallbackMs;
            log.warn({ err, fallbackMs }, 'NATS rate-limit counters unavailable: counting in this instance meanwhile');
          }
          granted = decideLocally(queue, batch.length);
        }
      }
      batch.forEach((resolve, i) => resolve(i < granted));
    }
    queues.delete(id);
  }

  return {
    take(key, rule) {
      try {
        assertValidRateLimit(key, rule);
        if (rule.windowMs > maxWindowMs) throw new RangeError(`windowMs ${rule.windowMs} is longer than this limiter's maxWindowMs ${maxWindowMs}`);
      } catch (err) {
        return Promise.reject(err);
      }
      return new Promise<boolean>((resolve) => {
        const id = `${rule.limit}/${rule.windowMs}/${key}`;
        const queue = queues.get(id);
        if (queue) {
          queue.waiting.push(resolve);
          return;
        }
        const fresh: Queue = { key, rule, waiting: [resolve] };
        queues.set(id, fresh);
        void drain(id, fresh);
      });
    },
    async close() {
      closed = true;
      await fallback.close();
    },
  };
}

async function ensureStream(jsm: JetStreamManager, wanted: Pick<StreamConfig, 'name' | 'subjects' | 'max_age' | 'num_replicas'>): Promise<void> {
  const config: Partial<StreamConfig> & { name: string } = {
    ...wanted,
    storage: StorageType.Memory,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_msgs_per_subject: 1,
    // A flood of distinct keys (spoofed IPv6 addresses) drops the oldest counters rather than growing without bound.
    max_bytes: 64 * 1024 * 1024,
    // Nothing here uses message ids; the window may not exceed max_age.
    duplicate_window: nanos(1_000),
    description: 'Messaging Agent Service rate-limit counters (see src/infrastructure/nats/natsRateLimiter.ts)',
  };
  for (let attempt = 1; ; attempt++) {
    try {
      const info = await jsm.streams.info(wanted.name);
      const c = info.config;
      if (c.max_age !== config.max_age || c.max_msgs_per_subject !== 1 || c.max_bytes !== config.max_bytes || c.subjects.join() !== wanted.subjects.join()) {
        await jsm.streams.update(wanted.name, { ...c, ...config });
      }
      return;
    } catch (err) {
      if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) || attempt > 2) throw err;
      try {
        await jsm.streams.add(config);
        return;
      } catch (addErr) {
        // Another instance created it meanwhile: read it again.
        if (attempt > 2) throw addErr;
      }
    }
  }
}
