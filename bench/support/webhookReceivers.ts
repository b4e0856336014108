import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** What one receiver path saw: every verified delivery's arrival, by webhook-id. */
export interface ReceiverLog {
  /** webhook-id → how many times it arrived (a retry after a lost answer arrives again with the same id). */
  counts: Map<string, number>;
  /** Per first arrival: public event time → arrival, ms (the delivery lag a receiver sees). */
  lags: number[];
  /** Deliveries whose signature did not verify (answered 400, never counted above). */
  rejected: number;
  /** performance.now() of the last arrival. */
  lastAt: number;
}

/**
 * Receivers of outbound webhooks in this process: one HTTP server, a path per endpoint (`/hook/<name>`), each
 * verifying its deliveries with the endpoint's secret through the `standardwebhooks` package, as a company's own
 * system would. The secret is only known once the endpoint is created, so a path is armed with it afterwards;
 * a delivery to an unarmed path is refused (503, so the service retries it).
 */
export async function startWebhookReceivers() {
  const logs = new Map<string, ReceiverLog>();
  const verifiers = new Map<string, Webhook>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const name = (req.url ?? '').replace(/^\/hook\//, '');
      const verifier = verifiers.get(name);
      const log = logs.get(name);
      if (!verifier || !log) return void res.writeHead(503).end();
      const body = Buffer.concat(chunks).toString('utf8');
      let event: { timestamp: string };
      try {
        event = verifier.verify(body, req.headers as Record<string, string>) as { timestamp: string };
      } catch {
        log.rejected++;
        return void res.writeHead(400).end();
      }
      const id = String(req.headers['webhook-id']);
      const seen = log.counts.get(id) ?? 0;
      log.counts.set(id, seen + 1);
      if (seen === 0) log.lags.push(Date.now() - Date.parse(event.timestamp));
      log.lastAt = performance.now();
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (name: string) => `http://127.0.0.1:${port}/hook/${name}`,
    /** Starts accepting `name`'s deliveries, verified with `secret` (whsec_…). */
    arm(name: string, secret: string): ReceiverLog {
      const log: ReceiverLog = { counts: new Map(), lags: [], rejected: 0, lastAt: 0 };
      logs.set(name, log);
      verifiers.set(name, new Webhook(secret));
      return log;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
