/**
 * Builds a small, valid PDF (PDF 1.4, Helvetica, one text line per page) with a correct xref table, so tests
 * need no binary blobs beyond the tiny fixture and can make a PDF of any size.
 */
export function buildPdf(pages: string[][], options: { title?: string; heading?: string } = {}): Buffer {
  const objects: string[] = [];
  const pageIds: number[] = [];
  // 1: catalog, 2: pages, 3: font; then per page: page object + content stream.
  let next = 4;
  const pageObjects: string[] = [];
  for (const lines of pages) {
    const pageId = next++;
    const contentId = next++;
    pageIds.push(pageId);
    const escape = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
    // `heading`: a line in 24-point type above the first page's text.
    const heading = options.heading && pageIds.length === 1 ? `BT /F1 24 Tf 72 750 Td (${escape(options.heading)}) Tj ET\n` : '';
    const ops = heading + lines.map((line, i) => `BT /F1 12 Tf 72 ${720 - i * 16} Td (${escape(line)}) Tj ET`).join('\n');
    pageObjects[pageId] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${contentId} 0 R >>`;
    pageObjects[contentId] = `<< /Length ${Buffer.byteLength(ops, 'latin1')} >>\nstream\n${ops}\nendstream`;
  }
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageIds.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  for (let id = 4; id < next; id++) objects[id] = pageObjects[id]!;
  // `title`: the document information dictionary's Title.
  const infoId = options.title === undefined ? null : next++;
  if (infoId !== null) objects[infoId] = `<< /Title (${options.title!.replace(/[\\()]/g, (c) => `\\${c}`)}) >>`;

  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < next; id++) {
    offsets[id] = Buffer.byteLength(out, 'latin1');
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xrefAt = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${next}\n0000000000 65535 f \n`;
  for (let id = 1; id < next; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${next} /Root 1 0 R${infoId !== null ? ` /Info ${infoId} 0 R` : ''} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
