import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A company's own API, as its actions call it: records every request (method, path with query, headers, body) and
 * answers `respond(request)` as JSON (default `{ status: 'shipped', eta: 'Friday' }`). `hangNext(n)`: the next n
 * requests never get an answer (a crash or a timeout in the middle of a call). An answer with `raw` is sent as that
 * text, as it is (a body JSON.stringify could not make, such as one nested 100,000 levels deep).
 */
export interface CompanyApiRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface FakeCompanyApi {
  readonly url: string;
  readonly requests: CompanyApiRequest[];
  respond: (request: CompanyApiRequest) => { status?: number; body?: unknown; raw?: string };
  hangNext(count: number): void;
  close(): Promise<void>;
}

export async function startFakeCompanyApi(): Promise<FakeCompanyApi> {
  const requests: CompanyApiRequest[] = [];
  const hanging = new Set<ServerResponse>();
  let hang = 0;
  const api = {
    respond: (_request: CompanyApiRequest) => ({ body: { status: 'shipped', eta: 'Friday' } as unknown }) as { status?: number; body?: unknown; raw?: string },
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const request: CompanyApiRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: raw ? safeJson(raw) : null };
    requests.push(request);
    if (hang > 0) {
      hang--;
      hanging.add(res);
      return;
    }
    const answer = api.respond(request);
    const body = answer.raw ?? JSON.stringify(answer.body);
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(api, {
    url: `http://127.0.0.1:${port}`,
    requests,
    hangNext(count: number) {
      hang += count;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
