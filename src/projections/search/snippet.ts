import type { TextRange } from '../../ports/readStore.js';

export interface Snippet {
  /** Plain text (never HTML): a window of the message around its first match, or all of it when short. */
  text: string;
  /** Matching words inside `text`: UTF-16 offsets, `end` exclusive. Render them as marks, the rest as text. */
  highlights: TextRange[];
  /** Text was cut before / after the window (show an ellipsis). */
  truncatedStart: boolean;
  truncatedEnd: boolean;
}

export const SNIPPET_LENGTH = 160;
/** How much of the text before the first match the window shows. */
const LEAD = 40;

/** A window of at most `max` characters that starts a little before the first match, on a word boundary. */
export function snippetOf(text: string, ranges: TextRange[], max = SNIPPET_LENGTH): Snippet {
  if (text.length <= max) return { text, highlights: ranges, truncatedStart: false, truncatedEnd: false };
  let start = Math.max(0, (ranges[0]?.start ?? 0) - LEAD);
  if (start > 0) {
    // Begin at the next word start, unless that would skip past the match.
    const space = text.slice(start).search(/\s\S/u);
    if (space >= 0 && start + space + 1 <= (ranges[0]?.start ?? start)) start += space + 1;
  }
  let end = Math.min(text.length, start + max);
  // Never split a surrogate pair (an emoji) at either edge.
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start++;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--;
  const highlights = ranges
    .filter((r) => r.end > start && r.start < end)
    .map((r) => ({ start: Math.max(r.start, start) - start, end: Math.min(r.end, end) - start }));
  return { text: text.slice(start, end), highlights, truncatedStart: start > 0, truncatedEnd: end < text.length };
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
