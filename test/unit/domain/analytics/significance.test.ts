import { describe, expect, it } from 'vitest';
import { criticalZ, inverseNormalCdf, normalCdf, twoProportionTest, wilsonInterval } from '../../../../src/domain/analytics/significance.js';

/** Reference values from SciPy (norm.ppf, norm.sf) and the Wilson formula evaluated in double precision. */
describe('the statistics an experiment is judged by', () => {
  it('given a confidence level, the critical value is the normal quantile (0.95 → 1.959964)', () => {
    expect(criticalZ(0.95)).toBeCloseTo(1.959963984540054, 6);
    expect(criticalZ(0.9)).toBeCloseTo(1.6448536269514722, 6);
    expect(criticalZ(0.99)).toBeCloseTo(2.5758293035489004, 6);
    expect(criticalZ(0.8)).toBeCloseTo(1.2815515655446004, 6);
    expect(inverseNormalCdf(0.01)).toBeCloseTo(-2.3263478740408408, 6);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1)).toBeCloseTo(0.15865525393145707, 6);
    expect(() => inverseNormalCdf(1)).toThrow(RangeError);
  });

  it('given successes of trials, the Wilson interval matches known values, stays in [0, 1], and is empty without trials', () => {
    const eight = wilsonInterval(8, 10, 0.95);
    expect(eight.rate).toBe(0.8);
    expect(eight.low).toBeCloseTo(0.4901624715366418, 6);
    expect(eight.high).toBeCloseTo(0.9433178485456248, 6);
    const none = wilsonInterval(0, 10, 0.95);
    expect(none.low).toBe(0);
    expect(none.high).toBeCloseTo(0.2775327998628892, 6);
    expect(wilsonInterval(45, 100, 0.9)).toMatchObject({ low: expect.closeTo(0.370560970694454, 6), high: expect.closeTo(0.5320733013838636, 6) });
    expect(wilsonInterval(60, 100, 0.99)).toMatchObject({ low: expect.closeTo(0.4714191179308223, 6), high: expect.closeTo(0.7161367445260132, 6) });
    expect(wilsonInterval(0, 0, 0.95)).toEqual({ successes: 0, trials: 0, rate: null, low: null, high: null });
  });

  it('given two arms, the two-proportion z-test gives the known z and p, and says significant only below 1 − level', () => {
    const clear = twoProportionTest({ successes: 45, trials: 100 }, { successes: 60, trials: 100 }, 0.95);
    expect(clear.difference).toBeCloseTo(0.15, 10);
    expect(clear.z).toBeCloseTo(2.1239769762143657, 5);
    expect(clear.pValue).toBeCloseTo(0.033672068856345855, 5);
    expect(clear.significant).toBe(true);
    // The same counts are not significant at 99 %.
    expect(twoProportionTest({ successes: 45, trials: 100 }, { successes: 60, trials: 100 }, 0.99).significant).toBe(false);

    const notYet = twoProportionTest({ successes: 120, trials: 200 }, { successes: 130, trials: 200 }, 0.95);
    expect(notYet.z).toBeCloseTo(1.0327955589886453, 5);
    expect(notYet.pValue).toBeCloseTo(0.3016995824783475, 5);
    expect(notYet.significant).toBe(false);

    expect(twoProportionTest({ successes: 300, trials: 1000 }, { successes: 350, trials: 1000 }, 0.95).pValue).toBeCloseTo(0.01698420058213061, 5);
    // B worse than A: a negative difference, significance is two-sided.
    const worse = twoProportionTest({ successes: 60, trials: 100 }, { successes: 45, trials: 100 }, 0.95);
    expect(worse.z).toBeCloseTo(-2.1239769762143657, 5);
    expect(worse.significant).toBe(true);
  });

  it('given an arm without trials or no variation at all, the test is not significant yet', () => {
    expect(twoProportionTest({ successes: 0, trials: 0 }, { successes: 5, trials: 10 }, 0.95)).toEqual({ difference: null, z: null, pValue: null, significant: false });
    expect(twoProportionTest({ successes: 10, trials: 10 }, { successes: 4, trials: 4 }, 0.95)).toEqual({ difference: 0, z: null, pValue: null, significant: false });
  });
});
