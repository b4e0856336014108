import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createOutboundWebhookMetrics, TOP_ENDPOINTS } from '../../src/infrastructure/metrics/outboundWebhookMetrics.js';
import { samples, valueOf } from '../support/prometheus.js';

describe('outbound webhook metrics', () => {
  it('given more endpoints than TOP_ENDPOINTS, then the busiest keep their label and the rest are summed as "other"', async () => {
    const registry = new Registry();
    const metrics = createOutboundWebhookMetrics(registry);
    const endpoints = TOP_ENDPOINTS + 5;
    for (let i = 0; i < endpoints; i++) {
      // Endpoint i has endpoints - i attempts: e0 is the busiest.
      for (let k = 0; k < endpoints - i; k++) metrics.attempted(`e${i}`, k % 2 === 0, 10);
      metrics.lag(`e${i}`, i * 1000);
    }
    const text = await registry.metrics();
    const labels = new Set(samples(text, 'mas_outbound_webhook_attempts').map((s) => s.labels.endpoint));
    expect(labels.size).toBe(TOP_ENDPOINTS + 1);
    expect(labels.has('e0') && labels.has('other') && !labels.has(`e${endpoints - 1}`)).toBe(true);
    // The five quietest (5, 4, 3, 2, 1 attempts) are one series; their lag is the largest of theirs.
    const other = valueOf(text, 'mas_outbound_webhook_attempts', { endpoint: 'other', outcome: 'delivered' }) + valueOf(text, 'mas_outbound_webhook_attempts', { endpoint: 'other', outcome: 'failed' });
    expect(other).toBe(5 + 4 + 3 + 2 + 1);
    expect(valueOf(text, 'mas_outbound_webhook_lag_seconds', { endpoint: 'other' })).toBe(endpoints - 1);
  });
});
