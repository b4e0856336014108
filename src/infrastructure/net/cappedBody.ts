import type { ClientRequest, IncomingMessage } from 'node:http';

/**
 * Collects a response body of at most `maxBytes`: a foreign server cannot make us buffer without end. Past
 * the cap the request is destroyed and `tooLarge` runs instead of `done`. For callers that need the whole body
 * (JSON to parse); one whose outcome the status alone decides reads a prefix instead (`readBodyPrefix`).
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

/**
 * The first `maxBytes` of a response body, and whether there was more: once the cap is reached the request is
 * destroyed and `done` runs at once with what was read, so a large answer costs neither memory nor a wait, and
 * is not a failure (a webhook receiver's 200 is a delivery whatever it says after it).
 */
export function readBodyPrefix(req: ClientRequest, res: IncomingMessage, maxBytes: number, done: (body: Buffer, cut: boolean) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  res.on('data', (chunk: Buffer) => {
    if (finished) return;
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      finished = true;
      done(Buffer.concat(chunks), true);
      req.destroy();
      return;
    }
    size += chunk.length;
    chunks.push(chunk);
  });
  res.on('end', () => {
    if (finished) return;
    finished = true;
    done(Buffer.concat(chunks), false);
  });
}
