/**
 * HTML → readable plain text for the knowledge base: what a reader sees, not the markup. The page is tokenised
 * by htmlparser2's Tokenizer, which follows HTML's rules for tags, attribute values (`title="x>y"`), comments,
 * raw-text elements (`<script>`, `<style>`, `<textarea>`, `<title>` …) and every named character reference
 * (`&bdquo;`, `&copy` without its semicolon). This module only decides what each element becomes, with counters
 * instead of an element stack, so the work stays linear however deeply a hostile page nests its tags (the
 * library's Parser keeps a stack it shifts on every tag, which costs seconds for 200,000 nested `<div>`s):
 * - dropped: comments and the content of `<script>`, `<style>`, `<noscript>`, `<template>`, `<svg>`, `<iframe>`,
 *   `<object>`, `<textarea>`, `<noembed>`, `<noframes>` and `<head>` (whose `<title>` becomes the first line);
 * - block elements become paragraphs or lines, `<br>` a line break, list items "- " lines, an image its alt text;
 * - `<pre>` keeps its line breaks and spaces; elsewhere a run of whitespace reads as one space.
 * Runs on the file-text worker thread, never on the HTTP loop.
 */
import { Tokenizer, type QuoteType, type TokenizerCallbacks } from 'htmlparser2';

const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'iframe', 'object', 'textarea', 'noembed', 'noframes']);
/** What may stand in `<head>`; any other element starts the body (as browsers end the head there). */
const HEAD_CONTENT = new Set(['title', 'meta', 'link', 'base', 'style', 'script', 'noscript', 'template']);
/** Elements that stand apart as paragraphs (a blank line around them) or as lines of their own. */
const PARAGRAPH = new Set([
  'p', 'section', 'article', 'header', 'footer', 'main', 'nav', 'aside', 'blockquote', 'pre', 'xmp', 'address', 'h1',
  'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'dl', 'table', 'form', 'fieldset', 'figure', 'hr', 'body', 'html',
]);
const LINE = new Set(['div', 'tr', 'dt', 'dd', 'figcaption', 'caption', 'thead', 'tbody', 'tfoot']);
const PREFORMATTED = new Set(['pre', 'xmp']);
/** The page's chrome, dropped with `dropChrome` (besides a `<header>` outside the main content). */
const CHROME = ['nav', 'aside', 'footer'];
/** Counted only to know whether a `<header>` stands inside the page's main content. */
const COUNTED = new Set(['main', 'article']);

/** Runs of two or more whitespace characters, or one that is not a plain space (a lone space needs no replacing). */
const WHITESPACE_RUN = /\s{2,}|[^\S ]/g;

/**
 * The whitespace of `<pre>` text travels through tidy() as noncharacters (which no text carries: they are
 * removed from the input), so tidying the rest of the page leaves it as written.
 */
const PRE_SPACE = '\uFDD0';
const PRE_LINE = '\uFDD1';
const PRE_TAB = '\uFDD2';
const SENTINELS = /[\uFDD0-\uFDD2]/g;

export function htmlToText(html: string): string {
  const { title, text } = htmlToPage(html);
  return title && text ? `${title}\n\n${text}` : title || text;
}

export interface HtmlToPageOptions {
  /**
   * Also drop the page's chrome: `<nav>`, `<aside>`, `<footer>`, and a `<header>` outside `<main>`/`<article>`
   * (an article's own header holds its heading). The fallback of mainContent.ts, for pages Readability cannot
   * read or is not given (too many elements); still linear, as it only counts.
   */
  dropChrome?: boolean;
}

/** The page's `<title>` (empty when none) and its readable text apart. */
export function htmlToPage(html: string, options: HtmlToPageOptions = {}): { title: string; text: string } {
  const page = new PageText(html, options.dropChrome === true);
  const tokenizer = new Tokenizer({ decodeEntities: true }, page);
  tokenizer.write(html);
  tokenizer.end();
  return page.result();
}

/** The tokenizer's callbacks: tags and text in document order, turned into text as they come. */
class PageText implements TokenizerCallbacks {
  private readonly out: string[] = [];
  private title = '';
  private titleDone = false; // the first <title> is the page's
  private readonly open = new Map<string, number>(); // open skipped and preformatted elements, by name
  private skipped = 0; // how many of them drop their content
  private skippedHeaders = 0; // open <header>s dropped as chrome
  private inHead = false;
  private inTitle = false;
  private preStarts = false; // a line break right after <pre> is not content (HTML drops it)
  private tag = '';
  private attribute = '';
  private value = '';
  private alt: string | null = null;

  private readonly skips: ReadonlySet<string>;

  constructor(
    private readonly html: string,
    private readonly dropChrome: boolean,
  ) {
    this.skips = dropChrome ? new Set([...SKIPPED, ...CHROME]) : SKIPPED;
  }

  result(): { title: string; text: string } {
    return { title: this.title.replace(SENTINELS, '').replace(/\s+/g, ' ').trim(), text: restorePre(tidy(this.out.join(''))) };
  }

  /** A `<header>` is chrome (dropped with dropChrome) outside the page's main content, or inside such a header. */
  private skipsHeader(): boolean {
    return this.dropChrome && ((this.open.get('main') ?? 0) + (this.open.get('article') ?? 0) === 0 || this.skippedHeaders > 0);
  }

  ontext(start: number, end: number): void {
    this.addText(this.html.slice(start, end));
  }

  ontextentity(codepoint: number): void {
    this.addText(String.fromCodePoint(codepoint));
  }

  onopentagname(start: number, end: number): void {
    this.tag = this.html.slice(start, end).toLowerCase();
    this.alt = null;
  }

  onattribname(start: number, end: number): void {
    this.attribute = this.html.slice(start, end).toLowerCase();
    this.value = '';
  }

  onattribdata(start: number, end: number): void {
    this.value += this.html.slice(start, end);
  }

  onattribentity(codepoint: number): void {
    this.value += String.fromCodePoint(codepoint);
  }

  onattribend(_quote: QuoteType): void {
    if (this.attribute === 'alt' && this.alt === null) this.alt = this.value;
  }

  onopentagend(): void {
    this.opened(this.tag);
  }

  /** `<br/>`, `<svg … />`: opened and closed at once (HTML ignores the slash, but such an element holds nothing). */
  onselfclosingtag(): void {
    this.opened(this.tag);
    this.closed(this.tag);
  }

  onclosetag(start: number, end: number): void {
    this.closed(this.html.slice(start, end).toLowerCase());
  }

  oncdata(): void {}
  oncomment(): void {}
  ondeclaration(): void {}
  onprocessinginstruction(): void {}
  onend(): void {}

  private opened(name: string): void {
    if (this.inHead && !HEAD_CONTENT.has(name)) this.inHead = false;
    if (name === 'head') this.inHead = true;
    if (name === 'title') this.inTitle = true;
    if (name === 'header' && this.skipsHeader()) {
      this.skippedHeaders++;
      this.skipped++;
    }
    if (this.skips.has(name) || PREFORMATTED.has(name) || COUNTED.has(name)) this.open.set(name, (this.open.get(name) ?? 0) + 1);
    if (this.skips.has(name)) this.skipped++;
    if (this.skipped > 0 || this.inHead || name === 'title') return;
    if (PREFORMATTED.has(name)) this.preStarts = true;
    if (name === 'img' && this.alt) this.out.push(` ${this.alt} `);
    else this.out.push(opening(name));
  }

  private closed(name: string): void {
    if (name === 'head') this.inHead = false;
    if (name === 'title' && this.inTitle) {
      this.inTitle = false;
      this.titleDone ||= this.title.trim() !== '';
    }
    if (name === 'header' && this.skippedHeaders > 0) {
      this.skippedHeaders--;
      this.skipped--;
      return;
    }
    const count = this.open.get(name) ?? 0;
    if (count === 0 && (this.skips.has(name) || PREFORMATTED.has(name) || COUNTED.has(name))) return; // an end tag that opened nothing
    if (count > 0) this.open.set(name, count - 1);
    if (this.skips.has(name)) {
      this.skipped--;
      return;
    }
    if (this.skipped > 0 || this.inHead || name === 'title') return;
    if (PREFORMATTED.has(name) && !this.inPre()) trimLastLine(this.out);
    this.out.push(closing(name));
  }

  private addText(text: string): void {
    if (this.inTitle) {
      if (!this.titleDone && this.skipped === 0) this.title += text;
      return;
    }
    if (this.skipped > 0) return;
    if (this.inHead) {
      if (text.trim() === '') return;
      this.inHead = false; // text ends the head, as in a browser
    }
    let clean = text.replace(SENTINELS, '');
    if (!this.inPre()) {
      this.out.push(clean.replace(WHITESPACE_RUN, ' '));
      return;
    }
    if (this.preStarts) clean = clean.replace(/^\r?\n/, '');
    this.preStarts = false;
    this.out.push(preserved(clean));
  }

  private inPre(): boolean {
    return (this.open.get('pre') ?? 0) > 0 || (this.open.get('xmp') ?? 0) > 0;
  }
}

function opening(name: string): string {
  if (name === 'br') return '\n';
  if (name === 'li') return '\n- ';
  if (PARAGRAPH.has(name)) return '\n\n';
  if (LINE.has(name)) return '\n';
  return '';
}

function closing(name: string): string {
  if (name === 'td' || name === 'th') return '\t';
  if (PARAGRAPH.has(name)) return '\n\n';
  if (LINE.has(name)) return '\n';
  return '';
}

function preserved(text: string): string {
  return text.replace(/\r\n?/g, '\n').replaceAll(' ', PRE_SPACE).replaceAll('\n', PRE_LINE).replaceAll('\t', PRE_TAB);
}

/** The line break before </pre> ends the block, which the paragraph break after it does already. */
function trimLastLine(out: string[]): void {
  if (out.length > 0) out[out.length - 1] = out.at(-1)!.replace(/\uFDD1$/, '');
}

function restorePre(text: string): string {
  return text.replaceAll(PRE_SPACE, ' ').replaceAll(PRE_LINE, '\n').replaceAll(PRE_TAB, '\t');
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
