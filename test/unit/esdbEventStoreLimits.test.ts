import { describe, expect, it } from 'vitest';
import {
  BACKWARDS,
  END,
  MaxAppendSizeExceededError,
  START,
  WrongExpectedVersionError,
  type EventStoreDBClient,
  type ReadStreamOptions,
} from '@eventstore/db-client';
import { EsdbEventStore } from '../../src/infrastructure/eventstoredb/esdbEventStore.js';
import { DomainError } from '../../src/domain/errors.js';
import { WrongExpectedRevisionError } from '../../src/ports/errors.js';

// EventStoreDB never runs here (its contract suite runs in CI with EVENTSTORE_URL): these check what the adapter
// asks of the client, with a client that keeps one stream in memory and answers like the real one.

type Stored = { id: string; revision: bigint };

function fakeClient(stream: Stored[], appendError: Error) {
  const reads: ReadStreamOptions[] = [];
  const resolved = (e: Stored) => ({
    event: {
      id: e.id,
      streamId: 'conversation-1',
      type: 'MessageReceived',
      data: {},
      metadata: {},
      isJson: true,
      revision: e.revision,
      position: { commit: 1000n + e.revision, prepare: 1000n + e.revision },
      created: new Date(0),
    },
  });
  const client = {
    appendToStream: async () => {
      throw appendError;
    },
    readStream: (_name: string, options: ReadStreamOptions = {}) => {
      reads.push(options);
      const backwards = options.direction === BACKWARDS;
      const from = options.fromRevision === START || options.fromRevision === undefined ? (backwards ? END : 0n) : options.fromRevision;
      let window = backwards
        ? stream.filter((e) => from === END || e.revision <= (from as bigint)).reverse()
        : stream.filter((e) => e.revision >= (from as bigint));
      if (options.maxCount !== undefined) window = window.slice(0, Number(options.maxCount));
      return (async function* () {
        for (const e of window) yield resolved(e);
      })();
    },
  };
  return { client: client as unknown as EventStoreDBClient, reads };
}

/** Every append first reads the stream's last event (how a recognised retry is told apart): the reads after it are the conflict's. */
function conflictReads(reads: ReadStreamOptions[]): ReadStreamOptions[] {
  expect(reads[0]).toMatchObject({ fromRevision: END, direction: BACKWARDS, maxCount: 1n });
  return reads.slice(1);
}

const longStream = (n: number): Stored[] => Array.from({ length: n }, (_, i) => ({ id: `id-${i}`, revision: BigInt(i) }));
const newEvent = (id: string) => ({ id, type: 'MessageReceived', data: {} });
const conflict = (actual: bigint, expected: bigint) =>
  new WrongExpectedVersionError(undefined, { streamName: 'conversation-1', current: actual, expected });

describe('EventStoreDB adapter: what a conflict reads (issue 21, item 15)', () => {
  it('given a stream of 10,000 events, when a retry of events stored at revisions 3-4 conflicts, then it reads those two and answers the original append', async () => {
    const { client, reads } = fakeClient(longStream(10_000), conflict(9_999n, 2n));
    const store = new EsdbEventStore(client);

    const answer = await store.append('conversation-1', [newEvent('id-3'), newEvent('id-4')], 2n);

    expect(answer).toEqual({ nextRevision: 4n, position: 1004n, duplicate: true });
    expect(conflictReads(reads)).toHaveLength(1);
    expect(conflictReads(reads)[0]).toMatchObject({ fromRevision: 3n, maxCount: 2n });
  });

  it('given a long stream, when new events conflict, then it reads as many events as were appended and reports the conflict', async () => {
    const { client, reads } = fakeClient(longStream(10_000), conflict(9_999n, 9_000n));
    const store = new EsdbEventStore(client);

    await expect(store.append('conversation-1', [newEvent('new-1')], 9_000n)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(conflictReads(reads).map((r) => r.maxCount)).toEqual([1n]);
  });

  it('given an existing stream, when a "no stream" append of its first events is retried, then only the stream start is read', async () => {
    const { client, reads } = fakeClient(longStream(500), conflict(499n, -1n));
    const store = new EsdbEventStore(client);

    expect(await store.append('conversation-1', [newEvent('id-0')], 'no_stream')).toMatchObject({ nextRevision: 0n, duplicate: true });
    expect(conflictReads(reads)[0]).toMatchObject({ fromRevision: START, maxCount: 1n });
  });
});

describe('EventStoreDB adapter: an append over the server\'s maximum append size (issue 21, item 15)', () => {
  it('given the server refuses the append as too large, then the caller gets a 413-mapped PAYLOAD_TOO_LARGE, not an unmapped error', async () => {
    const { client } = fakeClient([], new MaxAppendSizeExceededError(undefined, 1_048_576));
    const store = new EsdbEventStore(client);

    const failure = await store.append('kbdoc-1', [newEvent('a')], 'no_stream').catch((err: unknown) => err);

    expect(failure).toBeInstanceOf(DomainError);
    expect(failure).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('1048576 bytes') });
  });
});
