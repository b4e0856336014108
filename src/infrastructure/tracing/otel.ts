import type { TracingConfig } from '../../config.js';

export interface Tracing {
  /** Exports the spans still buffered, then stops (a no-op when tracing is off). */
  shutdown(): Promise<void>;
}

const off: Tracing = { shutdown: async () => undefined };

/**
 * Registers the OpenTelemetry SDK behind the API (src/ports/tracing.ts) in this thread, when tracing is configured.
 * Each thread registers its own (worker threads share no module state): spans are batched and posted to the OTLP
 * endpoint as JSON. Off (no endpoint), the SDK is not even loaded: the API stays the no-op it is by default.
 */
export async function startTracing(config: TracingConfig | undefined, thread: string): Promise<Tracing> {
  if (!config) return off;
  const [{ NodeTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, AlwaysOnSampler, AlwaysOffSampler }, { OTLPTraceExporter }, { resourceFromAttributes }] =
    await Promise.all([import('@opentelemetry/sdk-trace-node'), import('@opentelemetry/exporter-trace-otlp-http'), import('@opentelemetry/resources')]);
  const ratio = () => new TraceIdRatioBasedSampler(config.samplerArg);
  const sampler = {
    always_on: () => new AlwaysOnSampler(),
    always_off: () => new AlwaysOffSampler(),
    traceidratio: ratio,
    parentbased_always_on: () => new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    parentbased_always_off: () => new ParentBasedSampler({ root: new AlwaysOffSampler() }),
    parentbased_traceidratio: () => new ParentBasedSampler({ root: ratio() }),
  }[config.sampler]();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'thread.name': thread }),
    sampler,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: config.tracesUrl }))],
  });
  // The AsyncLocalStorage context manager: a span started in a handler stays active across what it awaits.
  provider.register();
  return { shutdown: () => provider.shutdown() };
}
