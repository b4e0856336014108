import { Gauge, type Registry } from 'prom-client';
import type { OutboundWebhookMetrics } from '../../ports/metrics.js';

/** Endpoints with a label of their own; the others are summed under `endpoint="other"`. */
export const TOP_ENDPOINTS = 20;

interface EndpointStats {
  delivered: number;
  failed: number;
  lagSeconds: number;
}

/**
 * `mas_outbound_webhook_attempts{endpoint, outcome}` (delivered, failed; counted since the process started) and
 * `mas_outbound_webhook_lag_seconds{endpoint}` (age of the event last delivered). Bounded labels: at each scrape
 * the TOP_ENDPOINTS endpoints with the most attempts keep their id, the rest are one `other` series (the lag
 * of `other` is the largest among them), so a company adding endpoints cannot grow the series without bound.
 */
export function createOutboundWebhookMetrics(registry: Registry): OutboundWebhookMetrics {
  const stats = new Map<string, EndpointStats>();
  const statsOf = (id: string) => {
    let s = stats.get(id);
    if (!s) stats.set(id, (s = { delivered: 0, failed: 0, lagSeconds: 0 }));
    return s;
  };
  const grouped = () => {
    const ranked = [...stats.entries()].sort((a, b) => b[1].delivered + b[1].failed - (a[1].delivered + a[1].failed));
    const out = new Map<string, EndpointStats>(ranked.slice(0, TOP_ENDPOINTS));
    const rest = ranked.slice(TOP_ENDPOINTS);
    if (rest.length > 0) {
      out.set('other', rest.reduce((sum, [, s]) => ({ delivered: sum.delivered + s.delivered, failed: sum.failed + s.failed, lagSeconds: Math.max(sum.lagSeconds, s.lagSeconds) }), { delivered: 0, failed: 0, lagSeconds: 0 }));
    }
    return out;
  };
  new Gauge({
    name: 'mas_outbound_webhook_attempts',
    help: `Outbound webhook delivery attempts since the process started, by endpoint (the ${TOP_ENDPOINTS} busiest, then "other") and outcome (delivered, failed)`,
    labelNames: ['endpoint', 'outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [endpoint, s] of grouped()) {
        this.set({ endpoint, outcome: 'delivered' }, s.delivered);
        this.set({ endpoint, outcome: 'failed' }, s.failed);
      }
    },
  });
  new Gauge({
    name: 'mas_outbound_webhook_lag_seconds',
    help: 'Age of the public event an endpoint was last delivered, from when it happened to its 2xx',
    labelNames: ['endpoint'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [endpoint, s] of grouped()) this.set({ endpoint }, s.lagSeconds);
    },
  });
  return {
    attempted(endpointId, ok) {
      const s = statsOf(endpointId);
      if (ok) s.delivered++;
      else s.failed++;
    },
    lag(endpointId, ms) {
      statsOf(endpointId).lagSeconds = ms / 1000;
    },
  };
}
