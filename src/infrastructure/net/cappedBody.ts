import type { ClientRequest, IncomingMessage } from 'node:http';

/**
 * Collects a response body of at most `maxBytes`: a foreign server cannot make us buffer without end. Past
 * the cap the request is destroyed and `tooLarge` runs instead of `done`.
 */
export function readCappedBody(req: ClientRequest, res: IncomingMessage, maxBytes: number, on: { tooLarge(): void; done(body: Buffer): void }): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  res.on('data', (chunk: Buffer) => {
    if (over) return;
    size += chunk.length;
    if (size > maxBytes) {
      over = true;
      on.tooLarge();
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  res.on('end', () => {
    if (!over) on.done(Buffer.concat(chunks));
  });
}
