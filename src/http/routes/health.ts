import { healthzSchema, readyzSchema } from './health.schemas.js';
import type { ZodApp } from './zodApp.js';

/** GET /healthz (the process answers) and GET /readyz (every dependency answers; 503 while one does not). */
export interface HealthDeps {
  /** Readiness of each external dependency (event store, read store, bus). */
  readiness: () => Promise<Record<string, boolean>>;
  /** Figures shown next to the checks in /readyz (event-loop delay per thread). */
  metrics?: () => Promise<Record<string, unknown>>;
}

export function registerHealthRoutes(app: ZodApp, deps: HealthDeps): void {
  app.get('/healthz', { schema: healthzSchema }, async () => ({ ok: true }));
  app.get('/readyz', { schema: readyzSchema }, async (_request, reply) => {
    const checks = await deps.readiness().catch(() => ({ readiness: false }));
    const ready = Object.values(checks).every(Boolean);
    const metrics = deps.metrics ? await deps.metrics().catch(() => undefined) : undefined;
    return reply.status(ready ? 200 : 503).send({ ok: ready, checks, ...(metrics ? { metrics } : {}) });
  });
}
