import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { eventCatalog } from '../../src/domain/catalog.js';
import { MemoryEventStore } from '../../src/infrastructure/memory/memoryEventStore.js';
import { SqliteReadStore } from '../../src/infrastructure/sqlite/sqliteReadStore.js';
import { validatingEventStore } from '../../src/infrastructure/validatingEventStore.js';
import type { EventMetadata } from '../../src/ports/eventStore.js';
import type { Logger } from '../../src/ports/logger.js';
import type { Doc, Page, ReadStore } from '../../src/ports/readStore.js';
import type { Projection, RecordedEventOf } from '../../src/projections/projection.js';
import { rebuildProjections } from '../../src/processing/projectionRunner.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

type Catalog = typeof eventCatalog;
/** An event as a command would have appended it: checked against the real catalog when given. */
export type GivenEvent = { stream: string; id?: string; metadata?: EventMetadata } & Pick<RecordedEventOf<Catalog>, 'type' | 'data'>;

/** `given` events appended in order, each to its stream. */
export const recorded = <T extends keyof Catalog & string>(stream: string, type: T, data: RecordedEventOf<Catalog, T>['data'], extra: { id?: string; metadata?: EventMetadata } = {}): GivenEvent =>
  ({ stream, type, data, ...extra }) as GivenEvent;

/** Documents in id order (Array.prototype.sort comparator). */
export const byId = (a: Doc, b: Doc) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Every document of `collection`, page by page, in the store's order. */
export async function allDocs(store: ReadStore, collection: string): Promise<Doc[]> {
  const out: Doc[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<Doc> = await store.find(collection, { limit: 1000, cursor });
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/**
 * given(events) → then(documents) for one projection, against the SQLite read store in memory. The events go
 * through the validating event store (so they must match their schemas) and the runner's own apply path; the
 * projection runs twice, one event per batch and all in one batch, and must leave the same documents.
 */
export function projectionSpec(projection: Projection) {
  return {
    given(events: GivenEvent[]) {
      return {
        /** Each listed collection holds exactly these documents, in any order; unlisted ones are not checked. */
        async then(expected: Record<string, Doc[]>): Promise<void> {
          const eventStore = validatingEventStore(new MemoryEventStore(), eventCatalog);
          for (const e of events) {
            await eventStore.append(e.stream, [{ id: e.id ?? randomUUID(), type: e.type, data: e.data, ...(e.metadata ? { metadata: e.metadata } : {}) }], 'any');
          }
          for (const batchSize of [1, 500]) {
            const readStore = SqliteReadStore.open({ path: ':memory:' });
            try {
              await rebuildProjections({ eventStore, readStore, projections: [projection], logger: silent, batchSize });
              for (const [collection, docs] of Object.entries(expected)) {
                const actual = await allDocs(readStore, collection);
                const what = `${collection} (batches of ${batchSize})`;
                expect(actual, what).toHaveLength(docs.length);
                // Plain documents compare in id order; with matchers (no id to sort by) order does not matter.
                if (docs.every((d) => typeof d.id === 'string')) expect(actual.sort(byId), what).toEqual([...docs].sort(byId));
                else expect(actual, what).toEqual(expect.arrayContaining(docs));
              }
            } finally {
              await readStore.close();
            }
          }
        },
      };
    },
  };
}
