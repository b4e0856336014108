import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { unauthorized } from '../errors.js';

export interface MetricsRouteDeps {
  /** METRICS_TOKEN: when set, a scrape must send `Authorization: Bearer <token>`. */
  token: string | undefined;
  /** The Prometheus text exposition of this process (its threads merged). */
  expose(): Promise<{ contentType: string; body: string }>;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** GET /metrics in the Prometheus text format, for a scraper on the operators' network. */
export function metricsRoutes(deps: MetricsRouteDeps): FastifyPluginAsync {
  const expected = deps.token === undefined ? null : digest(deps.token);
  return async (app) => {
    app.get(
      '/metrics',
      // Scraped every few seconds: only failures are worth a log line.
      { logLevel: 'warn', schema: { tags: ['health'], description: 'Prometheus metrics (text format). Bearer METRICS_TOKEN when one is configured.' } },
      async (request, reply) => {
        if (expected) {
          const given = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
          // Digests of equal length: the comparison takes the same time whatever was sent.
          if (given === undefined || !timingSafeEqual(digest(given), expected)) throw unauthorized('Missing or invalid metrics token');
        }
        const { contentType, body } = await deps.expose();
        return reply.header('content-type', contentType).header('cache-control', 'no-store').send(body);
      },
    );
  };
}
