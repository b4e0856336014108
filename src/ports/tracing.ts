import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Span } from '@opentelemetry/api';

/**
 * Tracing: where one customer message's time goes, from the webhook (or web-chat frame) through the reply's model
 * call to the send. The OpenTelemetry API is this port: it is a no-op until an SDK registers a tracer provider
 * (src/infrastructure/tracing/otel.ts does, only when OTEL_EXPORTER_OTLP_ENDPOINT is set), so with tracing off
 * a span costs a shared non-recording object and no traceparent is ever written.
 *
 * A message's trace crosses threads and processes with its work, never through shared memory: the W3C
 * `traceparent` of the span that wrote an event goes into the event's metadata (handleCommand takes it from the
 * active span), the reactors copy it into the job they publish, and the worker that takes the job starts its span
 * under it. A traceparent holds ids and a sampled flag only: never a secret, never a message's text. Span
 * attributes follow the same rule (ids, counts, model names; no text).
 */
export const tracer = trace.getTracer('messaging-agent-service');

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The W3C traceparent of a span, or undefined when there is none to carry (tracing off). */
export function traceparentOf(span: Span | undefined): string | undefined {
  if (!span) return undefined;
  const sc = span.spanContext();
  if (!trace.isSpanContextValid(sc)) return undefined;
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED ? '01' : '00'}`;
}

/** The traceparent of the active span: what an event appended now carries in its metadata. */
export const activeTraceparent = (): string | undefined => traceparentOf(trace.getActiveSpan());

/** The context a job's span starts under: the traceparent's remote span, or the root (a new trace) without one. */
export function contextOf(traceparent: string | undefined): Context {
  const m = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (!m) return ROOT_CONTEXT;
  const spanContext = { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16) & TraceFlags.SAMPLED, isRemote: true };
  return trace.isSpanContextValid(spanContext) ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : ROOT_CONTEXT;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** Parent: a carried traceparent (a job's); default the active span. */
  traceparent?: string | undefined;
}

/**
 * Runs `fn` inside a new span (active for everything `fn` awaits), ending it when `fn` settles; a throw marks it
 * an error (the exception's type only: its message may quote customer text or an address).
 */
export function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const parent = 'traceparent' in options ? contextOf(options.traceparent) : context.active();
  const span = tracer.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) }, parent);
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await fn(span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', err instanceof Error ? err.name : typeof err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Runs `fn` with `span` active: work a scheduler starts later, from another job's context, stays in its own trace. */
export function withActiveSpan<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(context.active(), span), fn);
}

export { SpanKind, SpanStatusCode, type Span };
