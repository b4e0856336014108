/**
 * The statistics an experiment is judged by: a Wilson score interval for each arm's rate, and a two-sided
 * two-proportion z-test for the difference between the arms. Pure functions of counts, so the read model
 * keeps counts only and the verdict is recomputed whenever it is read.
 */

/**
 * Φ(x), the standard normal distribution function, from erf by Abramowitz & Stegun 7.1.26 (absolute error of
 * erf under 1.5e-7: far below what a verdict at 80–99 % can notice).
 */
export function normalCdf(x: number): number {
  const t = 1 / (1 + 0.3275911 * (Math.abs(x) / Math.SQRT2));
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Φ⁻¹(p) for 0 < p < 1, by Acklam's rational approximation (relative error under 1.2e-9). */
export function inverseNormalCdf(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError('p must be in (0, 1)');
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p > 1 - low) return -inverseNormalCdf(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/** The two-sided critical value of a confidence level (0.95 → 1.959964). */
export const criticalZ = (level: number) => inverseNormalCdf(1 - (1 - level) / 2);

export interface Rate {
  successes: number;
  trials: number;
  /** successes / trials; null with no trials. */
  rate: number | null;
  /** The Wilson score interval at the level asked for; null with no trials. */
  low: number | null;
  high: number | null;
}

/**
 * The Wilson score interval: unlike the normal approximation it stays inside [0, 1] and is sensible for
 * small counts and for rates near 0 or 1 (0 of 10 gives [0, 0.278], not [0, 0]).
 */
export function wilsonInterval(successes: number, trials: number, level: number): Rate {
  if (trials <= 0) return { successes, trials, rate: null, low: null, high: null };
  const z = criticalZ(level);
  const p = successes / trials;
  const z2n = (z * z) / trials;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z / (1 + z2n)) * Math.sqrt((p * (1 - p)) / trials + (z * z) / (4 * trials * trials));
  return { successes, trials, rate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export interface Comparison {
  /** Rate of b minus rate of a; null while an arm has no trials. */
  difference: number | null;
  z: number | null;
  /** Two-sided p-value; null while it cannot be computed (an arm without trials, or no variation at all). */
  pValue: number | null;
  /** The difference is significant at `level` (pValue < 1 − level). */
  significant: boolean;
}

/**
 * The two-sided two-proportion z-test with pooled variance: z = (p_b − p_a) / √(p(1−p)(1/n_a + 1/n_b)), p the
 * pooled rate. Not significant (yet) while an arm has no trials or every trial came out the same.
 */
export function twoProportionTest(a: { successes: number; trials: number }, b: { successes: number; trials: number }, level: number): Comparison {
  if (a.trials <= 0 || b.trials <= 0) return { difference: null, z: null, pValue: null, significant: false };
  const pa = a.successes / a.trials;
  const pb = b.successes / b.trials;
  const pooled = (a.successes + b.successes) / (a.trials + b.trials);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.trials + 1 / b.trials));
  if (se === 0) return { difference: pb - pa, z: null, pValue: null, significant: false };
  const z = (pb - pa) / se;
  const pValue = Math.min(1, 2 * (1 - normalCdf(Math.abs(z))));
  return { difference: pb - pa, z, pValue, significant: pValue < 1 - level };
}
