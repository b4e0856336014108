/**
 * An uploaded web page → the knowledge it holds: its main content and its title, without the page's chrome.
 * A page's menus ("Home | Shop | Contact"), footer ("© Example Shop"), cookie banner and sidebar are no
 * knowledge: indexed, they match questions and the builtin agent sends them to customers word for word.
 *
 * The main content is found by Readability (Mozilla's reader view, `@mozilla/readability`, on a `linkedom`
 * DOM): a well-kept extractor rather than rules of our own. Its output (article HTML) becomes text through
 * htmlToText, like any page. Two things around it:
 * - Before it, what the page itself marks as chrome is removed (`<nav>`, `<aside>`, `<footer>`, a `<header>`
 *   outside `<main>`/`<article>`, and the ARIA roles of the same), and cookie and consent banners and modal
 *   dialogs: Readability judges by class names and text density, and on a short page it keeps a menu or a
 *   consent notice (it knows neither the semantic tags nor consent banners).
 * - Readability's cost grows with the page's elements times their nesting (8 s for 3,000 nested `<div>`s), and
 *   this runs on a file-reading thread with a deadline. A page past READABLE_LIMITS, or one where Readability
 *   finds no article (a page of links, a tiny page), is read by htmlToText with its chrome dropped (`<nav>`,
 *   `<aside>`, `<footer>`, a `<header>` outside `<main>`/`<article>`): linear, and still without the menus.
 *
 * The title: the page's first `<h1>` (in `<main>`/`<article>` if it has one), else its `<title>` as Readability
 * cleans it, else none (the upload is then titled after its file name).
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { htmlToPage, htmlToText } from './htmlToText.js';

export interface ReadablePage {
  /** The main content as text (never empty when the page has any text). */
  text: string;
  /** The page's own title, or null when it has none. */
  title: string | null;
  /** How the content was found: Readability's article, or the whole page without its chrome. */
  extractor: 'readability' | 'page';
}

/** Pages Readability is given: up to this many elements, nested at most this deep (about 2 s at the limits). */
export const READABLE_LIMITS = { elements: 15_000, depth: 200 };

/** Elements that are consent notices or overlays, not content (what Readability does not recognise itself). */
const CHROME = [
  'nav', 'aside', 'footer', 'body > header', '[role="navigation"]', '[role="banner"]', '[role="contentinfo"]', '[role="complementary"]',
  '[role="search"]', '[role="menu"]', '[role="menubar"]',
].join(', ');
const OVERLAYS = [
  '[id*="cookie"]', '[class*="cookie"]', '[id*="Cookie"]', '[class*="Cookie"]',
  '[id*="consent"]', '[class*="consent"]', '[id*="Consent"]', '[class*="Consent"]',
  '[role="dialog"]', '[role="alertdialog"]', '[aria-modal="true"]', 'dialog',
].join(', ');

/** Titles longer than this are a sentence, not a title. */
const MAX_TITLE_CHARS = 200;

export function readablePage(html: string): ReadablePage {
  if (withinLimits(html)) {
    let article: ReadablePage | null = null;
    try {
      article = readabilityArticle(html);
    } catch {
      // A page the DOM or Readability chokes on is read as a plain page: its upload must not fail for that.
    }
    if (article !== null) return article;
  }
  const page = htmlToPage(html, { dropChrome: true });
  // A page that is all chrome (a menu page) keeps its text: something is better than an empty upload refused.
  const text = page.text || htmlToPage(html).text;
  return { text, title: cleanTitle(page.title), extractor: 'page' };
}

function readabilityArticle(html: string): ReadablePage | null {
  const { document } = parseHTML(html);
  const heading = (document.querySelector('main h1, article h1, [role="main"] h1') ?? document.querySelector('h1'))?.textContent ?? null;
  for (const chrome of document.querySelectorAll(CHROME)) {
    // Never what holds the content: some sites wrap the whole page in a "banner" or put <main> in an <aside>.
    if (chrome.isConnected && !chrome.querySelector('main, article, [role="main"]') && !chrome.closest('main, article, [role="main"]')) chrome.remove();
  }
  for (const overlay of document.querySelectorAll(OVERLAYS)) {
    // Never the page itself: a site may put "cookie" in the class of <body> or of its whole content wrapper.
    if (overlay.isConnected && overlay.tagName !== 'BODY' && overlay.tagName !== 'HTML' && overlay.querySelectorAll('p').length < 4) overlay.remove();
  }
  // charThreshold: a support page is often short; below the default (500 characters) Readability retries
  // without its filters and keeps banners and menus it had removed. maxElemsToParse: it throws past that many
  // elements (a count the pre-scan got wrong), and the page is read as a plain page.
  const article = new Readability(document, { charThreshold: 100, maxElemsToParse: READABLE_LIMITS.elements * 2 }).parse();
  const text = article?.content ? htmlToText(article.content) : '';
  if (!text) return null;
  return { text, title: cleanTitle(heading) ?? cleanTitle(article?.title ?? null), extractor: 'readability' };
}

function cleanTitle(title: string | null): string | null {
  const clean = title?.replace(/\s+/g, ' ').trim() ?? '';
  return clean.length > 0 && clean.length <= MAX_TITLE_CHARS ? clean : null;
}

/** Elements that hold nothing, and elements a browser closes by itself (counting them would overstate the nesting). */
const NOT_NESTING = new Set([
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr',
  'p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'option',
]);

/**
 * Whether the page is small and shallow enough for Readability: a linear scan of its tags (an estimate: a tag
 * inside a script counts too, which only errs toward the linear fallback).
 */
function withinLimits(html: string): boolean {
  let elements = 0;
  let depth = 0;
  for (const tag of html.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^<>]*?(\/?)>/g)) {
    const name = tag[2]!.toLowerCase();
    if (tag[1]) {
      if (!NOT_NESTING.has(name) && depth > 0) depth--;
      continue;
    }
    if (++elements > READABLE_LIMITS.elements) return false;
    if (!tag[3] && !NOT_NESTING.has(name) && ++depth > READABLE_LIMITS.depth) return false;
  }
  return true;
}
