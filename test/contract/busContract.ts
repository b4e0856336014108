/**
 * The Bus contract: every adapter (in-process, NATS JetStream) passes these tests.
 * Each test uses its own subjects and durables, so a fixture may share one server (and stream) across tests.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BusClosedError,
  deadLetterSubject,
  type Bus,
  type BusMessage,
  type BusSubscription,
  type DeadLetter,
} from '../../src/ports/bus.js';

export interface BusFixture {
  bus: Bus;
  /** Another instance on the same broker (NATS: a separate connection). Defaults to `bus` itself. */
  bus2?: () => Promise<Bus>;
  cleanup(): Promise<void>;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function waitFor(check: () => boolean, what: string, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

let counter = 0;
/** A subject (and durable) no other test uses, also across runs against the same server. */
export function uniqueName(base: string): string {
  counter += 1;
  return `${base}-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 6)}`;
}

/** How long to wait before asserting that something did NOT happen. */
const QUIET_MS = 400;

export function busContract(name: string, factory: () => Promise<BusFixture>): void {
  describe(`Bus contract: ${name}`, () => {
    let fixture: BusFixture;
    let bus: Bus;
    const subs: BusSubscription[] = [];
    const instances: Bus[] = [];

    const anotherInstance = async (): Promise<Bus> => {
      if (!fixture.bus2) return bus;
      const other = await fixture.bus2();
      instances.push(other);
      return other;
    };
    const track = (sub: BusSubscription) => {
      subs.push(sub);
      return sub;
    };

    beforeEach(async () => {
      fixture = await factory();
      bus = fixture.bus;
    });

    afterEach(async () => {
      await Promise.allSettled(subs.splice(0).map((s) => s.stop()));
      await Promise.allSettled(instances.splice(0).map((b) => b.close()));
      await fixture.cleanup();
    });

    it('delivers a published message once, with deliveryCount 1', async () => {
      const subject = uniqueName('job.once');
      const received: BusMessage<{ n: number; at: string }>[] = [];
      track(
        await bus.subscribe<{ n: number; at: string }>(subject, { durable: 'w' }, async (m) => {
          received.push(m);
        }),
      );
      expect(bus.isConnected()).toBe(true);
      await bus.publish(subject, { n: 1, at: new Date(0) }, { dedupeId: 'm-1' });
      await waitFor(() => received.length === 1, 'the delivery');
      await sleep(QUIET_MS);
      expect(received).toHaveLength(1);
      expect(received[0]).toEqual({
        subject,
        data: { n: 1, at: '1970-01-01T00:00:00.000Z' }, // JSON on the wire
        deliveryCount: 1,
        dedupeId: 'm-1',
      });
    });

    it('drops a second publish with the same dedupeId on the same subject (not on another subject)', async () => {
      const subject = uniqueName('job.dedupe');
      const other = uniqueName('job.dedupe-other');
      const received: unknown[] = [];
      const receivedOther: unknown[] = [];
      track(await bus.subscribe(subject, { durable: 'w' }, async (m) => void received.push(m.data)));
      track(await bus.subscribe(other, { durable: 'w' }, async (m) => void receivedOther.push(m.data)));
      await bus.publish(subject, { v: 'first' }, { dedupeId: 'same' });
      await bus.publish(subject, { v: 'second' }, { dedupeId: 'same' });
      await bus.publish(subject, { v: 'third' }, { dedupeId: 'different' });
      await bus.publish(other, { v: 'other' }, { dedupeId: 'same' });
      await waitFor(() => received.length === 2 && receivedOther.length === 1, 'the deliveries');
      await sleep(QUIET_MS);
      expect(received).toEqual([{ v: 'first' }, { v: 'third' }]);
      expect(receivedOther).toEqual([{ v: 'other' }]);
    });

    it('redelivers after a handler failure (deliveryCount 2), after the backoff, then stops once handled', async () => {
      const subject = uniqueName('job.retry');
      const attempts: { count: number; at: number }[] = [];
      track(
        await bus.subscribe(subject, { durable: 'w', backoffMs: [150] }, async (m) => {
          attempts.push({ count: m.deliveryCount, at: Date.now() });
          if (m.deliveryCount === 1) throw new Error('transient');
        }),
      );
      await bus.publish(subject, { x: 1 }, { dedupeId: 'r-1' });
      await waitFor(() => attempts.length === 2, 'the redelivery');
      await sleep(QUIET_MS);
      expect(attempts.map((a) => a.count)).toEqual([1, 2]);
      const [first, second] = attempts;
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(120);
    });

    it('dead-letters after exactly maxDeliver failed deliveries and never delivers the message again', async () => {
      const subject = uniqueName('job.poison');
      const attempts: number[] = [];
      const dead: BusMessage<DeadLetter<{ p: string }>>[] = [];
      track(
        await bus.subscribe<DeadLetter<{ p: string }>>(deadLetterSubject(subject), { durable: 'dlq' }, async (m) => {
          dead.push(m);
        }),
      );
      track(
        await bus.subscribe(subject, { durable: 'w', maxDeliver: 3, backoffMs: [50, 100] }, async (m) => {
          attempts.push(m.deliveryCount);
          throw new Error(`boom ${m.deliveryCount}`);
        }),
      );
      await bus.publish(subject, { p: 'poison' }, { dedupeId: 'p-1' });
      await waitFor(() => dead.length === 1, 'the dead letter');
      await sleep(QUIET_MS * 2);
      expect(attempts).toEqual([1, 2, 3]);
      expect(dead).toHaveLength(1);
      const letter = dead[0]!;
      expect(letter.subject).toBe(deadLetterSubject(subject));
      expect(letter.deliveryCount).toBe(1);
      expect(letter.dedupeId).toBe('w:p-1');
      expect(letter.data).toMatchObject({
        subject,
        durable: 'w',
        data: { p: 'poison' },
        dedupeId: 'p-1',
        error: 'boom 3',
        deliveryCount: 3,
      });
      expect(Number.isNaN(Date.parse(letter.data.deadAt))).toBe(false);
    });

    it('shares messages between instances subscribed with the same durable: none twice, none lost', async () => {
      const subject = uniqueName('job.shared');
      const other = await anotherInstance();
      const handledBy = new Map<number, string[]>();
      const make = (who: string) => async (m: BusMessage<{ i: number }>) => {
        await sleep(5);
        const list = handledBy.get(m.data.i) ?? [];
        list.push(who);
        handledBy.set(m.data.i, list);
      };
      track(await bus.subscribe(subject, { durable: 'workers' }, make('a')));
      track(await other.subscribe(subject, { durable: 'workers' }, make('b')));
      for (let i = 0; i < 50; i++) await bus.publish(subject, { i }, { dedupeId: `s-${i}` });
      await waitFor(() => handledBy.size === 50, 'all 50 messages');
      await sleep(QUIET_MS);
      expect([...handledBy.keys()].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i));
      const duplicates = [...handledBy.entries()].filter(([, who]) => who.length !== 1);
      expect(duplicates).toEqual([]);
      const byA = [...handledBy.values()].filter((w) => w[0] === 'a').length;
      expect(byA).toBeGreaterThan(0);
      expect(byA).toBeLessThan(50);
    });

    it('gives every message to each durable of a subject', async () => {
      const subject = uniqueName('job.fanout');
      const a: number[] = [];
      const b: number[] = [];
      track(await bus.subscribe<{ i: number }>(subject, { durable: 'first' }, async (m) => void a.push(m.data.i)));
      track(await bus.subscribe<{ i: number }>(subject, { durable: 'second' }, async (m) => void b.push(m.data.i)));
      for (let i = 0; i < 5; i++) await bus.publish(subject, { i }, { dedupeId: `f-${i}` });
      await waitFor(() => a.length === 5 && b.length === 5, 'both durables');
      await sleep(QUIET_MS);
      expect(a.sort()).toEqual([0, 1, 2, 3, 4]);
      expect(b.sort()).toEqual([0, 1, 2, 3, 4]);
    });

    it('runs at most `concurrency` handlers at a time per subscription', async () => {
      const subject = uniqueName('job.concurrency');
      let running = 0;
      let maxRunning = 0;
      let done = 0;
      track(
        await bus.subscribe(subject, { durable: 'w', concurrency: 3 }, async () => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          await sleep(60);
          running--;
          done++;
        }),
      );
      for (let i = 0; i < 10; i++) await bus.publish(subject, { i }, { dedupeId: `c-${i}` });
      await waitFor(() => done === 10, 'all 10 messages');
      expect(maxRunning).toBe(3);
    });

    it('broadcast reaches the listeners of every instance; a stopped listener hears nothing more', async () => {
      const subject = uniqueName('chat.reply');
      const other = await anotherInstance();
      const heardA: unknown[] = [];
      const heardB: unknown[] = [];
      const listenerA = await bus.listen(subject, (d) => void heardA.push(d));
      track(listenerA);
      track(await other.listen(subject, (d) => void heardB.push(d)));
      await bus.broadcast(subject, { text: 'hello' });
      await waitFor(() => heardA.length === 1 && heardB.length === 1, 'both listeners');
      expect(heardA).toEqual([{ text: 'hello' }]);
      expect(heardB).toEqual([{ text: 'hello' }]);
      await listenerA.stop();
      await other.broadcast(subject, { text: 'again' });
      await waitFor(() => heardB.length === 2, 'the second broadcast');
      await sleep(QUIET_MS / 2);
      expect(heardA).toHaveLength(1);
    });

    it('stop() waits for the running handler and stops delivery; the durable resumes on the next subscribe()', async () => {
      const subject = uniqueName('job.stop');
      const received: number[] = [];
      let finished = false;
      const sub = await bus.subscribe<{ i: number }>(subject, { durable: 'w' }, async (m) => {
        received.push(m.data.i);
        if (m.data.i === 1) {
          await sleep(200);
          finished = true;
        }
      });
      await bus.publish(subject, { i: 1 }, { dedupeId: 'st-1' });
      await waitFor(() => received.length === 1, 'the first message');
      await sub.stop();
      expect(finished).toBe(true);
      await bus.publish(subject, { i: 2 }, { dedupeId: 'st-2' });
      await sleep(QUIET_MS);
      expect(received).toEqual([1]);
      const second: BusMessage<{ i: number }>[] = [];
      track(await bus.subscribe<{ i: number }>(subject, { durable: 'w' }, async (m) => void second.push(m)));
      await waitFor(() => second.length === 1, 'the message published while stopped');
      await sleep(QUIET_MS);
      expect(second.map((m) => [m.data.i, m.deliveryCount])).toEqual([[2, 1]]);
    });

    it('keeps messages published while no instance of a durable runs and delivers them to the next instance', async () => {
      const subject = uniqueName('job.durable');
      const first = await anotherInstance();
      const seen: number[] = [];
      const sub = await first.subscribe<{ i: number }>(subject, { durable: 'w' }, async (m) => void seen.push(m.data.i));
      await bus.publish(subject, { i: 0 }, { dedupeId: 'd-0' });
      await waitFor(() => seen.length === 1, 'the first message');
      await sub.stop();
      if (first !== bus) await first.close(); // the instance goes away entirely

      for (let i = 1; i <= 3; i++) await bus.publish(subject, { i }, { dedupeId: `d-${i}` });
      const next = await anotherInstance();
      const later: BusMessage<{ i: number }>[] = [];
      track(await next.subscribe<{ i: number }>(subject, { durable: 'w' }, async (m) => void later.push(m)));
      await waitFor(() => later.length === 3, 'the three waiting messages');
      await sleep(QUIET_MS);
      expect(later.map((m) => m.data.i).sort()).toEqual([1, 2, 3]);
      expect(later.every((m) => m.deliveryCount === 1)).toBe(true);
      expect(seen).toEqual([0]);
    });

    it('delivers messages published before the first subscribe() of a durable', async () => {
      const subject = uniqueName('job.early');
      await bus.publish(subject, { early: true }, { dedupeId: 'e-1' });
      const received: unknown[] = [];
      track(await bus.subscribe(subject, { durable: 'w' }, async (m) => void received.push(m.data)));
      await waitFor(() => received.length === 1, 'the early message');
      expect(received).toEqual([{ early: true }]);
    });

    it('close() waits for running handlers, then reports disconnected and refuses to publish', async () => {
      const subject = uniqueName('job.close');
      const other = await anotherInstance();
      let finished = false;
      let started = false;
      await other.subscribe(subject, { durable: 'w' }, async () => {
        started = true;
        await sleep(200);
        finished = true;
      });
      await bus.publish(subject, {}, { dedupeId: 'cl-1' });
      await waitFor(() => started, 'the handler to start');
      await other.close();
      expect(finished).toBe(true);
      expect(other.isConnected()).toBe(false);
      await expect(other.publish(subject, {}, { dedupeId: 'cl-2' })).rejects.toBeInstanceOf(BusClosedError);
    });

    it('rejects subjects with wildcards or empty tokens', async () => {
      await expect(bus.publish('jobs.*', {}, { dedupeId: 'x' })).rejects.toThrow(/invalid bus subject/);
      await expect(bus.subscribe('a..b', { durable: 'w' }, async () => {})).rejects.toThrow(/invalid bus subject/);
      await expect(bus.subscribe('a.b', { durable: 'has.dot' }, async () => {})).rejects.toThrow(/invalid durable/);
    });
  });
}
