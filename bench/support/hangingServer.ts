import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP server on loopback that accepts every connection, reads whatever is sent and never answers: an LLM
 * endpoint that hangs (the client waits for its own timeout). `url` is an OpenAI-style base URL.
 */
export async function startHangingServer() {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get connections() {
      return connections;
    },
    get open() {
      return sockets.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
