/**
 * A fixed-size latency histogram, so a day's first-response times cost the same memory and the same work
 * however many replies it holds, and histograms of many days (or scopes) add up bucket by bucket.
 *
 * Buckets grow geometrically by RATIO from BASE_MS: bucket 0 holds [0, 100 ms), bucket k (1…BUCKETS-2)
 * holds [100·1.25^(k-1), 100·1.25^k) ms, and the last bucket everything from about 10.8 days on. A percentile
 * is reported as the geometric middle of its bucket, so it is within ±12 % (√1.25 − 1) of the true value
 * between 100 ms and 10.8 days; below 100 ms it reads 50 ms, above 10.8 days it reads the bucket's lower edge.
 */
export const BASE_MS = 100;
export const RATIO = 1.25;
/** Geometric buckets between BASE_MS and the overflow bucket. */
const GEOMETRIC = 72;
export const BUCKETS = GEOMETRIC + 2;

export type Histogram = number[];

export const emptyHistogram = (): Histogram => new Array<number>(BUCKETS).fill(0);

/** Lower edge of bucket k (k ≥ 1). */
const lowerEdge = (k: number) => BASE_MS * RATIO ** (k - 1);

export function bucketOf(ms: number): number {
  if (!(ms >= BASE_MS)) return 0; // also NaN and negatives (clock skew between events): counted as instant
  // Rounding error of log() near an edge can only move a value to the neighbouring bucket, and the result is
  // corrected against the edges themselves, so the same value always lands in the same bucket.
  let k = Math.floor(Math.log(ms / BASE_MS) / Math.log(RATIO)) + 1;
  if (k > 1 && ms < lowerEdge(k)) k -= 1;
  else if (k <= GEOMETRIC && ms >= lowerEdge(k + 1)) k += 1;
  return Math.min(k, BUCKETS - 1);
}

/** A copy of `h` with one more value. */
export function record(h: Histogram | undefined, ms: number): Histogram {
  const next = h && h.length === BUCKETS ? [...h] : emptyHistogram();
  next[bucketOf(ms)]! += 1;
  return next;
}

/** Adds `h` into `into` (mutates `into`). */
export function addInto(into: Histogram, h: Histogram | undefined): Histogram {
  if (h) for (let i = 0; i < BUCKETS; i++) into[i]! += h[i] ?? 0;
  return into;
}

export const countOf = (h: Histogram): number => h.reduce((a, b) => a + b, 0);

/** The value reported for bucket k (see the precision note above). */
function representative(k: number): number {
  if (k === 0) return BASE_MS / 2;
  if (k === BUCKETS - 1) return lowerEdge(k);
  return lowerEdge(k) * Math.sqrt(RATIO);
}

/** The q-quantile (0 < q ≤ 1) in whole milliseconds, or null when the histogram is empty. */
export function percentile(h: Histogram, q: number): number | null {
  const total = countOf(h);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let k = 0; k < BUCKETS; k++) {
    seen += h[k] ?? 0;
    if (seen >= rank) return Math.round(representative(k));
  }
  return Math.round(representative(BUCKETS - 1));
}
