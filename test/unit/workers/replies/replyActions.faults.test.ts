import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { actionFields } from '../../../../src/domain/actions/definition.js';
import type { StoredAction } from '../../../../src/domain/actions/state.js';
import type { ConversationEvent } from '../../../../src/domain/conversations/events.js';
import { MemoryEventStore } from '../../../../src/infrastructure/memory/memoryEventStore.js';
import type { EventStore, NewEvent } from '../../../../src/ports/eventStore.js';
import { silentLogger } from '../../../../src/ports/logger.js';
import type { ActionExecutor } from '../../../../src/workers/answers/actionLoop.js';
import { conversationSink } from '../../../../src/workers/replies/replyActions.js';
import type { ReplyWorkerDeps } from '../../../../src/workers/replies/replyDecisions.js';

/**
 * A full disk around an action call: the attempt cannot be recorded (the endpoint is never called), or the outcome
 * cannot (the retried job finds the call started and never calls again: failed, outcome unknown).
 */

const companyId = randomUUID();
const conversationId = randomUUID();
const stream = `conversation-${conversationId}`;
const [callId, replyId] = [randomUUID(), randomUUID()];
const at = '2025-01-01T10:00:00.000Z';

const action: StoredAction = {
  ...actionFields.parse({
    name: 'cancel_order',
    description: 'Cancels an order',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    method: 'POST',
    urlTemplate: 'https://shop.example/orders/{order_id}/cancel',
    mode: 'auto',
    sampleResponse: {},
  }),
  actionId: randomUUID(),
  headers: [],
  createdAt: at,
  updatedAt: at,
};
const call = { callId, action, args: { order_id: '4411' }, recorded: { order_id: '4411' } };

/** The store refuses (SQLITE_FULL) every append holding an event of `failing` type, while `full` is true. */
function diskFullFor(store: EventStore, failing: string) {
  const state = { full: true };
  const wrapped: EventStore = Object.create(store) as EventStore;
  wrapped.append = (s: string, events: NewEvent[], expected: Parameters<EventStore['append']>[2]) => {
    if (state.full && events.some((e) => e.type === failing)) return Promise.reject(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }));
    return store.append(s, events, expected);
  };
  return { store: wrapped, state };
}

async function givenRequestedCall() {
  const store = new MemoryEventStore();
  const events = [
    { type: 'ConversationStarted', data: { conversationId, companyId, integrationId: 1, connectorType: 'msgplatform', customer: { clientId: 'client-1', channelId: null, transport: 'telegram' }, stageId: null, at } },
    { type: 'AiSessionOpened', data: { sessionId: randomUUID(), at } },
    { type: 'ActionCallRequested', data: { callId, replyId, actionId: action.actionId, actionName: action.name, mode: 'auto', arguments: call.recorded, at } },
  ];
  await store.append(stream, events.map((e) => ({ id: randomUUID(), ...e, metadata: { companyId } })), 'no_stream');
  return store;
}

function counting(): { executor: ActionExecutor; calls: number } {
  const counter = { calls: 0, executor: (async () => {
    counter.calls++;
    return { ok: true, status: 200, durationMs: 3, body: '{"status":"cancelled"}', mocked: false };
  }) as ActionExecutor };
  return counter;
}

const sinkOn = async (store: EventStore, executor: ActionExecutor) => {
  const deps = { eventStore: store, clock: { now: () => new Date(at) }, logger: silentLogger } as unknown as ReplyWorkerDeps;
  const events = (await store.readStream(stream)).map((e) => ({ type: e.type, data: e.data }) as ConversationEvent);
  return conversationSink(deps, { job: { companyId, conversationId }, events, agent: { agentId: randomUUID() } as Parameters<typeof conversationSink>[1]['agent'], replyId }, executor);
};

describe('a full disk around an action call', () => {
  it('given the attempt cannot be recorded, when the call is made, then the endpoint is not called and the job fails to be retried', async () => {
    const memory = await givenRequestedCall();
    const { store } = diskFullFor(memory, 'ActionCallStarted');
    const endpoint = counting();

    await expect((await sinkOn(store, endpoint.executor)).execute(call)).rejects.toThrow(/disk is full/);

    expect(endpoint.calls).toBe(0);
    expect((await memory.readStream(stream)).map((e) => e.type)).not.toContain('ActionCallStarted');
  });

  it('given the outcome cannot be recorded, when the job is retried once the disk has room, then the endpoint is not called again and the call is failed with its outcome unknown', async () => {
    const memory = await givenRequestedCall();
    const { store, state } = diskFullFor(memory, 'ActionCallSucceeded');
    const endpoint = counting();
    await expect((await sinkOn(store, endpoint.executor)).execute(call)).rejects.toThrow(/disk is full/);

    state.full = false;
    const told = await (await sinkOn(store, endpoint.executor)).execute(call);

    expect(endpoint.calls).toBe(1);
    expect(told).toMatch(/may have reached the endpoint/);
    const types = (await memory.readStream(stream)).map((e) => e.type);
    expect(types.filter((t) => t.startsWith('ActionCall'))).toEqual(['ActionCallRequested', 'ActionCallStarted', 'ActionCallFailed']);
    expect((await memory.readStream(stream)).at(-1)?.data).toMatchObject({ outcomeUnknown: true });
  });
});
