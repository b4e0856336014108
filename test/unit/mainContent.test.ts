import { describe, expect, it } from 'vitest';
import { htmlToPage } from '../../src/infrastructure/documents/htmlToText.js';
import { readablePage } from '../../src/infrastructure/documents/mainContent.js';

/** A help-centre article as sites publish them: consent banner, header with menu, breadcrumb sidebar, footer. */
const HELP_PAGE = `<!DOCTYPE html><html><head><title>Shipping times – Example Shop Help Centre</title>
<script async src="https://analytics.example/tag.js"></script><style>.x{color:red}</style></head><body>
<div class="consent-banner" role="dialog" aria-label="Cookie consent"><p>This site uses cookies for analytics.</p><button>Accept</button><button>Reject</button></div>
<header><div class="top-bar">Free shipping over 50 €</div><nav aria-label="Main"><a href="/">Home</a> | <a href="/shop">Shop</a> | <a href="/contact">Contact</a></nav></header>
<div class="container"><div id="sidebar" class="sidebar"><h4>In this section</h4><ul><li><a href="/help/returns">Returns</a></li><li><a href="/help/payment">Payment</a></li></ul></div>
<div id="content" class="content"><h1>Shipping times</h1>
<p>Orders placed before 2 pm on a working day leave our warehouse the same day. Delivery in Norway takes 1 to 3 working days.</p>
<p>Deliveries to Sweden and Denmark take 3 to 5 working days. We do not ship outside the Nordic countries yet.</p>
<ul><li>Tracking: you get a link by email once the parcel leaves.</li><li>Pick-up points: choose one at checkout.</li></ul>
</div></div>
<footer class="site-footer"><p>© Example Shop AS 2026 · Org. nr 999 999 999</p><p><a href="/privacy">Privacy policy</a> · <a href="/terms">Terms</a></p></footer>
</body></html>`;

describe('readablePage: the main content of an uploaded web page', () => {
  it('given a help page with a consent dialog, menu, sidebar and footer, then only its article is kept, titled by its <h1>', () => {
    const page = readablePage(HELP_PAGE);
    expect(page.extractor).toBe('readability');
    expect(page.title).toBe('Shipping times');
    expect(page.text).toContain('Orders placed before 2 pm on a working day leave our warehouse the same day.');
    expect(page.text).toContain('- Tracking: you get a link by email once the parcel leaves.');
    for (const chrome of ['cookies', 'Accept', 'Home', 'Contact', 'Free shipping over', 'In this section', '©', 'Privacy policy', 'analytics']) expect(page.text).not.toContain(chrome);
  });

  it('given a page without an <h1>, then its <title> titles it; without either, no title', () => {
    const body = '<p>Our shop in Bergen is open from 10 to 18 on weekdays and from 10 to 16 on Saturdays. Closed on Sundays and public holidays.</p>';
    expect(readablePage(`<html><head><title>Opening hours</title></head><body>${body}</body></html>`).title).toBe('Opening hours');
    expect(readablePage(`<body>${body}</body>`).title).toBeNull();
  });

  it('given a page Readability finds no article in, then the whole page is read without its nav, aside and footer', () => {
    const page = readablePage('<html><head><title>Hi</title></head><body><nav><a href="/">Home</a></nav><p>Call us.</p><footer>© Shop</footer></body></html>');
    expect(page.text).toBe('Call us.');
    expect(page.title).toBe('Hi');
  });

  it('given a page that is all chrome, then its text is kept rather than nothing', () => {
    expect(readablePage('<nav><a href="/a">Tents</a> <a href="/b">Boots</a></nav>').text).toBe('Tents Boots');
  });

  it('given hostile nesting or millions of elements, then Readability is not given the page: read linearly, in seconds', () => {
    const started = performance.now();
    expect(readablePage('<div>'.repeat(200_000) + 'deep text').text).toBe('deep text');
    expect(readablePage('<div><p>x</p>'.repeat(3_000)).extractor).toBe('page'); // 8 s in Readability
    expect(readablePage('<p>x</p>'.repeat(100_000)).extractor).toBe('page');
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe('htmlToPage with dropChrome: the linear fallback', () => {
  it('drops nav, aside, footer and the site header, keeps an article\'s own header, and the title apart', () => {
    const html = '<title>T</title><header><nav>Menu</nav>Logo</header><main><article><header><h1>Returns</h1></header><p>Free.</p></article></main><aside>Ads</aside><footer>©</footer>';
    expect(htmlToPage(html, { dropChrome: true })).toEqual({ title: 'T', text: 'Returns\n\nFree.' });
    expect(htmlToPage(html).text).toContain('Menu');
  });

  it('an end tag that opened nothing does not end a dropped element early', () => {
    expect(htmlToPage('</header></footer><footer>© <b>Shop</b></header></nav> x</footer><p>Kept.</p>', { dropChrome: true }).text).toBe('Kept.');
  });
});
