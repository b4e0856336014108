import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { onTestFailed } from 'vitest';
import { launchBrowser, saveFailureScreenshot } from './browser.js';

/**
 * What the widget suites share: a shop on another origin that embeds the built widget, and a visitor's browser
 * page whose console is kept for the failure report.
 */

const WIDGET_BUNDLE = new URL('../../dist/widget/widget.js', import.meta.url).pathname;

/** Throws unless the widget is built (these suites load dist/widget/widget.js from the service). */
export function requireWidgetBundle(): void {
  if (!existsSync(WIDGET_BUNDLE)) throw new Error('dist/widget/widget.js is missing: run `npm run build` first (npm test does it in pretest)');
}

export interface ShopPage {
  /** http://127.0.0.1:{port}/ : another origin than the service's (another port). */
  url: string;
  origin: string;
  port: number;
  /**
   * The web-chat integration the page embeds. Set it once the integration exists: the integration is created
   * with `origin` among its allowed origins, so the shop has to listen first.
   */
  integrationId: number | undefined;
  /** More attributes of the widget's script tag, as written (e.g. a signed visitor's data-user-*); read per page load. */
  scriptAttributes: string;
  close(): Promise<void>;
}

/** A shop's home page that embeds the widget of the service at `base` (`widgetTitle` becomes its data-title). */
export async function startShopPage(base: string, options: { widgetTitle?: string } = {}): Promise<ShopPage> {
  const title = options.widgetTitle === undefined ? '' : ` data-title="${options.widgetTitle}"`;
  const server = http.createServer((req, res) => {
    if (req.url !== '/') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title></head>
<body><h1>The shop</h1><p>Welcome.</p>
<script src="${base}/widget.js" data-integration-id="${shop.integrationId}"${title}${shop.scriptAttributes ? ` ${shop.scriptAttributes}` : ''} async></script>
</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/`;
  const shop: ShopPage = {
    url,
    origin: new URL(url).origin,
    port,
    integrationId: undefined,
    scriptAttributes: '',
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return shop;
}

export interface WidgetVisitor {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/**
 * A visitor: a fresh browser context (its own storage, so its own visitor and conversation) and a page whose
 * console lines and page errors go into `consoleLines`.
 */
export async function widgetVisitor(browser: Browser, consoleLines: string[]): Promise<WidgetVisitor> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('console', (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => consoleLines.push(`[pageerror] ${e.message}`));
  return { context, page, close: () => context.close().catch(() => {}) };
}

/**
 * When the running test fails: a screenshot of `page()` named `{name}-{test}`, and the browser console, on
 * stderr (a widget failure is rarely understood without what the page logged).
 */
export function reportWidgetFailure(name: string, page: () => Page | undefined, consoleLines: string[]): void {
  onTestFailed(async ({ task }) => {
    const shot = await saveFailureScreenshot(page(), `${name}-${task.name}`);
    console.error(`${name} test failed; screenshot: ${shot}\nbrowser console:\n${consoleLines.join('\n')}`);
  });
}

/** The shop page, headless Chromium, and the visitor of the moment: what a widget suite opens once. */
export interface WidgetStage {
  shop: ShopPage;
  browser: Browser;
  /** The console of every visitor page so far. */
  consoleLines: string[];
  /** A new visitor, in a fresh context; the previous visitor's context is closed. */
  newVisitor(): Promise<WidgetVisitor>;
  /** Ends the visitor, the browser and the shop (not the service). */
  close(): Promise<void>;
}

export async function startWidgetStage(base: string, options: { widgetTitle?: string } = {}): Promise<WidgetStage> {
  requireWidgetBundle();
  const shop = await startShopPage(base, options);
  const browser = await launchBrowser().catch(async (error: unknown) => {
    await shop.close();
    throw error;
  });
  const consoleLines: string[] = [];
  let visitor: WidgetVisitor | undefined;
  return {
    shop,
    browser,
    consoleLines,
    async newVisitor() {
      await visitor?.close();
      visitor = await widgetVisitor(browser, consoleLines);
      return visitor;
    },
    async close() {
      await visitor?.close();
      await browser.close().catch(() => {});
      await shop.close();
    },
  };
}
