import { createOutboundWebhookMetrics } from './outboundWebhookMetrics.js';
import { createActionCallMetrics } from './actionCallMetrics.js';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { WebhookMetrics } from '../../ports/metrics.js';
import { createJobGauge } from './jobGauge.js';
import { createLlmInstrumentation } from './instrumentedLlm.js';
import { createReplayMetrics } from './replayMetrics.js';

export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

/** What the event-loop monitor of a thread reports (src/processing/eventLoopMonitor.ts). */
interface EventLoopSource {
  snapshot(): { p50Ms: number; p99Ms: number; maxMs: number };
}
/** What a projection runner and its event store report: how far each projection is, and where the head is. */
interface ProjectionSource {
  status(): Array<{ name: string; position: string | null }>;
}
interface HeadSource {
  headPosition(): Promise<bigint | null>;
}

/**
 * The Prometheus registry of one thread (the API's, or the processor thread's) with the service's metrics.
 * `processMetrics` adds prom-client's default process_* / nodejs_* metrics: only one registry per process
 * may have them (the main thread's), or merging the processor thread's registry would count the process twice.
 */
export function createServiceMetrics(options: { processMetrics: boolean }) {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });

  const webhookDuration = new Histogram({
    name: 'mas_webhook_request_duration_seconds',
    help: 'Duration of webhook POSTs until the answer, by outcome (processed, duplicate, ignored, rejected_not_found, rejected_unauthorized, rejected_forbidden, rejected_invalid, error); its _count is the webhook rate',
    labelNames: ['outcome'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const rejectionsUnlogged = new Counter({
    name: 'mas_webhook_rejections_unlogged_total',
    help: 'Webhook POSTs rejected before their signature verified and beyond the per-integration log limit (20 a minute): answered as usual, counted here, not logged',
    registers: [registry],
  });
  const webhooks: WebhookMetrics = {
    webhookHandled: (outcome, seconds) => webhookDuration.observe({ outcome }, seconds),
    rejectionNotLogged: () => rejectionsUnlogged.inc(),
  };

  const loops = new Map<string, EventLoopSource>();
  new Gauge({
    name: 'mas_event_loop_delay_seconds',
    help: 'Event-loop delay of a thread (api, processor) over the last minute: stat p50, p99 or max',
    labelNames: ['thread', 'stat'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [thread, loop] of loops) {
        const s = loop.snapshot();
        this.set({ thread, stat: 'p50' }, s.p50Ms / 1000);
        this.set({ thread, stat: 'p99' }, s.p99Ms / 1000);
        this.set({ thread, stat: 'max' }, s.maxMs / 1000);
      }
    },
  });

  const leases = new Map<string, { held(): boolean }>();
  new Gauge({
    name: 'mas_lease_held',
    help: 'Whether this instance holds the lease of a stateful duty (projections, reactors, sweeps) and runs it: 1, or 0 while it stands by (on PostgreSQL one processor holds each; elsewhere every one does)',
    labelNames: ['lease'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [lease, duty] of leases) this.set({ lease }, duty.held() ? 1 : 0);
    },
  });

  return {
    registry,
    webhooks,
    jobs: createJobGauge(registry),
    replays: createReplayMetrics(registry),
    webhookDeliveries: createOutboundWebhookMetrics(registry),
    actionCalls: createActionCallMetrics(registry),
    instrumentLlm: createLlmInstrumentation(registry),
    watchEventLoop(thread: 'api' | 'processor' | 'projections' | 'replies' | 'webhooks', loop: EventLoopSource) {
      loops.set(thread, loop);
    },
    /** A leased duty of this thread (src/processing/leasedDuty.ts), reported as mas_lease_held. */
    watchLease(name: string, duty: { held(): boolean }) {
      leases.set(name, duty);
    },
    /** Only the thread that runs the projections has these metrics (an API-only instance has none). */
    watchProjections(runner: ProjectionSource, store: HeadSource) {
      registerProjectionLag(registry, runner, store);
    },
  };
}

function registerProjectionLag(registry: Registry, runner: ProjectionSource, store: HeadSource) {
  let head: bigint | null = null;
  new Gauge({
    name: 'mas_projection_lag_positions',
    help: 'How far each projection is behind the event store head, in log positions (SQLite: events; EventStoreDB: commit-position units)',
    labelNames: ['projection'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      // A store that cannot answer now (closing, failing) leaves the figures out rather than failing the scrape.
      const at = await store.headPosition().catch(() => undefined);
      if (at === undefined) return;
      head = at;
      for (const p of runner.status()) {
        const done = p.position === null ? 0n : BigInt(p.position);
        this.set({ projection: p.name }, Number(at === null || done >= at ? 0n : at - done));
      }
    },
  });
  // Registered after the lag gauge, whose collect reads the head it shows.
  new Gauge({
    name: 'mas_event_store_head_position',
    help: 'Position of the newest event in the event store, as the projections see it',
    registers: [registry],
    collect() {
      this.set(Number(head ?? 0n));
    },
  });
}

export type ServiceMetrics = ReturnType<typeof createServiceMetrics>;
