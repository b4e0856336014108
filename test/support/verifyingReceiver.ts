import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery that verified: its webhook-id and the public event it carried. */
export interface ReceivedDelivery {
  webhookId: string;
  event: { id: string; type: string; timestamp: string; data: Record<string, unknown> };
}

/**
 * A company's own system receiving outbound webhooks: every delivery is verified with the `standardwebhooks`
 * package (a delivery that does not verify is answered 400 and counted apart). `delayMs` makes it slow, so
 * deliveries are in flight when a test kills the service. Once armed with the endpoint's secret it answers 204.
 */
export async function startVerifyingReceiver(options: { delayMs?: number } = {}) {
  let verifier: Webhook | null = null;
  const received: ReceivedDelivery[] = [];
  let rejected = 0;
  let inFlight = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      inFlight++;
      setTimeout(() => {
        inFlight--;
        if (!verifier) return void res.writeHead(503).end();
        try {
          const event = verifier.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>) as ReceivedDelivery['event'];
          received.push({ webhookId: String(req.headers['webhook-id']), event });
          res.writeHead(204).end();
        } catch {
          rejected++;
          res.writeHead(400).end();
        }
      }, options.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arm(secret: string) {
      verifier = new Webhook(secret);
    },
    received: () => received,
    get rejected() {
      return rejected;
    },
    /** Requests read and not yet answered. */
    get inFlight() {
      return inFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * What a receiver got against what the feed says happened: events never delivered, deliveries of events the feed
 * does not have, events delivered under more than one webhook-id, and conversations whose events first arrived in
 * another order than the feed's (the log's).
 */
export function checkDeliveries(feed: { id: string; data: { conversationId?: string } }[], received: ReceivedDelivery[]) {
  const webhookIds = new Map<string, Set<string>>();
  const firstArrivals: string[] = [];
  for (const d of received) {
    if (!webhookIds.has(d.event.id)) {
      webhookIds.set(d.event.id, new Set());
      firstArrivals.push(d.event.id);
    }
    webhookIds.get(d.event.id)!.add(d.webhookId);
  }
  const inFeed = new Set(feed.map((e) => e.id));
  const conversationOf = new Map(feed.map((e) => [e.id, e.data.conversationId ?? null]));
  const order = (ids: string[]) => {
    const per = new Map<string, string[]>();
    for (const id of ids) {
      const c = conversationOf.get(id);
      if (c) per.set(c, [...(per.get(c) ?? []), id]);
    }
    return per;
  };
  const expected = order(feed.map((e) => e.id));
  const arrived = order(firstArrivals.filter((id) => inFeed.has(id)));
  return {
    missing: feed.filter((e) => !webhookIds.has(e.id)).map((e) => e.id),
    unknown: [...webhookIds.keys()].filter((id) => !inFeed.has(id)),
    underSeveralIds: [...webhookIds].filter(([, ids]) => ids.size !== 1).map(([id]) => id),
    outOfOrder: [...expected].filter(([c, ids]) => (arrived.get(c) ?? []).join() !== ids.join()).map(([c]) => c),
    /** Events delivered more than once (at least once: allowed, with the same webhook-id). */
    duplicated: received.length - webhookIds.size,
  };
}
