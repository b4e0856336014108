import type { AppDeps } from '../app.js';
import { healthzSchema, readyzSchema } from './health.schemas.js';
import type { ZodApp } from './zodApp.js';

/** GET /healthz (the process answers) and GET /readyz (every dependency answers; 503 while one does not). */
export function registerHealthRoutes(app: ZodApp, deps: Pick<AppDeps, 'readiness' | 'metrics'>): void {
  app.get('/healthz', { schema: healthzSchema }, async () => ({ ok: true }));
  app.get('/readyz', { schema: readyzSchema }, async (_request, reply) => {
    const checks = await deps.readiness().catch(() => ({ readiness: false }));
    const ready = Object.values(checks).every(Boolean);
    const metrics = deps.metrics ? await deps.metrics().catch(() => undefined) : undefined;
    return reply.status(ready ? 200 : 503).send({ ok: ready, checks, ...(metrics ? { metrics } : {}) });
  });
}
