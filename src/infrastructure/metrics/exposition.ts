import { AggregatorRegistry, type Registry } from 'prom-client';
import type { MetricsJson } from './serviceMetrics.js';

export interface Exposition {
  contentType: string;
  body: string;
}

/**
 * The text exposition of this thread's registry merged with other threads' (their `getMetricsAsJSON()`, sent
 * over the thread's message port). Series with the same name and labels are summed; the threads' own series
 * differ by label (thread="processor", their projections, their jobs), so they appear side by side.
 */
export async function exposeMetrics(local: Registry, remote: MetricsJson[]): Promise<Exposition> {
  if (remote.length === 0) return { contentType: local.contentType, body: await local.metrics() };
  const merged = AggregatorRegistry.aggregate([await local.getMetricsAsJSON(), ...remote]);
  return { contentType: merged.contentType, body: await merged.metrics() };
}
