/** Sliding-window counter per key, pruned as it goes. */
export function slidingWindow(limit: number, windowMs: number) {
  const hits = new Map<string, number[]>();
  return {
    take(key: string, now = Date.now()): boolean {
      const recent = (hits.get(key) ?? []).filter((t) => t > now - windowMs);
      const allowed = recent.length < limit;
      if (allowed) recent.push(now);
      hits.set(key, recent);
      return allowed;
    },
    prune(now = Date.now()) {
      for (const [key, times] of hits) if (!times.some((t) => t > now - windowMs)) hits.delete(key);
    },
  };
}
export type SlidingWindow = ReturnType<typeof slidingWindow>;
