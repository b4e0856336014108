import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/infrastructure/logger.js';
import { testConfig } from '../support/testConfig.js';

/** The shell app (health routes, error handler) with a route that fails, logging into an array. */
async function appLoggingAt(level: string, readiness: () => Promise<Record<string, boolean>> = async () => ({})) {
  const lines: Array<{ level: number; msg: string; req?: { url: string }; res?: { statusCode: number } }> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = await buildApp({
    config: testConfig(),
    logger: createLogger({ level, destination }),
    readiness,
    features: [
      async (f) => {
        f.get('/boom', async () => {
          throw new Error('boom');
        });
      },
    ],
  });
  return { app, requestLines: () => lines.filter((l) => l.msg === 'request completed' || l.msg === 'incoming request') };
}

describe('request logging', () => {
  it('at the default level (info) a request leaves no log line; a 5xx leaves one at warn', async () => {
    const { app, requestLines } = await appLoggingAt('info');
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/nowhere' })).statusCode).toBe(404);
    expect(requestLines()).toEqual([]);
    expect((await app.inject({ url: '/boom' })).statusCode).toBe(500);
    expect(requestLines()).toEqual([expect.objectContaining({ level: 40, req: expect.objectContaining({ url: '/boom' }), res: { statusCode: 500 } })]);
    await app.close();
  });

  it('a 503 from /readyz (still starting, or a dependency down) is an answer polled by load balancers, not a warning', async () => {
    const { app, requestLines } = await appLoggingAt('info', async () => ({ processor: false }));
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(503);
    expect(requestLines()).toEqual([]);
    await app.close();
  });

  it('at debug every request leaves one line, with the path only (no query string, which may carry a token)', async () => {
    const { app, requestLines } = await appLoggingAt('debug');
    await app.inject({ url: '/healthz?access_token=secret-token' });
    expect(requestLines()).toEqual([expect.objectContaining({ level: 20, req: expect.objectContaining({ method: 'GET', url: '/healthz' }), res: { statusCode: 200 } })]);
    expect(JSON.stringify(requestLines())).not.toContain('secret-token');
    await app.close();
  });
});
