import { BroadcastChannel } from 'node:worker_threads';
/**
 * The embedded Bus (no server): work queues held in this process's memory, with the same observable
 * semantics as the NATS JetStream adapter, so both pass test/contract/busContract.ts.
 *
 * - Payloads are copied through JSON on publish and parsed afresh for every delivery (as over the wire):
 *   handlers cannot mutate the publisher's object, and Dates arrive as strings.
 * - Dedupe: a (subject, dedupeId) seen within `dedupeWindowMs` (default 2 min, JetStream's default duplicate
 *   window) is dropped.
 * - One queue per (subject, durable). Every durable of a subject gets every message; subscribe() calls with
 *   the same durable (on this handle or on another handle from connectInstance()) compete: each message goes
 *   to one of them, round-robin among those with a free `concurrency` slot.
 * - A queue outlives its subscribers: messages published while a durable has no subscriber wait for the next
 *   subscribe() with that durable. Messages published to a subject that has never had a durable are held (up
 *   to `maxUnclaimedPerSubject`, oldest dropped with an error log) and handed to the first durable created.
 *   (JetStream differs here: a new durable there reads the whole retained stream.)
 * - A handler throw → redelivery after `redeliveryDelayMs(backoffMs, deliveryCount)`; the throw on delivery
 *   `maxDeliver` instead publishes a DeadLetter on `dead.<subject>` (dedupeId `<durable>:<dedupeId>`).
 * - Nothing survives the process: close() (of the last handle) cancels pending redelivery timers, so messages
 *   waiting for a retry are dropped with a warning.
 */
import {
  BusClosedError,
  deadLetterSubject,
  type Bus,
  type BusHandler,
  type BusMessage,
  type BusSubscription,
  type DeadLetter,
  type PublishOptions,
  type SubscribeOptions,
} from '../../ports/bus.js';
import { assertValidSubject, handlerErrorMessage, redeliveryDelayMs, resolveSubscribeOptions } from '../bus/delivery.js';
import { silentLogger, type Logger } from '../../ports/logger.js';

export interface InProcessBusOptions {
  logger?: Logger;
  /** Default 120 000 ms. */
  dedupeWindowMs?: number;
  /** Messages held for a subject that has no durable yet. Default 10 000. */
  maxUnclaimedPerSubject?: number;
  /**
   * Name of a BroadcastChannel shared with the other threads of this process: broadcasts (web chat pushes,
   * typing) then reach listeners on every thread, e.g. a reply sent by the processor thread reaches the socket
   * held by the HTTP thread. Jobs stay on the thread that published them.
   */
  threadChannel?: string;
}

interface StoredMessage {
  subject: string;
  payload: string;
  dedupeId: string;
}

interface Entry {
  message: StoredMessage;
  deliveries: number;
}

interface Worker {
  readonly queue: DurableQueue;
  readonly owner: InProcessBus;
  readonly concurrency: number;
  readonly handler: BusHandler<unknown>;
  readonly running: Set<Promise<void>>;
  stopped: boolean;
}

interface DurableQueue {
  readonly subject: string;
  readonly durable: string;
  readonly ready: Entry[];
  readonly workers: Worker[];
  next: number;
  maxDeliver: number;
  backoffMs: readonly number[];
}

interface SubjectState {
  readonly durables: Map<string, DurableQueue>;
  unclaimed: StoredMessage[];
}

interface Listener {
  readonly owner: InProcessBus;
  readonly handler: (data: unknown) => void;
}

/** Shared state of all handles: the queues, dedupe table, redelivery timers and broadcast listeners. */
class InProcessBroker {
  readonly log: Logger;
  private readonly dedupeWindowMs: number;
  private readonly maxUnclaimed: number;
  private readonly subjects = new Map<string, SubjectState>();
  /** key → expiry (ms); insertion order is expiry order, since the window is fixed. */
  private readonly seen = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly listeners = new Map<string, Set<Listener>>();
  readonly handles = new Set<InProcessBus>();
  closed = false;

  private readonly channel: BroadcastChannel | null;

  constructor(options: InProcessBusOptions) {
    this.log = (options.logger ?? silentLogger).child({ component: 'inProcessBus' });
    this.channel = options.threadChannel ? new BroadcastChannel(options.threadChannel) : null;
    if (this.channel) {
      (this.channel as unknown as { unref(): void }).unref();
      this.channel.onmessage = (event) => {
        const { subject, payload } = (event as unknown as { data: { subject: string; payload: string } }).data;
        this.deliverLocally(subject, payload);
      };
    }
    this.dedupeWindowMs = options.dedupeWindowMs ?? 120_000;
    this.maxUnclaimed = options.maxUnclaimedPerSubject ?? 10_000;
  }

  publish(subject: string, payload: string, dedupeId: string): void {
    const now = Date.now();
    for (const [key, expiresAt] of this.seen) {
      if (expiresAt > now) break;
      this.seen.delete(key);
    }
    const key = `${subject}\u0000${dedupeId}`;
    if (this.seen.has(key)) {
      this.log.debug({ subject, dedupeId }, 'duplicate publish dropped');
      return;
    }
    this.seen.set(key, now + this.dedupeWindowMs);
    const message: StoredMessage = { subject, payload, dedupeId };
    const state = this.subject(subject);
    if (state.durables.size === 0) {
      state.unclaimed.push(message);
      if (state.unclaimed.length > this.maxUnclaimed) {
        const dropped = state.unclaimed.shift();
        this.log.error(
          { subject, dedupeId: dropped?.dedupeId, limit: this.maxUnclaimed },
          'no durable has ever subscribed to this subject: oldest held message dropped',
        );
      }
      return;
    }
    for (const queue of state.durables.values()) {
      queue.ready.push({ message, deliveries: 0 });
      this.pump(queue);
    }
  }

  addWorker(
    owner: InProcessBus,
    subject: string,
    options: ReturnType<typeof resolveSubscribeOptions>,
    handler: BusHandler<unknown>,
  ): Worker {
    const state = this.subject(subject);
    let queue = state.durables.get(options.durable);
    if (!queue) {
      queue = {
        subject,
        durable: options.durable,
        ready: [],
        workers: [],
        next: 0,
        maxDeliver: options.maxDeliver,
        backoffMs: options.backoffMs,
      };
      if (state.durables.size === 0) {
        for (const message of state.unclaimed) queue.ready.push({ message, deliveries: 0 });
        state.unclaimed = [];
      }
      state.durables.set(options.durable, queue);
    }
    // Like a JetStream consumer update: the latest subscribe() sets the durable's retry policy.
    queue.maxDeliver = options.maxDeliver;
    queue.backoffMs = options.backoffMs;
    const worker: Worker = {
      queue,
      owner,
      concurrency: options.concurrency,
      handler,
      running: new Set(),
      stopped: false,
    };
    queue.workers.push(worker);
    this.pump(queue);
    return worker;
  }

  async removeWorker(worker: Worker): Promise<void> {
    if (!worker.stopped) {
      worker.stopped = true;
      const index = worker.queue.workers.indexOf(worker);
      if (index >= 0) worker.queue.workers.splice(index, 1);
    }
    await Promise.allSettled([...worker.running]);
  }

  addListener(subject: string, listener: Listener): () => void {
    let set = this.listeners.get(subject);
    if (!set) {
      set = new Set();
      this.listeners.set(subject, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(subject) === set) this.listeners.delete(subject);
    };
  }

  broadcast(subject: string, payload: string): void {
    this.channel?.postMessage({ subject, payload });
    this.deliverLocally(subject, payload);
  }

  private deliverLocally(subject: string, payload: string): void {
    const set = this.listeners.get(subject);
    if (!set) return;
    for (const listener of set) {
      setImmediate(() => {
        if (listener.owner.closedFlag) return;
        try {
          listener.handler(JSON.parse(payload));
        } catch (err) {
          this.log.error({ err, subject }, 'broadcast listener threw; notification lost for this listener');
        }
      });
    }
  }

  shutdown(): void {
    this.closed = true;
    this.channel?.close();
    let dropped = 0;
    for (const timer of this.timers) {
      clearTimeout(timer);
      dropped++;
    }
    this.timers.clear();
    if (dropped > 0) this.log.warn({ dropped }, 'bus closed: messages waiting for a redelivery were dropped');
  }

  private subject(subject: string): SubjectState {
    let state = this.subjects.get(subject);
    if (!state) {
      state = { durables: new Map(), unclaimed: [] };
      this.subjects.set(subject, state);
    }
    return state;
  }

  private pickWorker(queue: DurableQueue): Worker | undefined {
    const count = queue.workers.length;
    for (let i = 0; i < count; i++) {
      const index = (queue.next + i) % count;
      const worker = queue.workers[index];
      if (worker && !worker.stopped && worker.running.size < worker.concurrency) {
        queue.next = (index + 1) % count;
        return worker;
      }
    }
    return undefined;
  }

  private pump(queue: DurableQueue): void {
    if (this.closed) return;
    while (queue.ready.length > 0) {
      const worker = this.pickWorker(queue);
      if (!worker) return;
      const entry = queue.ready.shift();
      if (entry) this.deliver(worker, entry);
    }
  }

  private deliver(worker: Worker, entry: Entry): void {
    const { queue } = worker;
    entry.deliveries += 1;
    const { message } = entry;
    const run = (async () => {
      await Promise.resolve(); // never run a handler inside publish()/subscribe()
      const busMessage: BusMessage<unknown> = {
        subject: message.subject,
        data: JSON.parse(message.payload),
        deliveryCount: entry.deliveries,
        dedupeId: message.dedupeId,
      };
      try {
        await worker.handler(busMessage);
      } catch (err) {
        this.failed(queue, entry, err);
      }
    })();
    worker.running.add(run);
    void run.finally(() => {
      worker.running.delete(run);
      this.pump(queue);
    });
  }

  private failed(queue: DurableQueue, entry: Entry, err: unknown): void {
    const { message } = entry;
    const context = { subject: queue.subject, durable: queue.durable, dedupeId: message.dedupeId, deliveryCount: entry.deliveries };
    if (entry.deliveries >= queue.maxDeliver) {
      this.log.error({ ...context, err }, 'handler failed on its last allowed delivery: message dead-lettered');
      const deadLetter: DeadLetter = {
        subject: message.subject,
        durable: queue.durable,
        data: JSON.parse(message.payload),
        dedupeId: message.dedupeId,
        error: handlerErrorMessage(err),
        deliveryCount: entry.deliveries,
        deadAt: new Date().toISOString(),
      };
      this.publish(deadLetterSubject(message.subject), JSON.stringify(deadLetter), `${queue.durable}:${message.dedupeId}`);
      return;
    }
    if (this.closed) {
      this.log.warn({ ...context, err }, 'handler failed while the bus was closing: message dropped');
      return;
    }
    const delay = redeliveryDelayMs(queue.backoffMs, entry.deliveries);
    this.log.warn({ ...context, err, retryInMs: delay }, 'handler failed: message will be redelivered');
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      queue.ready.push(entry);
      this.pump(queue);
    }, delay);
    this.timers.add(timer);
  }
}

/** One "instance" on the in-process bus; connectInstance() gives another one sharing the same queues. */
export class InProcessBus implements Bus {
  private readonly workers = new Set<Worker>();
  private readonly unlisteners = new Set<() => void>();
  /** @internal */
  closedFlag = false;

  constructor(private readonly broker: InProcessBroker) {
    broker.handles.add(this);
  }

  /** Another handle on the same queues, as a second process would be on a shared NATS. */
  connectInstance(): InProcessBus {
    if (this.broker.closed) throw new BusClosedError();
    return new InProcessBus(this.broker);
  }

  async publish<T>(subject: string, data: T, options: PublishOptions): Promise<void> {
    this.assertOpen();
    assertValidSubject(subject);
    if (!options.dedupeId) throw new RangeError('publish needs a non-empty dedupeId');
    this.broker.publish(subject, JSON.stringify(data ?? null), options.dedupeId);
  }

  async subscribe<T>(subject: string, options: SubscribeOptions, handler: BusHandler<T>): Promise<BusSubscription> {
    this.assertOpen();
    const resolved = resolveSubscribeOptions(subject, options);
    const worker = this.broker.addWorker(this, subject, resolved, handler as BusHandler<unknown>);
    this.workers.add(worker);
    return {
      stop: async () => {
        this.workers.delete(worker);
        await this.broker.removeWorker(worker);
      },
    };
  }

  async broadcast<T>(subject: string, data: T): Promise<void> {
    this.assertOpen();
    assertValidSubject(subject);
    this.broker.broadcast(subject, JSON.stringify(data ?? null));
  }

  async listen<T>(subject: string, handler: (data: T) => void): Promise<BusSubscription> {
    this.assertOpen();
    assertValidSubject(subject);
    const remove = this.broker.addListener(subject, { owner: this, handler: handler as (data: unknown) => void });
    this.unlisteners.add(remove);
    return {
      stop: async () => {
        this.unlisteners.delete(remove);
        remove();
      },
    };
  }

  isConnected(): boolean {
    return !this.closedFlag;
  }

  async close(): Promise<void> {
    if (this.closedFlag) return;
    this.closedFlag = true;
    for (const remove of this.unlisteners) remove();
    this.unlisteners.clear();
    const workers = [...this.workers];
    this.workers.clear();
    await Promise.all(workers.map((w) => this.broker.removeWorker(w)));
    this.broker.handles.delete(this);
    if (this.broker.handles.size === 0) this.broker.shutdown();
  }

  private assertOpen(): void {
    if (this.closedFlag || this.broker.closed) throw new BusClosedError();
  }
}

export function createInProcessBus(options: InProcessBusOptions = {}): InProcessBus {
  return new InProcessBus(new InProcessBroker(options));
}
