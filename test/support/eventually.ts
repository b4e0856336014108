/**
 * Retries `check` every `intervalMs` until it returns without throwing, and resolves with what it returned; past
 * `timeoutMs` the last error is thrown. For state that settles asynchronously (projections, workers) where a
 * check reads more than one value at a time, which expect.poll does not.
 */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 3000, intervalMs = 20): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}
