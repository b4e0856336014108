import { describe, expect, it } from 'vitest';
import { createCompanyTurns, TurnRefusedError } from '../../../../src/shared/fairness/companyTurns.js';

/** A job that runs until released, recording when it started. */
function gate() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { release, done };
}

describe('company turns: shared capacity served in turns between companies', () => {
  it("given company A holds its share of the slots and a queue of waiting jobs, when B submits one, then B's runs at once", async () => {
    const turns = createCompanyTurns({ slots: 2, perCompany: 1, queue: 16, perCompanyQueue: 8 });
    const started: string[] = [];
    const a = gate();
    const jobsOfA = Array.from({ length: 8 }, (_, i) => turns.run('A', async () => (started.push(`A${i}`), a.done)));
    const b = turns.run('B', async () => (started.push('B'), 'done'));
    expect(await b).toBe('done');
    expect(started).toEqual(['A0', 'B']);
    a.release();
    await Promise.all(jobsOfA);
    expect(started).toHaveLength(9);
  });

  it('given one company fills its waiting places, when it sends more, then those are refused as busy while another company still gets in', async () => {
    const turns = createCompanyTurns({ slots: 2, perCompany: 1, queue: 16, perCompanyQueue: 3 });
    const a = gate();
    const jobsOfA = Array.from({ length: 6 }, () => turns.run('A', () => a.done).then(() => 'ran', (e: unknown) => (e as TurnRefusedError).reason));
    const b = gate();
    const jobOfB = turns.run('B', () => b.done).then(() => 'ran');
    const jobOfC = turns.run('C', async () => 'ran');
    a.release();
    b.release();
    expect(await Promise.all(jobsOfA)).toEqual(['ran', 'ran', 'ran', 'ran', 'busy', 'busy']);
    expect(await jobOfB).toBe('ran');
    expect(await jobOfC).toBe('ran');
  });

  it('given every waiting place is taken by one company, when another company sends a job, then it takes the newest place of the busiest', async () => {
    const turns = createCompanyTurns({ slots: 1, perCompany: 1, queue: 4 });
    const a = gate();
    const jobsOfA = Array.from({ length: 5 }, () => turns.run('A', () => a.done).then(() => 'ran', (e: unknown) => (e as TurnRefusedError).reason));
    const jobOfB = turns.run('B', async () => 'ran');
    a.release();
    expect(await Promise.all(jobsOfA)).toEqual(['ran', 'ran', 'ran', 'ran', 'busy']);
    expect(await jobOfB).toBe('ran');
  });

  it('when a waiting job is aborted, then it leaves its queue at once and never runs', async () => {
    const turns = createCompanyTurns({ slots: 1, perCompany: 1 });
    const a = gate();
    const first = turns.run('A', () => a.done);
    const controller = new AbortController();
    let ran = false;
    const second = turns.run('A', async () => void (ran = true), controller.signal);
    expect(turns.waiting).toBe(1);
    controller.abort();
    await expect(second).rejects.toMatchObject({ reason: 'aborted' });
    expect(turns.waiting).toBe(0);
    a.release();
    await first;
    expect(ran).toBe(false);
  });

  it('when a job waits longer than maxWaitMs, then it is refused as busy', async () => {
    const turns = createCompanyTurns({ slots: 1, perCompany: 1, maxWaitMs: 20 });
    const a = gate();
    const first = turns.run('A', () => a.done);
    await expect(turns.run('B', async () => 'ran')).rejects.toBeInstanceOf(TurnRefusedError);
    a.release();
    await first;
    expect(turns.running).toBe(0);
  });
});
