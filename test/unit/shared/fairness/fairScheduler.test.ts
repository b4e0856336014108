import { describe, expect, it } from 'vitest';
import { createFairScheduler, type FairOutcome, type FairScheduler, Deque } from '../../../../src/shared/fairness/fairScheduler.js';

/** A task that runs until released, recording the order tasks started in. */
function harness(scheduler: FairScheduler) {
  const started: string[] = [];
  const releases = new Map<string, () => void>();
  const outcomes = new Map<string, FairOutcome | 'error'>();
  const submit = (companyId: string, lane: string, name: string, since = Date.now()) => {
    const done = scheduler.submit({
      companyId,
      lane,
      since,
      run: () =>
        new Promise<void>((resolve) => {
          started.push(name);
          releases.set(name, resolve);
        }),
    });
    done.then(
      (o) => outcomes.set(name, o),
      () => outcomes.set(name, 'error'),
    );
    return done;
  };
  const release = async (name: string) => {
    releases.get(name)!();
    await new Promise((r) => setImmediate(r));
  };
  return { started, outcomes, submit, release };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('fair scheduler', () => {
  it('given one company with 1,000 waiting tasks, when another company submits one, then it runs at the next free slot', async () => {
    const s = createFairScheduler({ slots: 2, perCompany: 2 });
    const h = harness(s);
    for (let i = 0; i < 1000; i++) void h.submit('noisy', `conv-${i}`, `noisy-${i}`);
    void h.submit('quiet', 'conv-q', 'quiet-0');
    expect(h.started).toEqual(['noisy-0', 'noisy-1']);
    await h.release('noisy-0');
    expect(h.started).toEqual(['noisy-0', 'noisy-1', 'quiet-0']);
    expect(s.waiting).toBe(998);
  });

  it('given companies taking turns, then each free slot goes to the next company in turn, not the one with most work', async () => {
    const s = createFairScheduler({ slots: 1, perCompany: 1 });
    const h = harness(s);
    for (let i = 0; i < 3; i++) void h.submit('a', `a${i}`, `a${i}`);
    for (let i = 0; i < 3; i++) void h.submit('b', `b${i}`, `b${i}`);
    void h.submit('c', 'c0', 'c0');
    for (let i = 0; i < 6; i++) await h.release(h.started.at(-1)!);
    expect(h.started).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'a2', 'b2']);
  });

  it('given one conversation with many tasks, then the company\'s other conversations are served in turn with it', async () => {
    const s = createFairScheduler({ slots: 1, perCompany: 1 });
    const h = harness(s);
    for (let i = 0; i < 5; i++) void h.submit('a', 'hot', `hot${i}`);
    void h.submit('a', 'other', 'other0');
    await h.release('hot0');
    expect(h.started).toEqual(['hot0', 'other0']);
  });

  it('given a lane with a running task, then its next task waits for it (one at a time per conversation)', async () => {
    const s = createFairScheduler({ slots: 4, perCompany: 4 });
    const h = harness(s);
    void h.submit('a', 'x', 'x0');
    void h.submit('a', 'x', 'x1');
    await tick();
    expect(h.started).toEqual(['x0']);
    await h.release('x0');
    expect(h.started).toEqual(['x0', 'x1']);
  });

  it('given a company at its cap, then free slots go to others, and a company alone uses slots up to its cap', async () => {
    const s = createFairScheduler({ slots: 4, perCompany: 3 });
    const h = harness(s);
    for (let i = 0; i < 10; i++) void h.submit('a', `a${i}`, `a${i}`);
    expect(h.started).toEqual(['a0', 'a1', 'a2']);
    void h.submit('b', 'b0', 'b0');
    expect(h.started).toEqual(['a0', 'a1', 'a2', 'b0']);
  });

  it('given supersede, when a newer task arrives in a waiting lane, then the older one resolves superseded and the lane keeps its turn and oldest since', async () => {
    const s = createFairScheduler({ slots: 1, perCompany: 1, supersede: true });
    const h = harness(s);
    void h.submit('a', 'blocker', 'blocker');
    const old = h.submit('a', 'x', 'x-old', 1_000);
    void h.submit('a', 'y', 'y0');
    const newer = s.submit({ companyId: 'a', lane: 'x', since: 5_000, run: async () => void h.started.push('x-new') });
    expect(await old).toBe('superseded');
    expect(s.backlog().find((b) => b.companyId === 'a')!.oldestSince).toBe(1_000);
    await h.release('blocker');
    expect(await newer).toBe('ran');
    expect(h.started).toEqual(['blocker', 'x-new', 'y0']); // x kept its turn ahead of y
  });

  it('given a full queue, when a quieter company submits, then the busiest company\'s newest waiting task is shed to make room', async () => {
    const s = createFairScheduler({ slots: 1, perCompany: 1, capacity: 3 });
    const h = harness(s);
    void h.submit('noisy', 'n0', 'n0');
    for (let i = 1; i <= 3; i++) void h.submit('noisy', `n${i}`, `n${i}`);
    void h.submit('quiet', 'q0', 'q0');
    await tick();
    expect(h.outcomes.get('n3')).toBe('shed-full');
    expect(s.waiting).toBe(3);
    await h.release('n0');
    expect(h.started).toEqual(['n0', 'q0']);
  });

  it('given a task older than maxDelay when its turn comes, then it is shed late, not run', async () => {
    let clock = 10_000;
    const s = createFairScheduler({ slots: 1, perCompany: 1, maxDelayMs: 1_000, now: () => clock });
    const h = harness(s);
    void h.submit('a', 'x', 'x0', 10_000);
    const late = h.submit('a', 'y', 'y0', 10_000);
    void h.submit('a', 'z', 'z0', 10_500);
    clock = 11_200;
    await h.release('x0');
    expect(await late).toBe('shed-late');
    expect(h.started).toEqual(['x0', 'z0']);
  });

  it('given a task that throws, then submit rejects with its error and the slot is freed', async () => {
    const s = createFairScheduler({ slots: 1, perCompany: 1 });
    await expect(s.submit({ companyId: 'a', lane: 'x', since: 0, run: async () => Promise.reject(new Error('boom')) })).rejects.toThrow('boom');
    expect(await s.submit({ companyId: 'a', lane: 'x', since: 0, run: async () => {} })).toBe('ran');
    expect(s.running).toBe(0);
  });

  it('given 50,000 tasks over 1,000 companies, then memory is released when they are done', async () => {
    const s = createFairScheduler({ slots: 64, perCompany: 8 });
    const all: Promise<FairOutcome>[] = [];
    for (let i = 0; i < 50_000; i++) all.push(s.submit({ companyId: `c${i % 1000}`, lane: `l${i}`, since: 0, run: async () => {} }));
    expect((await Promise.all(all)).every((o) => o === 'ran')).toBe(true);
    expect(s.backlog()).toEqual([]);
  });
});

describe('deque', () => {
  it('keeps order across growth, shift, pop and remove', () => {
    const d = new Deque<number>();
    for (let i = 0; i < 20; i++) d.push(i);
    expect(d.shift()).toBe(0);
    expect(d.pop()).toBe(19);
    expect(d.remove(5)).toBe(true);
    const rest: number[] = [];
    while (d.length > 0) rest.push(d.shift()!);
    expect(rest).toEqual([1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]);
  });
});
