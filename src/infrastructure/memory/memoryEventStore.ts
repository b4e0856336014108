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

export interface MemoryEventStoreOptions {
  /**
   * 'strict' (default): what SQLite keeps, event ids unique in the whole store and a retry recognised wherever
   * it lands. 'eventstoredb': only what EventStoreDB keeps, for the tests of everything that must happen exactly
   * once (charges, sends, deliveries), so code relying on the stronger guarantee fails here, not in production:
   * - an append at an exact expected revision (or 'no_stream') is recognised as a retry only when the stream
   *   already holds the same ids right after that revision (success, `duplicate: true`, nothing stored);
   *   at the stream's current revision the same ids are simply stored again;
   * - 'any' / 'stream_exists' recognise a retry only from a bounded cache of recently appended ids (the
   *   server's best effort), `recentIds` of them (default 1,000), and only in the same stream;
   * - nothing is unique across streams.
   */
  semantics?: 'strict' | 'eventstoredb';
  recentIds?: number;
}

/** For unit tests: the same semantics as the durable adapters (or, by option, EventStoreDB's weaker ones), held in memory. */
export class MemoryEventStore implements EventStore {
  private readonly all: RecordedEvent[] = [];
  private readonly streams = new Map<string, RecordedEvent[]>();
  private readonly appended = new EventEmitter().setMaxListeners(0);
  private readonly semantics: 'strict' | 'eventstoredb';
  private readonly recentIdLimit: number;
  /** EventStoreDB mode: the ids of the newest appended events, oldest first (the server's bounded cache). */
  private readonly recentIds = new Set<string>();

  constructor(options: MemoryEventStoreOptions = {}) {
    this.semantics = options.semantics ?? 'strict';
    this.recentIdLimit = options.recentIds ?? 1000;
  }

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const existing = this.streams.get(stream) ?? [];
    const current = existing.length === 0 ? null : BigInt(existing.length - 1);
    const retry = this.semantics === 'strict' ? findIdempotentRetry(existing, events) : this.esdbRetry(existing, events, expected);
    if (retry) return retry;
    checkExpectedRevision(stream, expected, current);
    if (events.length === 0) {
      return { nextRevision: current ?? -1n, position: this.all.at(-1)?.position ?? -1n };
    }
    const createdAt = new Date().toISOString();
    const list = existing.length ? existing : [];
    if (this.semantics === 'strict') {
      for (const e of events) {
        const stored = this.all.find((r) => r.id === e.id);
        if (stored) throw new EventIdConflictError(stream, String(expected), e.id, stored.stream);
      }
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
      this.remember(e.id);
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

  /**
   * EventStoreDB's idempotency check: at an exact expected revision the ids must follow that revision in the
   * stream; with 'any' / 'stream_exists' the ids must still be in the recent-ids cache. Otherwise the append
   * goes on to the revision check (and, at the current revision, stores the ids again).
   */
  private esdbRetry(existing: RecordedEvent[], events: NewEvent[], expected: ExpectedRevision): AppendResult | null {
    if (events.length === 0) return null;
    const after = expected === 'no_stream' ? -1n : typeof expected === 'bigint' ? expected : null;
    if (after === null) {
      if (!events.every((e) => this.recentIds.has(e.id))) return null;
      return findIdempotentRetry(existing, events);
    }
    if (BigInt(existing.length - 1) <= after) return null;
    const start = Number(after + 1n);
    const same = events.every((e, i) => existing[start + i]?.id === e.id);
    if (!same) return null;
    const last = existing[start + events.length - 1]!;
    return { nextRevision: last.revision, position: last.position, duplicate: true };
  }

  private remember(id: string): void {
    if (this.semantics !== 'eventstoredb') return;
    this.recentIds.delete(id);
    this.recentIds.add(id);
    if (this.recentIds.size > this.recentIdLimit) this.recentIds.delete(this.recentIds.values().next().value!);
  }
}

const clone = (e: RecordedEvent): RecordedEvent => ({ ...e, data: structuredClone(e.data), metadata: { ...e.metadata } });
