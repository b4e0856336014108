import { describe, expect, it } from 'vitest';
import { chargeUsage, type Usage } from '../../src/commands/credits/chargeUsage.js';
import { deterministicId } from '../../src/commands/hashing.js';
import { chargeStream } from '../../src/domain/credits/charge/decider.js';
import { creditsStream } from '../../src/domain/credits/decider.js';
import { MemoryEventStore } from '../../src/infrastructure/memory/memoryEventStore.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import { silentLogger } from '../../src/ports/logger.js';

const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const pricing = { table: { 'gpt-4o-mini': { inputMicrosPer1K: 150, outputMicrosPer1K: 600 } }, defaultPrice: { inputMicrosPer1K: 150, outputMicrosPer1K: 600 } };
const usage = (replyId: string): Usage => ({ companyId: CO, conversationId: 'conv-1', replyId, model: 'gpt-4o-mini', inputTokens: 1000, outputTokens: 1000 });
const PRICE = 750; // 1000 × 150/1K + 1000 × 600/1K

/**
 * Every money test runs on both kinds of event store: the strict one (SQLite's guarantees: event ids unique in the
 * whole store) and one with EventStoreDB's weaker ones (a repeated id recognised only at the same expected
 * revision), so a charge that relies on the stronger guarantee fails here, not in production.
 */
const stores = [
  ['strict (SQLite) semantics', () => new MemoryEventStore()],
  ['EventStoreDB semantics', () => new MemoryEventStore({ semantics: 'eventstoredb' })],
] as const;

function setup(makeStore: () => MemoryEventStore) {
  const eventStore = makeStore();
  return { eventStore, deps: { eventStore, clock: { now: () => new Date('2026-01-01T00:00:00Z') }, logger: silentLogger, pricing } };
}

const chargesOf = async (store: EventStore, replyId: string) =>
  (await store.readStream(creditsStream(CO))).filter((e) => e.type === 'CreditsConsumed' && (e.data as { replyId: string }).replyId === replyId);

describe.each(stores)('chargeUsage on an event store with %s: one charge per reply', (_name, makeStore) => {
  it('the CreditsConsumed event of a reply has the id derived from that reply', async () => {
    const { eventStore, deps } = setup(makeStore);
    await chargeUsage(deps, usage('reply-1'));
    const [charge] = await eventStore.readStream(creditsStream(CO));
    expect(charge).toMatchObject({ type: 'CreditsConsumed', id: deterministicId('charge:reply-1:CreditsConsumed'), data: { replyId: 'reply-1' } });
  });

  it('given a charged reply, when it is charged again right away, then nothing is appended', async () => {
    const { eventStore, deps } = setup(makeStore);
    await chargeUsage(deps, usage('reply-1'));
    expect(await chargeUsage(deps, usage('reply-1'))).toMatchObject({ events: [], duplicate: true });
    expect(await chargesOf(eventStore, 'reply-1')).toHaveLength(1);
  });

  it('a reply charged again after 200 newer charges (beyond the decider window) is charged once', async () => {
    const { eventStore, deps } = setup(makeStore);
    await chargeUsage(deps, usage('reply-old'));
    for (let i = 0; i < 200; i++) await chargeUsage(deps, usage(`reply-${i}`));
    const result = await chargeUsage(deps, usage('reply-old'));
    expect(result?.events).toEqual([]);
    expect(await chargesOf(eventStore, 'reply-old')).toHaveLength(1);
  });

  it('concurrent charges of one company are all applied, each once, and the balance says so', async () => {
    const { eventStore, deps } = setup(makeStore);
    await eventStore.append(creditsStream(CO), [{ id: crypto.randomUUID(), type: 'CreditsGranted', data: { amountMicros: 1_000_000, reason: 'x', grantedBy: null, at: '2026-01-01T00:00:00.000Z' } }], 'no_stream');
    const replies = Array.from({ length: 20 }, (_, i) => `reply-${i % 10}`);
    await Promise.all(replies.map((r) => chargeUsage(deps, usage(r))));
    for (let i = 0; i < 10; i++) expect(await chargesOf(eventStore, `reply-${i}`)).toHaveLength(1);
    const last = await chargeUsage(deps, usage('reply-last'));
    expect(last?.balanceMicros).toBe(1_000_000 - 11 * PRICE);
  });

  describe('charges waiting for their company go together', () => {
    /** Counts the appends to the company's credits stream. */
    function countCreditAppends(store: MemoryEventStore) {
      const append = store.append.bind(store);
      const counted = { appends: 0 };
      store.append = async (stream, events, expected) => {
        if (stream === creditsStream(CO)) counted.appends++;
        return append(stream, events, expected);
      };
      return counted;
    }

    it('given 60 charges of one company at once, then each is charged once, in fewer appends than charges, and each guard names its own revision', async () => {
      const { eventStore, deps } = setup(makeStore);
      const counted = countCreditAppends(eventStore);
      const replies = Array.from({ length: 60 }, (_, i) => `reply-${i}`);
      await Promise.all(replies.map((r) => chargeUsage(deps, usage(r))));
      for (const r of replies) expect(await chargesOf(eventStore, r)).toHaveLength(1);
      expect(counted.appends).toBeLessThan(10);
      const credits = await eventStore.readStream(creditsStream(CO));
      for (const r of replies) {
        const [guard] = await eventStore.readStream(chargeStream(r));
        const at = BigInt((guard!.data as { debitRevision: string }).debitRevision);
        expect(credits.find((e) => e.revision === at)).toMatchObject({ data: { replyId: r } });
      }
    });

    it('given another instance charging the company meanwhile, when a batch meets the conflict, then it charges again at new revisions, each once', async () => {
      const { eventStore, deps } = setup(makeStore);
      const append = eventStore.append.bind(eventStore);
      let intruded = false;
      eventStore.append = async (stream, events, expected) => {
        if (stream === creditsStream(CO) && !intruded) {
          intruded = true;
          await append(stream, [{ id: crypto.randomUUID(), type: 'CreditsGranted', data: { amountMicros: 5_000, reason: 'top-up', grantedBy: null, at: '2026-01-01T00:00:00.000Z' } }], 'any');
        }
        return append(stream, events, expected);
      };
      const replies = Array.from({ length: 10 }, (_, i) => `reply-${i}`);
      await Promise.all(replies.map((r) => chargeUsage(deps, usage(r))));
      for (const r of replies) expect(await chargesOf(eventStore, r)).toHaveLength(1);
      // Each guard now names the revision where its charge landed (the batch's first try was recorded, then moved).
      const credits = await eventStore.readStream(creditsStream(CO));
      for (const r of replies) {
        const guard = await eventStore.readStream(chargeStream(r));
        const at = BigInt((guard.at(-1)!.data as { debitRevision: string }).debitRevision);
        expect(credits.find((e) => e.revision === at)).toMatchObject({ data: { replyId: r } });
      }
    });

    it('given a reply whose guard names the next revision (an attempt that may still land there), when it waits in a batch, then it is charged at exactly that revision', async () => {
      const { eventStore, deps } = setup(makeStore);
      await eventStore.append(
        chargeStream('reply-pinned'),
        [{ id: crypto.randomUUID(), type: 'ChargeAttempted', data: { replyId: 'reply-pinned', companyId: CO, debitRevision: '1', at: '2026-01-01T00:00:00.000Z' } }],
        'no_stream',
      );
      const first = chargeUsage(deps, usage('first')); // alone: lands at revision 0, the others wait behind it
      await Promise.all([first, chargeUsage(deps, usage('reply-a')), chargeUsage(deps, usage('reply-pinned'))]);
      const [pinned] = await chargesOf(eventStore, 'reply-pinned');
      expect(pinned?.revision).toBe(1n);
      expect(await chargesOf(eventStore, 'reply-a')).toHaveLength(1);
    });

    it('given a batch whose append dies, when its replies are charged again after 200 other charges, then each is charged once', async () => {
      const { eventStore, deps } = setup(makeStore);
      const append = eventStore.append.bind(eventStore);
      let armed = true;
      eventStore.append = async (stream, events, expected) => {
        if (!armed || stream !== creditsStream(CO) || events.length < 2) return append(stream, events, expected);
        armed = false;
        await append(stream, events, expected);
        throw new Error('the process died');
      };
      await chargeUsage(deps, usage('first'));
      const replies = Array.from({ length: 5 }, (_, i) => `reply-${i}`);
      const outcomes = await Promise.allSettled(replies.map((r) => chargeUsage(deps, usage(r))));
      expect(outcomes.filter((o) => o.status === 'rejected').length).toBeGreaterThan(0);
      for (let i = 0; i < 200; i++) await chargeUsage(deps, usage(`other-${i}`));
      for (const r of replies) await chargeUsage(deps, usage(r));
      for (const r of replies) expect(await chargesOf(eventStore, r)).toHaveLength(1);
    });
  });

  describe('a crash between the guard and the charge neither loses nor doubles it', () => {
    /** The store fails the next append to the credits stream, before (or after) writing it: the process dies there. */
    function crashOnCreditsAppend(store: MemoryEventStore, when: 'before' | 'after') {
      const append = store.append.bind(store);
      let armed = true;
      store.append = async (stream, events, expected) => {
        if (!armed || stream !== creditsStream(CO)) return append(stream, events, expected);
        armed = false;
        if (when === 'after') await append(stream, events, expected);
        throw new Error('the process died');
      };
    }

    it('given the guard recorded and the charge never appended, when the reply is charged again, then it is charged once', async () => {
      const { eventStore, deps } = setup(makeStore);
      crashOnCreditsAppend(eventStore, 'before');
      await expect(chargeUsage(deps, usage('reply-1'))).rejects.toThrow('the process died');
      expect(await eventStore.readStream(chargeStream('reply-1'))).toHaveLength(1);
      expect(await chargesOf(eventStore, 'reply-1')).toHaveLength(0);
      await chargeUsage(deps, usage('reply-1'));
      expect(await chargesOf(eventStore, 'reply-1')).toHaveLength(1);
    });

    it('given the guard recorded, the charge never appended and 200 other charges since, then the retry is charged once, at a new revision', async () => {
      const { eventStore, deps } = setup(makeStore);
      crashOnCreditsAppend(eventStore, 'before');
      await expect(chargeUsage(deps, usage('reply-1'))).rejects.toThrow('the process died');
      for (let i = 0; i < 200; i++) await chargeUsage(deps, usage(`other-${i}`));
      await chargeUsage(deps, usage('reply-1'));
      expect(await chargesOf(eventStore, 'reply-1')).toHaveLength(1);
      expect((await eventStore.readStream(chargeStream('reply-1'))).map((e) => (e.data as { debitRevision: string }).debitRevision)).toEqual(['0', '200']);
    });

    it('given the charge appended but its outcome lost, and 200 other charges since, then the retry appends nothing', async () => {
      const { eventStore, deps } = setup(makeStore);
      crashOnCreditsAppend(eventStore, 'after');
      await expect(chargeUsage(deps, usage('reply-1'))).rejects.toThrow('the process died');
      for (let i = 0; i < 200; i++) await chargeUsage(deps, usage(`other-${i}`));
      expect(await chargeUsage(deps, usage('reply-1'))).toMatchObject({ events: [], duplicate: true });
      expect(await chargesOf(eventStore, 'reply-1')).toHaveLength(1);
    });
  });
});
