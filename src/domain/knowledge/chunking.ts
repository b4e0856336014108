/**
 * Knowledge-base text handling, pure and deterministic (same input → same output, no I/O):
 * - `chunkDocument`: splits a document (plain text or markdown) into passages of about `maxChars`
 *   on heading / paragraph / sentence / word boundaries, with a small overlap between consecutive
 *   passages of the same section; each passage is prefixed with its section's heading path.
 * - `searchTerms` / `normalizeTerm`: the English tokenisation (lower-case, accents folded, stop words
 *   dropped) shared by the search index and the builtin provider's relevance check.
 */

// ---------------------------------------------------------------------------------------------
// Tokenisation
// ---------------------------------------------------------------------------------------------

/** A deliberately small English stop-word list: words that carry no meaning for retrieval. */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'above', 'after', 'again', 'all', 'also', 'am', 'an', 'and', 'any', 'are', 'as', 'at',
  'be', 'because', 'been', 'before', 'being', 'below', 'between', 'both', 'but', 'by',
  'can', 'could', 'd', 'did', 'do', 'does', 'doing', 'down', 'during',
  'each', 'else', 'etc', 'few', 'for', 'from', 'further',
  'get', 'got', 'had', 'has', 'have', 'having', 'he', 'her', 'here', 'hers', 'herself', 'him', 'himself',
  'his', 'how', 'i', 'if', 'in', 'into', 'is', 'it', 'its', 'itself', 'just',
  'll', 'm', 'me', 'might', 'more', 'most', 'must', 'my', 'myself',
  'no', 'nor', 'not', 'now', 'of', 'off', 'on', 'once', 'only', 'or', 'other', 'our', 'ours', 'ourselves',
  'out', 'over', 'own', 'please', 're', 's', 'same', 'shall', 'she', 'should', 'so', 'some', 'such',
  't', 'than', 'that', 'the', 'their', 'theirs', 'them', 'themselves', 'then', 'there', 'these', 'they',
  'this', 'those', 'through', 'to', 'too', 'under', 'until', 'up', 'us', 've', 'very',
  'was', 'we', 'were', 'what', 'when', 'where', 'which', 'while', 'who', 'whom', 'why', 'will', 'with',
  'would', 'you', 'your', 'yours', 'yourself', 'yourselves',
  // Contractions, with and without the apostrophe ("doesn't" tokenises to "doesn" + "t"; chat often drops it).
  'aren', 'couldn', 'didn', 'doesn', 'don', 'hadn', 'hasn', 'haven', 'isn', 'shouldn', 'wasn', 'weren', 'won', 'wouldn',
  'arent', 'cant', 'couldnt', 'didnt', 'doesnt', 'dont', 'im', 'isnt', 'ive', 'whats', 'wont', 'youre',
]);

/**
 * Words customers wrap a question in that say nothing about what they ask ("Hi! … thanks"). Dropped from
 * queries only: a greeting sent in the same burst as the question must not dilute the question's coverage.
 */
export const QUERY_FILLER_WORDS: ReadonlySet<string> = new Set([
  'hi', 'hello', 'hey', 'hallo', 'dear', 'greetings', 'thanks', 'thank', 'thx', 'ty', 'cheers', 'regards',
  'ok', 'okay', 'pls', 'plz', 'something', 'anything', 'wondering', 'quick', 'question',
]);

/** Splits text into raw word tokens (letters, combining marks and digits); no normalisation. */
export function tokenize(text: string): string[] {
  return text.split(/[^\p{L}\p{M}\p{N}]+/u).filter((t) => t.length > 0);
}

/**
 * The longest term indexed or searched. Longer "words" (hashes, base64, a 64 KiB message of one word) carry
 * no meaning for retrieval, cost memory in the index and make fuzzy matching allocate a term² matrix.
 */
export const MAX_TERM_CHARS = 64;
/** A query uses at most this many distinct terms (its first ones): bounds the work of one search. */
export const MAX_QUERY_TERMS = 32;

/**
 * Normalises one token into a search term: Unicode-decomposed with accents removed ("café" → "cafe"),
 * lower-cased; null for stop words, single letters (the "s" of "it's") and terms over MAX_TERM_CHARS.
 */
export function normalizeTerm(token: string): string | null {
  // Even combining marks cannot bring a token this long back under the limit: skip the normalisation.
  if (token.length > MAX_TERM_CHARS * 4) return null;
  const term = token.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
  if (term.length === 0) return null;
  if (term.length === 1 && !/\p{N}/u.test(term)) return null;
  if (term.length > MAX_TERM_CHARS) return null;
  if (ENGLISH_STOP_WORDS.has(term)) return null;
  return term;
}

/** The search terms of a text, in order, duplicates kept. */
export function searchTerms(text: string): string[] {
  const terms: string[] = [];
  for (const token of tokenize(text)) {
    const term = normalizeTerm(token);
    if (term !== null) terms.push(term);
  }
  return terms;
}

/** The distinct search terms of a query (filler words dropped), in order of first appearance, at most MAX_QUERY_TERMS. */
export function queryTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const token of tokenize(text)) {
    const term = normalizeTerm(token);
    if (term === null || QUERY_FILLER_WORDS.has(term)) continue;
    terms.add(term);
    if (terms.size >= MAX_QUERY_TERMS) break;
  }
  return [...terms];
}

// ---------------------------------------------------------------------------------------------
// Chunking
// ---------------------------------------------------------------------------------------------

export interface ChunkOptions {
  /** Maximum length of a chunk's body (the heading prefix comes on top). Default 800. */
  maxChars?: number;
  /** Target overlap carried from the previous chunk of the same section. Default 100, at most maxChars/4. */
  overlapChars?: number;
}

export interface Chunk {
  index: number;
  /** Heading path of the section the chunk belongs to, outermost first (empty before any heading). */
  headings: string[];
  /** The passage itself. */
  body: string;
  /** What gets indexed and returned: the heading context line (if any), a blank line, the body. */
  text: string;
}

export const DEFAULT_CHUNK_MAX_CHARS = 800;
export const DEFAULT_CHUNK_OVERLAP_CHARS = 100;

const HEADING_CONTEXT_PREFIX = '## ';
const HEADING_PATH_SEPARATOR = ' › ';

interface Section {
  headings: string[];
  paragraphs: string[];
}

interface Unit {
  text: string;
  /** Separator placed before this unit when it follows another in the same chunk. */
  sep: string;
}

/**
 * Splits a document into passages. Markdown ATX headings (`# …` to `###### …`) and setext headings
 * (a single line underlined by `===` or `---`) start a new section and are not repeated in the body;
 * instead each chunk's `text` starts with `## Outer › Inner`. A heading equal to the document title
 * is left out of that path (the title is indexed separately). Fenced code blocks stay whole when
 * they fit and are never parsed for headings. Sections never share a chunk.
 */
export function chunkDocument(document: { title: string; content: string }, options: ChunkOptions = {}): Chunk[] {
  const maxChars = Math.max(40, Math.floor(options.maxChars ?? DEFAULT_CHUNK_MAX_CHARS));
  const overlapChars = Math.max(
    0,
    Math.min(Math.floor(options.overlapChars ?? DEFAULT_CHUNK_OVERLAP_CHARS), Math.floor(maxChars / 4)),
  );
  const sections = parseSections(document.content, document.title);

  const chunks: Chunk[] = [];
  for (const section of sections) {
    for (const body of packSection(section, maxChars, overlapChars)) {
      chunks.push({
        index: chunks.length,
        headings: section.headings,
        body,
        text: withHeadingContext(section.headings, body),
      });
    }
  }
  return chunks;
}

/** `chunkDocument(...).map(c => c.text)`: what the knowledge index's `addDocument` takes. */
export function chunkTexts(document: { title: string; content: string }, options: ChunkOptions = {}): string[] {
  return chunkDocument(document, options).map((c) => c.text);
}

function withHeadingContext(headings: string[], body: string): string {
  if (headings.length === 0) return body;
  return `${HEADING_CONTEXT_PREFIX}${headings.join(HEADING_PATH_SEPARATOR)}\n\n${body}`;
}

/** Removes the heading context line `chunkDocument` puts in front of a chunk's body (for display). */
export function stripHeadingContext(text: string): string {
  if (!text.startsWith(HEADING_CONTEXT_PREFIX)) return text;
  const end = text.indexOf('\n\n');
  if (end < 0) return text;
  return text.slice(end + 2);
}

// --- parsing -----------------------------------------------------------------------------------

const ATX_OPENING = /^ {0,3}(#{1,6})[ \t]/;
const EMPTY_ATX_HEADING = /^ {0,3}#{1,6}[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;

function parseSections(content: string, title: string): Section[] {
  const lines = content.replace(/\r\n?/g, '\n').split('\n');
  const normalizedTitle = title.trim().toLowerCase();
  const sections: Section[] = [];
  let path: { level: number; text: string }[] = [];
  let current: Section = { headings: [], paragraphs: [] };
  let paragraph: string[] = [];
  let fence: string | null = null;

  const flushParagraph = () => {
    // trimEnd, not /\s+$/: that regex is quadratic on a long run of spaces inside the paragraph.
    const joined = paragraph.join('\n');
    let start = 0;
    while (joined.charCodeAt(start) === 10) start++;
    const text = joined.slice(start).trimEnd();
    if (text.length > 0) current.paragraphs.push(text);
    paragraph = [];
  };
  const startSection = (level: number, text: string) => {
    flushParagraph();
    if (current.paragraphs.length > 0) sections.push(current);
    path = path.filter((h) => h.level < level);
    if (text.length > 0 && text.toLowerCase() !== normalizedTitle) path.push({ level, text });
    current = { headings: path.map((h) => h.text), paragraphs: [] };
  };

  for (const line of lines) {
    if (fence !== null) {
      paragraph.push(line);
      if (line.trim().startsWith(fence)) {
        fence = null;
        flushParagraph();
      }
      continue;
    }
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch?.[1] !== undefined) {
      flushParagraph();
      fence = fenceMatch[1];
      paragraph.push(line);
      continue;
    }
    const atx = ATX_OPENING.exec(line);
    if (atx?.[1] !== undefined) {
      startSection(atx[1].length, atxHeadingText(line.slice(atx[0].length)));
      continue;
    }
    if (EMPTY_ATX_HEADING.test(line)) continue;
    const setext = SETEXT_UNDERLINE.exec(line);
    if (setext?.[1] !== undefined && paragraph.length === 1 && (paragraph[0] ?? '').trim().length > 0) {
      const text = (paragraph[0] ?? '').trim();
      paragraph = [];
      startSection(setext[1].startsWith('=') ? 1 : 2, text);
      continue;
    }
    if (THEMATIC_BREAK.test(line)) {
      flushParagraph();
      continue;
    }
    if (line.trim().length === 0) {
      flushParagraph();
      continue;
    }
    paragraph.push(line);
  }
  flushParagraph(); // also closes an unterminated fence
  if (current.paragraphs.length > 0) sections.push(current);
  return sections;
}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';

/**
 * The text of an ATX heading after its opening `#`s and first blank, without an optional closing
 * sequence of `#`s (which must follow a blank). A scan instead of one regex: `(.*?)(?:[ \t]+#+)?[ \t]*$`
 * backtracks quadratically on a long line full of spaces.
 */
function atxHeadingText(rest: string): string {
  let end = rest.length;
  while (end > 0 && isBlank(rest[end - 1])) end--;
  let hashes = end;
  while (hashes > 0 && rest[hashes - 1] === '#') hashes--;
  if (hashes < end && hashes > 0 && isBlank(rest[hashes - 1])) end = hashes;
  return rest.slice(0, end).trim();
}

// --- packing -----------------------------------------------------------------------------------

function packSection(section: Section, maxChars: number, overlapChars: number): string[] {
  // Paragraphs that fit stay whole units; longer ones arrive as sentences (or words).
  const queue: Unit[] = [];
  for (const paragraph of section.paragraphs) {
    splitToFit(paragraph, maxChars).forEach((unit, i) => {
      queue.push(i === 0 ? { text: unit.text, sep: '\n\n' } : unit);
    });
  }

  // A cursor and a stack, not queue.shift()/unshift(): on the large arrays a 1 MiB paragraph yields
  // (one unit per word) V8 moves the whole array on every shift, which made packing quadratic.
  const pending: Unit[] = [];
  let next = 0;
  const take = (): Unit | undefined => pending.pop() ?? queue[next++];

  const bodies: string[] = [];
  let body = '';
  for (let unit = take(); unit !== undefined; unit = take()) {
    if (body.length === 0) {
      body = unit.text;
      continue;
    }
    if (body.length + unit.sep.length + unit.text.length <= maxChars) {
      body += unit.sep + unit.text;
      continue;
    }
    // A whole paragraph that does not fit a chunk still less than half full: fill it sentence by sentence.
    if (unit.sep === '\n\n' && body.length < maxChars / 2) {
      const sentences = splitSentences(unit.text);
      if (sentences.length > 1) {
        for (let i = sentences.length - 1; i >= 0; i--) pending.push(sentences[i]!);
        continue;
      }
    }
    bodies.push(body);
    const overlap = tail(body, overlapChars);
    const sep = unit.sep === '\n\n' ? '\n\n' : ' ';
    body =
      overlap.length > 0 && overlap.length + sep.length + unit.text.length <= maxChars
        ? overlap + sep + unit.text
        : unit.text;
  }
  if (body.length > 0) bodies.push(body);
  return bodies;
}

/** Splits a paragraph into pieces of at most maxChars: sentences, then words, then hard cuts. */
function splitToFit(paragraph: string, maxChars: number): Unit[] {
  if (paragraph.length <= maxChars) return [{ text: paragraph, sep: '\n\n' }];
  const units: Unit[] = [];
  for (const sentence of splitSentences(paragraph)) {
    if (sentence.text.length <= maxChars) {
      units.push(sentence);
      continue;
    }
    const words = sentence.text.split(/\s+/).filter((w) => w.length > 0);
    words.forEach((word, i) => {
      const sep = i === 0 ? sentence.sep : ' ';
      if (word.length <= maxChars) {
        units.push({ text: word, sep });
        return;
      }
      for (let start = 0; start < word.length; start += maxChars) {
        units.push({ text: word.slice(start, start + maxChars), sep: start === 0 ? sep : '' });
      }
    });
  }
  return units;
}

/** Sentence boundaries: `.`, `!`, `?` or `…` (optionally followed by a closing quote/bracket) + whitespace. */
function splitSentences(text: string): Unit[] {
  const units: Unit[] = [];
  const boundary = /(?<=[.!?…]["'”’)\]]?)\s+/g;
  let start = 0;
  let sep = '\n\n';
  for (const match of text.matchAll(boundary)) {
    const end = match.index;
    const piece = text.slice(start, end);
    if (piece.length > 0) units.push({ text: piece, sep });
    sep = match[0].includes('\n') ? '\n' : ' ';
    start = end + match[0].length;
  }
  const last = text.slice(start);
  if (last.length > 0) units.push({ text: last, sep });
  return units;
}

/**
 * The end of a chunk to repeat at the start of the next: whole trailing sentences that fit in
 * `maxChars`, else the trailing words that fit; never cuts a word.
 */
function tail(body: string, maxChars: number): string {
  if (maxChars <= 0) return '';
  if (body.length <= maxChars) return '';
  const window = body.slice(body.length - maxChars);
  const sentenceStart = /[.!?…]["'”’)\]]?\s+/g;
  let cut = -1;
  for (const match of window.matchAll(sentenceStart)) {
    const after = match.index + match[0].length;
    if (after < window.length) {
      cut = after;
      break;
    }
  }
  if (cut < 0) {
    const space = window.search(/\s/);
    if (space < 0) return '';
    cut = space + 1;
  }
  return window.slice(cut).trim();
}
