import { matchesFilter, type EventFilter, type EventStore, type RecordedEvent, type Subscription } from '../ports/eventStore.js';
import type { Logger } from '../ports/logger.js';

/**
 * Something that follows the event log with its own checkpoint: a projection, a reactor. The consumer reads
 * each event once and hands it to every processor that wants it; the processor decides what "done" means
 * (a read-store commit, a published job) and where it resumes.
 */
export interface EventProcessor {
  /** Names it in logs. */
  name: string;
  /** The events it handles; the others only move its position (they reach `handle` as `through`). Default: all. */
  filter?: EventFilter;
  /**
   * The last position it has handled (null: none), so the consumer feeds it from the next one. Called when it
   * is attached, after each failure and on restart(): the place to re-read a durable checkpoint.
   */
  resumeAfter(): Promise<bigint | null>;
  /**
   * Handles `events` (those matching the filter, in order, all after its position) and with them every position
   * up to `through`; `scanned` is how many events that range held as far as the consumer knows (a filtered
   * read only knows its matches). Rejecting means none of it counts: the consumer calls resumeAfter() again
   * after retryDelay(). Runs one call at a time per processor.
   */
  handle(events: RecordedEvent[], through: bigint, scanned: number): Promise<void>;
  /**
   * How long to wait before retrying after `err` (`attempt` counts from 1 and resets after a success); null
   * parks the processor until restart(). Default: 250 ms doubling up to 30 s.
   */
  retryDelay?(err: unknown, attempt: number): number | null;
}

export interface AttachedProcessor {
  /** Lets the current handle() finish, then resumes from resumeAfter(); wakes a parked or waiting processor. */
  restart(): void;
  /** Stops feeding it; resolves once its current handle() has finished. */
  detach(): Promise<void>;
}

export interface EventConsumerStats {
  /** Batches read by the shared subscription. */
  sharedBatches: number;
  /** Batches read by processors catching up on their own. */
  catchUpReads: number;
}

export interface EventConsumer {
  attach(processor: EventProcessor): AttachedProcessor;
  stats(): EventConsumerStats;
  /** Detaches every processor. */
  stop(): Promise<void>;
}

export interface EventConsumerOptions {
  eventStore: EventStore;
  logger: Logger;
  /** Events per read. Default 500. */
  batchSize?: number;
  /**
   * How long one processor may hold up the shared reading of the next batch: past it, the others go on and
   * it finishes, then catches up on its own. Default 1000 ms.
   */
  maxHoldMs?: number;
}

/**
 * One reader of the event log for many processors (Emmett's consumer/processor split). Processors that are
 * caught up are fed by a single shared subscription: each event is read and decoded once, then offered to
 * every one of them (filtered by its own types and position). A processor that is behind (just attached,
 * restarted on a rebuilt generation, recovering from a failure, too slow for a batch) reads on its own from
 * its position, with its own filter, until it reaches the shared cursor and joins it: a laggard never holds
 * the others back for more than `maxHoldMs`, and the shared read never waits for a backlog it does not need.
 */
export function createEventConsumer(options: EventConsumerOptions): EventConsumer {
  return new Consumer(options);
}

// --- internals ---------------------------------------------------------------------------------------------

/** Why a slot stopped being fed by the shared subscription. */
type Leave = 'failed' | 'slow' | 'restart' | 'detach';

interface Slot {
  processor: EventProcessor;
  log: Logger;
  /** Last position handled (what the next event must be after). */
  position: bigint | null;
  detached: boolean;
  restartRequested: boolean;
  /** The handle() call the shared feed made, if any; settles with its error (or null). */
  busy: Promise<unknown> | null;
  /** Set while the slot is fed by the shared subscription: resolves when it leaves. */
  leave: ((reason: Leave) => void) | null;
  /** Interrupts a wait (retry delay, parking). */
  wake: (() => void) | null;
  done: Promise<void>;
}

const defaultRetryDelay = (_err: unknown, attempt: number) => Math.min(30_000, 250 * 2 ** (attempt - 1));
const before = (a: bigint | null, b: bigint | null) => b !== null && (a === null || a < b);

class Consumer implements EventConsumer {
  private readonly batchSize: number;
  private readonly maxHoldMs: number;
  private readonly members = new Set<Slot>();
  /** Caught-up slots waiting for the batch in delivery to end before they join. */
  private readonly joining = new Set<Slot>();
  private readonly slots = new Set<Slot>();
  private subscription: Subscription | null = null;
  /** Position the shared subscription has delivered through (its members are all at or past it). */
  private cursor: bigint | null = null;
  private delivering = false;
  private readonly counters: EventConsumerStats = { sharedBatches: 0, catchUpReads: 0 };

  constructor(private readonly options: EventConsumerOptions) {
    this.batchSize = options.batchSize ?? 500;
    this.maxHoldMs = options.maxHoldMs ?? 1000;
  }

  attach(processor: EventProcessor): AttachedProcessor {
    const slot: Slot = {
      processor,
      log: this.options.logger.child({ processor: processor.name }),
      position: null,
      detached: false,
      restartRequested: false,
      busy: null,
      leave: null,
      wake: null,
      done: Promise.resolve(),
    };
    this.slots.add(slot);
    slot.done = this.drive(slot);
    return {
      restart: () => {
        if (slot.detached) return;
        slot.restartRequested = true;
        this.leaveShared(slot, 'restart');
        slot.wake?.();
      },
      detach: async () => {
        slot.detached = true;
        this.leaveShared(slot, 'detach');
        slot.wake?.();
        await slot.done;
        this.slots.delete(slot);
      },
    };
  }

  stats(): EventConsumerStats {
    return { ...this.counters };
  }

  async stop(): Promise<void> {
    for (const slot of this.slots) {
      slot.detached = true;
      this.leaveShared(slot, 'detach');
      slot.wake?.();
    }
    await Promise.all([...this.slots].map((s) => s.done));
    this.slots.clear();
    await this.stopSubscription();
  }

  // --- one processor ---------------------------------------------------------------------------------------

  private async drive(slot: Slot): Promise<void> {
    const { processor } = slot;
    let attempt = 0;
    while (!slot.detached) {
      try {
        slot.restartRequested = false;
        slot.position = await processor.resumeAfter();
        while (!slot.detached && !slot.restartRequested) {
          const joined = this.tryJoin(slot);
          if (joined) {
            const reason = await joined;
            const error = await slot.busy; // the batch it was handling when it left, if any
            slot.busy = null;
            if (reason === 'failed' || (reason === 'slow' && error !== null)) throw error;
            attempt = 0;
            continue; // slow: catch up alone; restart/detach: the loop conditions end it
          }
          const { events, through } = await this.readAlone(slot.position, processor.filter);
          if (slot.detached || slot.restartRequested) break;
          if (through === null || !before(slot.position, through)) {
            // At the head. Behind the shared cursor only when that came from a checkpoint past the head (another
            // event store?): wait for the log to get there rather than spin.
            if (this.subscription && before(slot.position, this.cursor)) await this.pause(slot, 100);
            continue;
          }
          await processor.handle(events, through, events.length);
          slot.position = through;
          attempt = 0;
        }
      } catch (err) {
        if (slot.detached) break;
        attempt++;
        const delay = (processor.retryDelay ?? defaultRetryDelay)(err, attempt);
        if (delay === null) {
          slot.log.warn({ err }, 'event processor parked until restarted');
          while (!slot.detached && !slot.restartRequested) await this.pause(slot, null);
        } else {
          // 0: an expected restart the processor asked for (another processor got there first, a new generation).
          slot.log[delay === 0 ? 'debug' : 'warn']({ err, retryInMs: delay }, 'event processor failed; it resumes from its checkpoint');
          await this.pause(slot, delay);
        }
      }
    }
  }

  private pause(slot: Slot, ms: number | null): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === null ? undefined : setTimeout(() => done(), ms);
      const done = () => {
        clearTimeout(timer);
        slot.wake = null;
        resolve();
      };
      slot.wake = done;
    });
  }

  /** One batch from `after` with the processor's own filter, and how far it reaches. */
  private async readAlone(after: bigint | null, filter: EventFilter | undefined): Promise<{ events: RecordedEvent[]; through: bigint | null }> {
    const { eventStore } = this.options;
    this.counters.catchUpReads++;
    if (!filter) {
      const events = await eventStore.readAll({ after, maxCount: this.batchSize });
      return { events, through: events.at(-1)?.position ?? after };
    }
    // A filtered read says nothing about the events it passed over: the head read first bounds what it saw.
    const head = await eventStore.headPosition();
    const events = await eventStore.readAll({ after, maxCount: this.batchSize, filter });
    const last = events.at(-1)?.position ?? null;
    if (events.length === this.batchSize) return { events, through: last };
    return { events, through: before(head, last) ? last : head };
  }

  // --- the shared subscription ------------------------------------------------------------------------------

  /** Joins the shared feed when the slot has caught up with it; the promise resolves when it leaves. */
  private tryJoin(slot: Slot): Promise<Leave> | null {
    if (this.subscription && before(slot.position, this.cursor)) return null;
    const left = new Promise<Leave>((resolve) => {
      slot.leave = (reason) => {
        slot.leave = null;
        this.members.delete(slot);
        this.joining.delete(slot);
        resolve(reason);
      };
    });
    if (!this.subscription) {
      this.cursor = slot.position;
      this.members.add(slot);
      this.startSubscription();
    } else if (this.delivering) {
      this.joining.add(slot); // admitted (or sent back) when the batch in delivery has moved the cursor
    } else {
      this.members.add(slot);
    }
    return left;
  }

  private leaveShared(slot: Slot, reason: Leave): void {
    slot.leave?.(reason);
    if (this.members.size === 0 && this.joining.size === 0 && !this.delivering) void this.stopSubscription();
  }

  private startSubscription(attempt = 0): void {
    const subscription: Subscription = this.options.eventStore.subscribe(
      {
        after: this.cursor,
        batchSize: this.batchSize,
        onError: (err) => {
          if (this.subscription !== subscription) return;
          this.subscription = null;
          const delay = Math.min(30_000, 250 * 2 ** attempt);
          this.options.logger.error({ err, retryInMs: delay }, 'shared event subscription failed; its processors catch up on their own');
          // Its members read alone (with their usual retries) and start a new one when they are caught up.
          for (const slot of [...this.members, ...this.joining]) slot.leave?.('slow');
        },
      },
      async (events) => {
        if (this.subscription !== subscription) return;
        await this.deliver(events);
        attempt = 0;
      },
    );
    this.subscription = subscription;
  }

  private async stopSubscription(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = null;
    this.cursor = null;
    await subscription?.stop();
  }

  private async deliver(events: RecordedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const through = events.at(-1)!.position;
    this.counters.sharedBatches++;
    this.delivering = true;
    try {
      const handled: Promise<unknown>[] = [];
      const held = new Set<Slot>();
      for (const slot of [...this.members]) {
        if (!before(slot.position, through)) continue;
        const unseen = before(slot.position, events[0]!.position) ? events : events.filter((e) => before(slot.position, e.position));
        const filter = slot.processor.filter;
        const mine = filter ? unseen.filter((e) => matchesFilter(e, filter)) : unseen;
        const work = slot.processor.handle(mine, through, unseen.length).then(
          () => {
            slot.position = through;
            held.delete(slot);
            return null;
          },
          (error: unknown) => {
            held.delete(slot);
            slot.leave?.('failed');
            return error;
          },
        );
        slot.busy = work;
        held.add(slot);
        handled.push(work);
      }
      if (handled.length > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(handled), new Promise<void>((resolve) => (timer = setTimeout(resolve, this.maxHoldMs)))]);
        clearTimeout(timer);
        for (const slot of held) {
          if (!slot.leave) continue; // detached or restarted meanwhile
          slot.log.info({ through: String(through), maxHoldMs: this.maxHoldMs }, 'event processor is slower than the others; it catches up on its own');
          slot.leave('slow');
        }
      }
      this.cursor = through;
      for (const slot of [...this.joining]) {
        this.joining.delete(slot);
        if (before(slot.position, this.cursor)) slot.leave?.('slow'); // fell behind meanwhile: read alone again
        else this.members.add(slot);
      }
    } finally {
      this.delivering = false;
    }
    if (this.members.size === 0 && this.joining.size === 0) void this.stopSubscription();
  }
}
