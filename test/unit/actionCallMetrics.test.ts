import { AggregatorRegistry, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createActionCallMetrics, TOP_ACTIONS } from '../../src/infrastructure/metrics/actionCallMetrics.js';
import { samples, valueOf } from '../support/prometheus.js';

const action = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

describe('action call metrics', () => {
  it('given more actions than TOP_ACTIONS, then the busiest keep their id as label and the rest are summed as "other"', async () => {
    const registry = new Registry();
    const metrics = createActionCallMetrics(registry);
    const actions = TOP_ACTIONS + 5;
    for (let i = 0; i < actions; i++) {
      // Action i has actions - i calls: action 0 is the busiest; every third one fails.
      for (let k = 0; k < actions - i; k++) metrics.callEnded(action(i), k % 3 === 2 ? 'failed' : 'succeeded', 200);
    }
    const text = await registry.metrics();
    const labels = new Set(samples(text, 'mas_action_calls').map((s) => s.labels.action));
    expect(labels.size).toBe(TOP_ACTIONS + 1);
    expect(labels.has(action(0)) && labels.has('other') && !labels.has(action(actions - 1))).toBe(true);
    const other = valueOf(text, 'mas_action_calls', { action: 'other', outcome: 'succeeded' }) + valueOf(text, 'mas_action_calls', { action: 'other', outcome: 'failed' });
    expect(other).toBe(5 + 4 + 3 + 2 + 1);
    const histogramLabels = new Set(samples(text, 'mas_action_call_duration_seconds_count').map((s) => s.labels.action));
    expect(histogramLabels).toEqual(labels);
    expect(valueOf(text, 'mas_action_call_duration_seconds_count', { action: 'other' })).toBe(15);
  });

  it('a histogram of the calls made: cumulative buckets, sum and count; calls never made count only by outcome', async () => {
    const registry = new Registry();
    const metrics = createActionCallMetrics(registry);
    const a = action(1);
    metrics.callEnded(a, 'succeeded', 80);
    metrics.callEnded(a, 'succeeded', 700);
    metrics.callEnded(a, 'failed', 45_000);
    metrics.callEnded(a, 'refused', null);
    metrics.callEnded(a, 'rejected', null);
    const text = await registry.metrics();
    expect(text).toContain('# TYPE mas_action_call_duration_seconds histogram');
    expect(valueOf(text, 'mas_action_call_duration_seconds_bucket', { action: a, le: '0.1' })).toBe(1);
    expect(valueOf(text, 'mas_action_call_duration_seconds_bucket', { action: a, le: '1' })).toBe(2);
    expect(valueOf(text, 'mas_action_call_duration_seconds_bucket', { action: a, le: '30' })).toBe(2);
    expect(valueOf(text, 'mas_action_call_duration_seconds_bucket', { action: a, le: '+Inf' })).toBe(3);
    expect(valueOf(text, 'mas_action_call_duration_seconds_count', { action: a })).toBe(3);
    expect(valueOf(text, 'mas_action_call_duration_seconds_sum', { action: a })).toBeCloseTo(45.78);
    expect(valueOf(text, 'mas_action_calls', { action: a, outcome: 'refused' })).toBe(1);
    expect(valueOf(text, 'mas_action_calls', { action: a, outcome: 'expired' })).toBe(0);
  });

  it('merges with another thread\'s registry like the other metrics (summed series)', async () => {
    const [one, two] = [new Registry(), new Registry()];
    createActionCallMetrics(one).callEnded(action(1), 'succeeded', 100);
    createActionCallMetrics(two).callEnded(action(1), 'succeeded', 100);
    const merged = AggregatorRegistry.aggregate([await one.getMetricsAsJSON(), await two.getMetricsAsJSON()]);
    const text = await merged.metrics();
    expect(valueOf(text, 'mas_action_call_duration_seconds_count', { action: action(1) })).toBe(2);
    expect(valueOf(text, 'mas_action_calls', { action: action(1), outcome: 'succeeded' })).toBe(2);
  });
});
