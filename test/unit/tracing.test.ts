import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { handleCommand } from '../../src/commands/handleCommand.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import type { Decider } from '../../src/domain/decider.js';
import { MemoryEventStore } from '../../src/infrastructure/memory/memoryEventStore.js';
import { activeTraceparent, contextOf, inSpan, tracer, traceparentOf } from '../../src/ports/tracing.js';

type E = { type: 'Added'; data: { n: number }; id?: string };
const counter: Decider<{ add: number }, E, { total: number }> = {
  initialState: { total: 0 },
  evolve: (s, e) => ({ total: s.total + e.data.n }),
  decide: (c) => [{ type: 'Added', data: { n: c.add } }],
};
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/;

// In this order: the first block runs before any SDK is registered in this file's process.
describe('tracing off (the default)', () => {
  it('no OTEL_EXPORTER_OTLP_ENDPOINT: no tracing config, so no SDK is loaded', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
  });

  it('a span is the no-op API: nothing to carry, and events are appended without a traceparent', async () => {
    const store = new MemoryEventStore();
    await inSpan('webhook', {}, async () => {
      expect(activeTraceparent()).toBeUndefined();
      await handleCommand(store, 'counter-1', counter, { add: 1 }, { metadata: { companyId: 'c' } });
    });
    const [event] = await store.readStream('counter-1');
    expect(event!.metadata).toEqual({ companyId: 'c' });
  });
});

describe('tracing configuration (the standard OpenTelemetry variables)', () => {
  it('an endpoint turns it on: spans go to <endpoint>/v1/traces, sampled as OTEL_TRACES_SAMPLER says', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }).tracing).toEqual({
      tracesUrl: 'http://collector:4318/v1/traces',
      serviceName: 'messaging-agent-service',
      sampler: 'parentbased_traceidratio',
      samplerArg: 0.1,
    });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/custom', OTEL_SERVICE_NAME: 'mas-eu' }).tracing).toMatchObject({ tracesUrl: 'http://collector:4318/custom', serviceName: 'mas-eu' });
  });

  it('a sampler or ratio it does not know stops the start with the variable named', () => {
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(ConfigError);
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
  });
});

describe('tracing on: the traceparent travels with the work', () => {
  const exporter = new InMemorySpanExporter();
  beforeAll(() => new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register());

  it("an event appended inside a span carries the span's traceparent; a job's span started from it joins the same trace", async () => {
    const store = new MemoryEventStore();
    const webhook = await inSpan('webhook', {}, async (span) => {
      await handleCommand(store, 'counter-2', counter, { add: 1 }, { metadata: { companyId: 'c' } });
      return span;
    });
    const [event] = await store.readStream('counter-2');
    expect(event!.metadata.traceparent).toMatch(TRACEPARENT);
    expect(event!.metadata.traceparent).toBe(traceparentOf(webhook));

    // Elsewhere (another thread, another process): only the string arrives.
    await inSpan('reply', { traceparent: event!.metadata.traceparent }, async () => undefined);
    const reply = exporter.getFinishedSpans().find((s) => s.name === 'reply')!;
    expect(reply.spanContext().traceId).toBe(webhook.spanContext().traceId);
    expect(reply.parentSpanContext?.spanId).toBe(webhook.spanContext().spanId);
  });

  it('a throw marks the span an error by its type, never its message (which may quote a customer)', async () => {
    await expect(inSpan('failing', {}, async () => Promise.reject(new TypeError('mail me at a@example.org')))).rejects.toThrow(TypeError);
    const failing = exporter.getFinishedSpans().find((s) => s.name === 'failing')!;
    expect(failing.status.code).toBe(2);
    expect(failing.attributes['error.type']).toBe('TypeError');
    expect(JSON.stringify(failing.attributes) + JSON.stringify(failing.events)).not.toContain('example.org');
  });

  it('no traceparent, or a malformed one, starts a new trace', () => {
    for (const bad of [undefined, 'garbage', '00-00000000000000000000000000000000-0000000000000000-01']) {
      const span = tracer.startSpan('root', {}, contextOf(bad));
      expect((span as unknown as ReadableSpan).parentSpanContext).toBeUndefined();
      span.end();
    }
  });
});
