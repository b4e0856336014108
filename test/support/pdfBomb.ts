import { constants, deflateRawSync } from 'node:zlib';

/**
 * A small PDF whose one page's content stream (FlateDecode) inflates to `inflatedMiB` MiB of zeros: a decompression
 * bomb, ~1 KiB of PDF per MiB inflated. Built without ever holding the inflated bytes: 1 MiB of zeros deflated with a
 * full flush is a run of non-final blocks that starts from an empty window, so the same bytes repeated N times are
 * N MiB of zeros; a final empty block and the zlib header and checksum (Adler-32 of n zeros: n mod 65521 << 16 | 1)
 * make it one valid zlib stream.
 */
export function buildDeflateBombPdf(inflatedMiB: number): Buffer {
  const segment = deflateRawSync(Buffer.alloc(1024 * 1024), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const final = deflateRawSync(Buffer.alloc(0));
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((inflatedMiB * 1024 * 1024) % 65521) * 65536 + 1) >>> 0);
  const stream = Buffer.concat([Buffer.from([0x78, 0xda]), ...Array.from({ length: inflatedMiB }, () => segment), final, adler]);

  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let size = 0;
  const add = (chunk: string | Buffer) => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    parts.push(buf);
    size += buf.length;
  };
  const object = (id: number, body: string | Buffer[]) => {
    offsets[id] = size;
    add(`${id} 0 obj\n`);
    if (typeof body === 'string') add(body);
    else for (const b of body) add(b);
    add('\nendobj\n');
  };
  add('%PDF-1.4\n');
  object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  object(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  object(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << >> /Contents 4 0 R >>');
  object(4, [Buffer.from(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), stream, Buffer.from('\nendstream', 'latin1')]);
  const xrefAt = size;
  add(`xref\n0 5\n0000000000 65535 f \n${[1, 2, 3, 4].map((id) => `${String(offsets[id]).padStart(10, '0')} 00000 n \n`).join('')}`);
  add(`trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`);
  return Buffer.concat(parts);
}
