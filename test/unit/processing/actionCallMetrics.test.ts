import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { eventCatalog } from '../../../src/domain/catalog.js';
import { MemoryEventStore } from '../../../src/infrastructure/memory/memoryEventStore.js';
import { SqliteReadStore } from '../../../src/infrastructure/sqlite/sqliteReadStore.js';
import { validatingEventStore } from '../../../src/infrastructure/validatingEventStore.js';
import type { Logger } from '../../../src/ports/logger.js';
import type { ActionCallOutcome } from '../../../src/ports/metrics.js';
import { watchActionCallMetrics } from '../../../src/processing/actionCallMetrics.js';
import { createEventConsumer, type EventConsumer } from '../../../src/processing/eventConsumer.js';
import { ACTION_CALLS, actionCallsProjection } from '../../../src/projections/actionCalls/actionCallsProjection.js';
import { eventually } from '../../support/eventually.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
const company = randomUUID();
const conversation = randomUUID();
const stream = `conversation-${conversation}`;
const lookup = randomUUID();
const at = '2026-03-10T10:00:00.000Z';
const requested = (callId: string) => ({ id: randomUUID(), type: 'ActionCallRequested', data: { callId, replyId: randomUUID(), actionId: lookup, actionName: 'order_status', mode: 'approve', arguments: {}, at } });

let consumer: EventConsumer | null = null;
let stop: (() => Promise<void>) | null = null;
afterEach(async () => {
  await stop?.();
  await consumer?.stop();
});

describe('action call metrics from the recorded events', () => {
  it('given calls requested before the process started and after, when they end, then each is counted once by its action (an old one through the action log)', async () => {
    const eventStore = validatingEventStore(new MemoryEventStore(), eventCatalog);
    const readStore = SqliteReadStore.open({ path: ':memory:' });
    await readStore.ensureCollections(actionCallsProjection.collections);
    const [old, fresh, last] = [randomUUID(), randomUUID(), randomUUID()];
    await eventStore.append(stream, [{ id: randomUUID(), type: 'ConversationStarted', data: { conversationId: conversation, companyId: company, integrationId: 1, connectorType: 'msgplatform', customer: { clientId: 'c', channelId: null, transport: 'telegram' }, stageId: null, at } }, requested(old)], 'any');
    // The log has the old call (the projection ran before this process started).
    const done = await eventStore.append(`conversation-${randomUUID()}`, [{ id: randomUUID(), type: 'ActionCallRefused', data: { callId: randomUUID(), by: 'x', reason: null, at } }], 'any');
    await readStore.commit('actionCalls', [{ kind: 'put', collection: ACTION_CALLS, doc: { id: old, companyId: company, actionId: lookup } }], done.position);

    const counted: [string, ActionCallOutcome, number | null][] = [];
    consumer = createEventConsumer({ eventStore, logger: silent });
    stop = await watchActionCallMetrics({ consumer, eventStore, readStore, logger: silent, metrics: { callEnded: (...args) => void counted.push(args) } });
    await eventStore.append(stream, [
      requested(fresh),
      { id: randomUUID(), type: 'ActionCallApproved', data: { callId: fresh, by: 'u', at } },
      { id: randomUUID(), type: 'ActionCallSucceeded', data: { callId: fresh, status: 200, durationMs: 250, response: '{}', mocked: false, at } },
      { id: randomUUID(), type: 'ActionApprovalExpired', data: { callId: old, at } },
      // A call no log or memory knows (its request is not on record here): not counted.
      { id: randomUUID(), type: 'ActionCallFailed', data: { callId: randomUUID(), status: null, durationMs: 5, error: 'x', at } },
      // Counted after the unknown one: once it is, the unknown one has been seen.
      requested(last),
      { id: randomUUID(), type: 'ActionCallDeclined', data: { callId: last, why: 'no', at } },
    ], 'any');
    await eventually(() => expect(counted).toHaveLength(3), 3000);
    expect(counted).toEqual([
      [lookup, 'succeeded', 250],
      [lookup, 'expired', null],
      [lookup, 'declined', null],
    ]);
    await readStore.close();
  });
});
