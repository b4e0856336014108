import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';

/**
 * The built dashboard at / (index.html for the single-page app's own paths) and the embeddable widget at
 * /widget.js, which pages on other origins load: hence the cross-origin resource policy.
 */
export function staticFileRoutes(distDir: string): FastifyPluginAsync {
  return async (app) => {
    const dashboard = join(distDir, 'dashboard');
    const widgetDir = join(distDir, 'widget');
    const hasWidget = existsSync(join(widgetDir, 'widget.js'));
    const hasDashboard = existsSync(join(dashboard, 'index.html'));
    if (!hasWidget && !hasDashboard) {
      app.log.warn({ distDir }, 'dashboard and widget are not built (npm run build); serving the API only');
      return;
    }
    await app.register(fastifyStatic, { root: hasDashboard ? dashboard : widgetDir, prefix: '/', wildcard: false, serve: hasDashboard, index: false });
    if (hasWidget) {
      app.get('/widget.js', { schema: { hide: true } }, async (_request, reply) => {
        reply
          .header('content-type', 'text/javascript; charset=utf-8')
          .header('cache-control', 'public, max-age=300')
          .header('cross-origin-resource-policy', 'cross-origin');
        return reply.sendFile('widget.js', widgetDir);
      });
    }
    if (hasDashboard) {
      const spa = async (request: { url: string }, reply: { sendFile(name: string, root: string): unknown; callNotFound(): void }) => {
        if (request.url.startsWith('/api/') || request.url.startsWith('/docs')) return reply.callNotFound();
        return reply.sendFile('index.html', dashboard);
      };
      app.get('/', { schema: { hide: true } }, spa as never);
      app.get('/*', { schema: { hide: true } }, spa as never);
    }
  };
}
