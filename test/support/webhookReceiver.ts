import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery as a receiver saw it, and whether it verified with the secrets it was given. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  event: { id: string; type: string; data: Record<string, unknown> };
  /** Which of the receiver's secrets verified it (by index); empty when none did. */
  verifiedWith: number[];
  at: number;
}

/**
 * A company's receiving system for outbound webhook tests: verifies each delivery with the `standardwebhooks`
 * package and answers as `respond` says (a status, or 'hang' to never answer), `delayMs` after the request. It counts
 * the most requests it held at once (`maxInFlight`). `okBody` is the body of its 2xx answers (default `ok`).
 */
export async function startWebhookReceiver(options: { secrets?: string[]; respond?: (r: Received, nth: number) => number | 'hang'; delayMs?: number; okBody?: string } = {}) {
  const received: Received[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const hanging = new Set<ServerResponse>();
  let secrets = options.secrets ?? [];
  let respond = options.respond ?? (() => 200);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) };
      const verifiedWith = secrets.flatMap((secret, i) => {
        try {
          new Webhook(secret).verify(body, headers);
          return [i];
        } catch {
          return [];
        }
      });
      const r: Received = { id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'], body, event: JSON.parse(body), verifiedWith, at: Date.now() };
      received.push(r);
      const answer = respond(r, received.filter((x) => x.id === r.id).length);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer >= 300 ? `nope ${answer}` : (options.okBody ?? 'ok'));
      }, options.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    get maxInFlight() {
      return maxInFlight;
    },
    setSecrets(next: string[]) {
      secrets = next;
    },
    setRespond(next: typeof respond) {
      respond = next;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
