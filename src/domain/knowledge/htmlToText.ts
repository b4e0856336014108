/**
 * HTML → readable plain text for the knowledge base: what a reader sees, not the markup. Pure and linear in
 * the input (a single forward scan with indexOf; no backtracking regular expressions), so a hostile page
 * cannot make it slow. Not a full HTML parser: it drops comments, `<script>`, `<style>`, `<noscript>`,
 * `<template>`, `<svg>` and `<head>` content (the `<title>` is kept as the first line), turns block elements
 * into paragraphs or lines and `<br>` into a line break and list items into "- " lines, removes every other tag and decodes character
 * references (all numeric ones, the common named ones; an unknown name is left as written).
 */

const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head', 'iframe', 'object']);
/** Elements that stand apart as paragraphs (a blank line around them) or as lines of their own. */
const PARAGRAPH = new Set([
  'p', 'section', 'article', 'header', 'footer', 'main', 'nav', 'aside', 'blockquote', 'pre', 'address', 'h1', 'h2',
  'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'dl', 'table', 'form', 'fieldset', 'figure', 'hr', 'title', 'body', 'html',
]);
const LINE = new Set(['div', 'tr', 'dt', 'dd', 'figcaption', 'caption', 'thead', 'tbody', 'tfoot']);

const NAMED: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', copy: '©', reg: '®', trade: '™', hellip: '…',
  mdash: '—', ndash: '–', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«', raquo: '»', bull: '•',
  middot: '·', euro: '€', pound: '£', yen: '¥', cent: '¢', sect: '§', deg: '°', plusmn: '±', times: '×',
  divide: '÷', para: '¶', shy: '', zwj: '', zwnj: '', thinsp: ' ', ensp: ' ', emsp: ' ', iexcl: '¡', iquest: '¿',
  aacute: 'á', Aacute: 'Á', agrave: 'à', Agrave: 'À', acirc: 'â', auml: 'ä', Auml: 'Ä', aring: 'å', Aring: 'Å',
  aelig: 'æ', AElig: 'Æ', ccedil: 'ç', Ccedil: 'Ç', eacute: 'é', Eacute: 'É', egrave: 'è', ecirc: 'ê', euml: 'ë',
  iacute: 'í', icirc: 'î', iuml: 'ï', ntilde: 'ñ', Ntilde: 'Ñ', oacute: 'ó', ocirc: 'ô', ouml: 'ö', Ouml: 'Ö',
  oslash: 'ø', Oslash: 'Ø', uacute: 'ú', ucirc: 'û', uuml: 'ü', Uuml: 'Ü', szlig: 'ß', yacute: 'ý', rarr: '→',
  larr: '←', check: '✓', hearts: '♥', frac12: '½', frac14: '¼', frac34: '¾', sup2: '²', micro: 'µ',
};

/** Decodes `&name;`, `&#123;` and `&#x1F600;`; invalid code points become U+FFFD; unknown names stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]{1,8}|#[0-9]{1,9}|[A-Za-z][A-Za-z0-9]{1,31});/g, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\uFFFD';
      return String.fromCodePoint(code);
    }
    return NAMED[ref] ?? whole;
  });
}

/** A comment opening, or a start/end tag with its name; attributes are skipped up to the next ">". */
const TOKEN = /<!--|<[!?][^>]*>|<(\/?)([A-Za-z][A-Za-z0-9-]*)([^>]*)>/g;
/** Runs of two or more whitespace characters, or one that is not a plain space (a lone space needs no replacing). */
const WHITESPACE_RUN = /\s{2,}|[^\S ]/g;
const ALT = /\balt\s*=\s*(?:"([^"]*)"|'([^']*)')/i;

export function htmlToText(html: string): string {
  const out: string[] = [];
  // Source whitespace (line breaks included) is insignificant in HTML: a run of it reads as one space.
  const text = (from: number, to: number) => {
    if (to > from) out.push(html.slice(from, to).replace(WHITESPACE_RUN, ' '));
  };
  // Nothing after the last ">" can close a tag: scanning it for one would cost a pass per "<" (quadratic).
  const lastGt = html.lastIndexOf('>');
  const scanned = lastGt === -1 ? '' : html.slice(0, lastGt + 1);
  let title = '';
  let i = 0;
  const token = new RegExp(TOKEN.source, 'g');
  for (let m = token.exec(scanned); m !== null; m = token.exec(scanned)) {
    text(i, m.index);
    i = token.lastIndex;
    if (m[0] === '<!--') {
      const end = html.indexOf('-->', i);
      i = end === -1 ? html.length : end + 3;
      if (i > scanned.length) break;
      token.lastIndex = i;
      continue;
    }
    if (m[2] === undefined) continue; // <!doctype …>, <?xml …?>, <![CDATA[…]]>
    const closing = m[1] === '/';
    const name = m[2].toLowerCase();
    if (!closing && SKIPPED.has(name) && !m[3]!.endsWith('/')) {
      const close = findClose(html, name, i);
      if (name === 'head') {
        const t = /<title\b[^>]*>([^<]*)<\/title/i.exec(html.slice(i, close.start));
        if (t?.[1]) title = t[1];
      }
      out.push(' ');
      i = close.end;
      if (i > scanned.length) break;
      token.lastIndex = i;
      continue;
    }
    if (name === 'br') out.push('\n');
    else if (name === 'li') out.push(closing ? '' : '\n- ');
    else if (name === 'td' || name === 'th') out.push(closing ? '\t' : '');
    else if (PARAGRAPH.has(name)) out.push('\n\n');
    else if (LINE.has(name)) out.push('\n');
    else if (name === 'img') {
      const alt = ALT.exec(m[3]!);
      const words = alt?.[1] ?? alt?.[2];
      if (words) out.push(` ${words} `);
    }
  }
  // Text after the last tag; an unterminated tag at the very end is dropped.
  if (i < html.length) {
    const open = /<[A-Za-z/!?]/.exec(html.slice(Math.max(i, scanned.length)));
    text(i, open === null ? html.length : Math.max(i, scanned.length) + open.index);
  }
  const body = decodeEntities(out.join(''));
  return tidy((title ? `${decodeEntities(title).replace(/\s+/g, ' ')}\n\n` : '') + body);
}

function findClose(html: string, name: string, from: number): { start: number; end: number } {
  const lower = `</${name}`;
  let at = from;
  for (;;) {
    const lt = html.indexOf('</', at);
    if (lt === -1) return { start: html.length, end: html.length };
    if (html.slice(lt, lt + lower.length).toLowerCase() === lower && !/[A-Za-z0-9-]/.test(html[lt + lower.length] ?? '')) {
      const gt = html.indexOf('>', lt);
      return { start: lt, end: gt === -1 ? html.length : gt + 1 };
    }
    at = lt + 2;
  }
}

/** Whitespace as a reader expects it: runs of spaces collapsed, lines trimmed, at most one blank line in a row. */
function tidy(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v\u00a0]{2,}|[\t\f\v\u00a0]/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
