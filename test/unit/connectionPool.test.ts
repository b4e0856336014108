import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuardedFetch } from '../../src/infrastructure/net/guardedFetch.js';
import { createPlatformClient } from '../../src/infrastructure/platform/platformClient.js';

/** A platform-shaped server that counts connections and requests; `resetSecondOnSocket` plays a server closing an idle connection as the client reuses it. */
async function countingServer(options: { resetSecondOnSocket?: boolean } = {}) {
  const seen = { connections: 0, requests: 0 };
  const perSocket = new WeakMap<object, number>();
  const server = http.createServer((req, res) => {
    seen.requests++;
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    if (options.resetSecondOnSocket && n === 2) {
      req.socket.destroy();
      return;
    }
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ status: 'success', data: { message_id: seen.requests } }));
    });
  });
  server.on('connection', () => void seen.connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const send = (client: ReturnType<typeof createPlatformClient>, url: string, n: number) =>
  client.sendMessage({ apiUrl: url, apiToken: 'token', clientId: 1, channelId: 2, transport: 'telegram', text: `hello ${n}`, idempotencyKey: `key-${n}` });

let closeServer: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeServer?.();
  closeServer = undefined;
});

describe('outbound connections are kept alive', () => {
  it('given three sends to one platform, when they go one after another, then they share one connection', async () => {
    const server = await countingServer();
    closeServer = server.close;
    const client = createPlatformClient({ allowPrivate: true, requireHttps: false });
    for (let n = 1; n <= 3; n++) await send(client, server.url, n);
    expect(server.seen).toEqual({ connections: 1, requests: 3 });
  });

  it('given a kept-alive connection the platform closes as it is reused, when the next send goes out, then it is sent again on a new connection and succeeds', async () => {
    const server = await countingServer({ resetSecondOnSocket: true });
    closeServer = server.close;
    const client = createPlatformClient({ allowPrivate: true, requireHttps: false });
    await send(client, server.url, 1);
    await expect(send(client, server.url, 2)).resolves.toMatchObject({ messageId: 3 });
    expect(server.seen).toEqual({ connections: 2, requests: 3 });
  });

  it('given the LLM fetch, when two calls go out, then they share one connection, and a reset reused socket is retried once on a new one', async () => {
    const server = await countingServer({ resetSecondOnSocket: true });
    closeServer = server.close;
    const guarded = createGuardedFetch({ allowPrivate: true, requireHttps: false });
    const post = async () => (await guarded(`${server.url}/v1/chat/completions`, { method: 'POST', body: '{}' })).json();
    await post();
    expect(server.seen).toEqual({ connections: 1, requests: 1 });
    await expect(post()).resolves.toMatchObject({ status: 'success' });
    // The resend's own connection is not pooled: the next call opens a third.
    await post();
    expect(server.seen).toEqual({ connections: 3, requests: 4 });
  });

  it('given two clients (two policies), when each calls the same server, then no socket is lent across them', async () => {
    const server = await countingServer();
    closeServer = server.close;
    await send(createPlatformClient({ allowPrivate: true, requireHttps: false }), server.url, 1);
    await send(createPlatformClient({ allowPrivate: true, requireHttps: false }), server.url, 2);
    expect(server.seen.connections).toBe(2);
  });
});
