import { randomUUID } from 'node:crypto';
import { WrongExpectedVersionError, type EventStoreDBClient } from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';
import { EsdbEventStore } from '../../src/infrastructure/eventstoredb/esdbEventStore.js';
import { MemoryEventStore } from '../../src/infrastructure/memory/memoryEventStore.js';
import { WrongExpectedRevisionError } from '../../src/ports/errors.js';
import type { ExpectedRevision } from '../../src/ports/eventStore.js';

/**
 * The EventStoreDB adapter against a stand-in for the server (the real one runs the contract suite in CI): appends
 * and stream reads answered as @eventstore/db-client 6 answers them, over a store with EventStoreDB's semantics.
 * The server answers a retry it recognises exactly like the original append (success, the original revision and
 * position, no flag), which the adapter must report as `duplicate: true`.
 */
function serverStandIn() {
  const log = new MemoryEventStore({ semantics: 'eventstoredb' });
  let appends = 0;
  const client = {
    async appendToStream(stream: string, events: { id: string; type: string; data: unknown; metadata?: unknown }[], options: { expectedRevision: ExpectedRevision }) {
      appends++;
      try {
        const r = await log.append(stream, events.map((e) => ({ id: e.id, type: e.type, data: e.data })), options.expectedRevision);
        return { success: true, nextExpectedRevision: r.nextRevision, position: { commit: r.position, prepare: r.position } };
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
        throw new WrongExpectedVersionError(undefined, { streamName: stream, current: 'no_stream', expected: options.expectedRevision } as never);
      }
    },
    readStream(stream: string, options: { fromRevision: bigint | 'start' | 'end'; direction: 'forwards' | 'backwards'; maxCount?: bigint }) {
      return (async function* () {
        const events = await log.readStream(stream, {
          direction: options.direction,
          ...(typeof options.fromRevision === 'bigint' ? { fromRevision: options.fromRevision } : {}),
          ...(options.maxCount !== undefined ? { maxCount: Number(options.maxCount) } : {}),
        });
        for (const e of events) {
          yield {
            event: { id: e.id, streamId: e.stream, type: e.type, data: e.data, metadata: {}, revision: e.revision, isJson: true, created: new Date(e.createdAt), position: { commit: e.position, prepare: e.position } },
          };
        }
      })();
    },
    dispose: async () => {},
  };
  return { store: new EsdbEventStore(client as unknown as EventStoreDBClient), appends: () => appends };
}

const ev = () => ({ id: randomUUID(), type: 'Charged', data: { n: 1 } });

describe('EsdbEventStore: a retry the server recognises is reported as a duplicate', () => {
  it('given events appended, when retried at the same expected revision, then duplicate with the original revision and position', async () => {
    const { store } = serverStandIn();
    await store.append('s', [ev()], 'no_stream');
    const events = [ev(), ev()];
    const original = await store.append('s', events, 0n);
    expect(original).toEqual({ nextRevision: 2n, position: original.position });
    expect(await store.append('s', events, 0n)).toEqual({ ...original, duplicate: true });
  });

  it('given the stream moved on since, when retried at the original expected revision, then still the original answer and nothing stored', async () => {
    const { store } = serverStandIn();
    const first = [ev()];
    const original = await store.append('s', first, 'no_stream');
    await store.append('s', [ev()], 0n);
    await store.append('other', [ev()], 'no_stream');
    expect(await store.append('s', first, 'no_stream')).toEqual({ ...original, duplicate: true });
    expect((await store.readStream('s')).map((e) => e.revision)).toEqual([0n, 1n]);
  });

  it('a new append is not a duplicate, whatever its expected revision', async () => {
    const { store } = serverStandIn();
    expect((await store.append('s', [ev()], 'no_stream')).duplicate).toBeUndefined();
    expect((await store.append('s', [ev()], 'any')).duplicate).toBeUndefined();
    expect((await store.append('s', [ev(), ev()], 1n)).duplicate).toBeUndefined();
  });
});
