import { createRequire } from 'node:module';

/** The slice of autocannon 8's programmatic API used here (the package ships no type declarations). */
interface Histogram {
  average: number;
  p50: number;
  p99: number;
  max: number;
}
interface AutocannonResult {
  duration: number;
  latency: Histogram;
  requests: Histogram & { total: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}
interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
  onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  pipelining?: number;
  duration: number;
  amount?: number;
  timeout?: number;
  requests: AutocannonRequest[];
}) => Promise<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface CannonResult {
  seconds: number;
  /** 200 answers per second. */
  okRate: number;
  ok: number;
  non200: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  latency: { p50: number; p99: number; max: number; mean: number };
}

/**
 * Closed-loop load: `connections` keep-alive connections, one request in flight on each, for `seconds`.
 * Every request gets a fresh body from `next()` (autocannon's setupRequest); `onOk` receives the id of
 * each request answered 200 (with one request in flight per connection, the connection's context holds
 * the id of the request being answered).
 */
export async function cannon(options: {
  url: string;
  path: string;
  connections: number;
  seconds: number;
  /** Stop after this many requests instead of after `seconds` (autocannon then ignores the duration). */
  amount?: number;
  next: () => { id: string; body: Buffer; headers: Record<string, string> };
  onOk?: (id: string) => void;
}): Promise<CannonResult> {
  let ok = 0;
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    pipelining: 1,
    duration: options.seconds,
    ...(options.amount !== undefined ? { amount: options.amount } : {}),
    timeout: 10,
    requests: [
      {
        method: 'POST',
        path: options.path,
        setupRequest: (request, context) => {
          const { id, body, headers } = options.next();
          context.id = id;
          return { ...request, body, headers: { ...request.headers, ...headers } };
        },
        onResponse: (status, _body, context) => {
          if (status !== 200) return;
          ok++;
          options.onOk?.(context.id as string);
        },
      },
    ],
  });
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, Number(s.count)]));
  return {
    seconds: result.duration,
    okRate: ok / result.duration,
    ok,
    non200: Object.entries(statusCodes).reduce((n, [code, count]) => (code === '200' ? n : n + count), 0),
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    latency: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max, mean: result.latency.average },
  };
}
