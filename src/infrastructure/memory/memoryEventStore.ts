import { EventEmitter } from 'node:events';
import {
  matchesFilter,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from '../../ports/eventStore.js';
import { EventIdConflictError } from '../../ports/errors.js';
import { checkExpectedRevision, findIdempotentRetry, pollingSubscription, streamWindow } from '../eventStoreSupport.js';

/** For unit tests: the same semantics as the durable adapters, held in memory. */
export class MemoryEventStore implements EventStore {
  private readonly all: RecordedEvent[] = [];
  private readonly streams = new Map<string, RecordedEvent[]>();
  private readonly appended = new EventEmitter().setMaxListeners(0);

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const existing = this.streams.get(stream) ?? [];
    const retry = findIdempotentRetry(existing, events);
    if (retry) return retry;
    const current = existing.length === 0 ? null : BigInt(existing.length - 1);
    checkExpectedRevision(stream, expected, current);
    if (events.length === 0) {
      return { nextRevision: current ?? -1n, position: this.all.at(-1)?.position ?? -1n };
    }
    const createdAt = new Date().toISOString();
    const list = existing.length ? existing : [];
    for (const e of events) {
      const stored = this.all.find((r) => r.id === e.id);
      if (stored) throw new EventIdConflictError(stream, String(expected), e.id, stored.stream);
    }
    for (const e of events) {
      const recorded: RecordedEvent = {
        id: e.id,
        stream,
        type: e.type,
        data: structuredClone(e.data),
        metadata: { ...(e.metadata ?? {}) },
        revision: BigInt(list.length),
        position: BigInt(this.all.length),
        createdAt,
      };
      list.push(recorded);
      this.all.push(recorded);
    }
    this.streams.set(stream, list);
    this.appended.emit('appended');
    const last = list.at(-1)!;
    return { nextRevision: last.revision, position: last.position };
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return streamWindow(this.streams.get(stream) ?? [], options).map(clone);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? -1n;
    const out: RecordedEvent[] = [];
    for (let i = Number(after + 1n); i < this.all.length; i++) {
      const e = this.all[i]!;
      if (!matchesFilter(e, options.filter)) continue;
      out.push(clone(e));
      if (options.maxCount !== undefined && out.length >= options.maxCount) break;
    }
    return out;
  }

  subscribe(options: SubscribeOptions, handler: (events: RecordedEvent[]) => Promise<void>): Subscription {
    return pollingSubscription(this, this.appended, options, handler);
  }

  async headPosition(): Promise<bigint | null> {
    return this.all.at(-1)?.position ?? null;
  }

  async close(): Promise<void> {}
}

const clone = (e: RecordedEvent): RecordedEvent => ({ ...e, data: structuredClone(e.data), metadata: { ...e.metadata } });
