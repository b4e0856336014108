import type { ReactNode } from 'react';
import type { TextRange } from '../api/search.js';

/**
 * Text with some ranges marked. Everything is a React text node (escaped by React), so customer text that
 * looks like HTML stays text; offsets outside the text or overlapping are clamped and merged.
 */
export function Highlighted({ text, ranges }: { text: string; ranges: TextRange[] }) {
  const sorted = ranges
    .map((r) => ({ start: Math.max(0, Math.min(r.start, text.length)), end: Math.max(0, Math.min(r.end, text.length)) }))
    .filter((r) => r.end > r.start)
    .sort((a, b) => a.start - b.start);
  const parts: ReactNode[] = [];
  let at = 0;
  for (const r of sorted) {
    const start = Math.max(r.start, at);
    if (r.end <= start) continue;
    if (start > at) parts.push(text.slice(at, start));
    parts.push(<mark key={start}>{text.slice(start, r.end)}</mark>);
    at = r.end;
  }
  if (at < text.length) parts.push(text.slice(at));
  return <>{parts}</>;
}
