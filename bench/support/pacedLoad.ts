import http from 'node:http';

export interface PacedRequest {
  id: string;
  body: Buffer;
  headers: Record<string, string>;
}

export interface PacedRecord {
  id: string;
  /** When the request was due (performance.now() ms): latencies count from here. */
  due: number;
  /** When the response had fully arrived; NaN on error or timeout. */
  done: number;
  /** HTTP status; 0 = connection error, -1 = timeout. */
  status: number;
}

export interface PacedResult {
  records: PacedRecord[];
  durationMs: number;
  /** Latency of every answered request, ms, from when it was due (so queueing in the client counts). */
  latencies: number[];
  statusCounts: Record<string, number>;
  timeouts: number;
  errors: number;
}

/**
 * Open-loop load at a fixed, evenly spaced rate (not autocannon's per-second quota, which sends each
 * second's requests in a burst at its start): request i is due at t0 + i / rate and its latency counts
 * from that moment, so a slow answer that holds up later requests shows in their latencies too (no
 * coordinated omission). At most `connections` keep-alive sockets; requests beyond that wait for one.
 */
export async function pacedLoad(options: {
  url: string;
  rate: number;
  durationMs: number;
  connections: number;
  timeoutMs?: number;
  /** POST (default) sends `next(i).body`; GET sends no body. */
  method?: 'GET' | 'POST';
  next: (i: number) => PacedRequest;
  onDone?: (record: PacedRecord) => void;
}): Promise<PacedResult> {
  const target = new URL(options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const timeoutMs = options.timeoutMs ?? 10_000;
  const interval = 1000 / options.rate;
  const total = Math.max(1, Math.round((options.durationMs / 1000) * options.rate));
  const records: PacedRecord[] = [];
  const pending: Promise<void>[] = [];

  const fire = (i: number, due: number) => {
    const { id, body, headers } = options.next(i);
    const record: PacedRecord = { id, due, done: Number.NaN, status: 0 };
    records.push(record);
    pending.push(
      new Promise<void>((resolve) => {
        let settled = false;
        const settle = (status: number) => {
          if (settled) return;
          settled = true;
          record.status = status;
          if (status > 0) record.done = performance.now();
          options.onDone?.(record);
          resolve();
        };
        const req = http.request(
          {
            agent,
            host: target.hostname,
            port: target.port,
            path: target.pathname + target.search,
            method: options.method ?? 'POST',
            headers: options.method === 'GET' ? headers : { ...headers, 'content-length': String(body.length) },
          },
          (res) => {
            res.on('data', () => {});
            res.on('end', () => settle(res.statusCode ?? 0));
            res.on('error', () => settle(0));
          },
        );
        // From when it was sent, not per socket: a request queued for a free connection times out too, so a
        // stalled server cannot keep the run going much past its duration.
        const timer = setTimeout(() => {
          settle(-1);
          req.destroy();
        }, timeoutMs);
        req.once('close', () => clearTimeout(timer));
        req.on('error', () => settle(0));
        if (options.method === 'GET') req.end();
        else req.end(body);
      }),
    );
  };

  const t0 = performance.now() + 10;
  await new Promise<void>((resolve) => {
    let i = 0;
    const tick = () => {
      const now = performance.now();
      while (i < total && t0 + i * interval <= now) {
        fire(i, t0 + i * interval);
        i++;
      }
      if (i < total) setTimeout(tick, Math.max(0, t0 + i * interval - performance.now()));
      else resolve();
    };
    setTimeout(tick, 10);
  });
  await Promise.all(pending);
  const durationMs = performance.now() - t0;
  agent.destroy();

  const statusCounts: Record<string, number> = {};
  for (const r of records) statusCounts[String(r.status)] = (statusCounts[String(r.status)] ?? 0) + 1;
  return {
    records,
    durationMs,
    latencies: records.filter((r) => r.status > 0).map((r) => r.done - r.due),
    statusCounts,
    timeouts: records.filter((r) => r.status === -1).length,
    errors: records.filter((r) => r.status === 0).length,
  };
}
