/**
 * The baseline of bench/webhooks.ts: a bare fastify app with one POST route that reads the raw body (same
 * buffer parser and body limit as the service's webhook route) and verifies its HMAC with the service's
 * own verifyWebhookSignature, then answers 200 {ok:true}. No logger, no store, no validation.
 *
 *   PORT=… HOST=127.0.0.1 WEBHOOK_SECRET=… node --import tsx bench/support/baselineServer.ts
 */
import Fastify from 'fastify';
import { BODY_LIMIT } from '../../src/http/app.js';
import { verifyWebhookSignature } from '../../src/http/platformWebhooks/webhookSignature.js';

const secret = process.env.WEBHOOK_SECRET ?? '';
const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body));

app.get('/ready', async () => ({ ok: true }));
app.post('/api/webhook/:connectorType/:integrationId', async (request, reply) => {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const verdict = verifyWebhookSignature(
    body,
    { 'x-webhook-signature': request.headers['x-webhook-signature'], 'x-hub-signature-256': request.headers['x-hub-signature-256'] },
    secret,
  );
  if (!verdict.ok) return reply.status(401).send({ error: { code: 'INVALID_SIGNATURE', message: verdict.reason } });
  return reply.status(200).send({ ok: true });
});

await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
