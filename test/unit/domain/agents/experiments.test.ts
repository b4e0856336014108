import { describe, expect, it } from 'vitest';
import { assignArm, experimentBucket, type ExperimentSplit } from '../../../../src/domain/agents/experiments.js';

const E1 = 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee';
const E2 = 'ffffffff-ffff-4fff-8fff-ffffffffffff';
const conversations = Array.from({ length: 1000 }, (_, i) => `0000${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`);

const split = (a: number, holdout = 0, experimentId = E1): ExperimentSplit => ({ experimentId, arms: [{ arm: 'a', share: a }, { arm: 'b', share: 100 - a }], holdout });
const countOf = (s: ExperimentSplit) => {
  const counts = { a: 0, b: 0, holdout: 0 };
  for (const id of conversations) counts[assignArm(s, id)] += 1;
  return counts;
};

describe('assigning a conversation to an arm', () => {
  it('is the first 32 bits of SHA-256("<experiment>:<conversation>") over 2^32: the same on every call', () => {
    // sha256("eeeeeeee-…:00000000-…") starts with 2a619734 (computed independently): a change of the function
    // would move every running experiment's conversations.
    expect(experimentBucket(E1, conversations[0]!)).toBe(0x2a619734 / 2 ** 32);
    expect(experimentBucket(E1, conversations[0]!)).toBeCloseTo(0.16555161494761705, 12);
    expect(conversations.map((c) => assignArm(split(50), c))).toEqual(conversations.map((c) => assignArm(split(50), c)));
  });

  it('given 1,000 conversations, a 50/50 split is close to half and half, and a 90/10 canary close to 90 and 10 percent', () => {
    const even = countOf(split(50));
    expect(even.holdout).toBe(0);
    // Three standard deviations of a binomial(1000, 0.5) are ±47.
    expect(Math.abs(even.a - 500)).toBeLessThan(47);
    const canary = countOf(split(90));
    expect(Math.abs(canary.b - 100)).toBeLessThan(29);
    expect(canary.a + canary.b).toBe(1000);
  });

  it('given a holdout, that share goes to people and the arms split the rest', () => {
    const held = countOf(split(50, 20));
    expect(Math.abs(held.holdout - 200)).toBeLessThan(38);
    expect(Math.abs(held.a - held.b)).toBeLessThan(80);
  });

  it('is sticky when the split moves the boundary the other way: a conversation in the smaller arm stays there as that arm grows', () => {
    const small = conversations.filter((c) => assignArm(split(90), c) === 'b');
    expect(small.every((c) => assignArm(split(50), c) === 'b')).toBe(true);
  });

  it('gives another experiment its own split', () => {
    const first = conversations.map((c) => assignArm(split(50), c));
    const second = conversations.map((c) => assignArm(split(50, 0, E2), c));
    const same = first.filter((arm, i) => arm === second[i]).length;
    expect(same).toBeGreaterThan(400);
    expect(same).toBeLessThan(600);
  });
});
