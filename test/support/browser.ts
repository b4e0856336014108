import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * Headless Chromium for the browser suites: Debian's /usr/bin/chromium driven by playwright-core
 * (no downloaded browser). CHROMIUM_PATH overrides the executable.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless=new',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/** Where failure screenshots go (relative to the repository root, where vitest runs). */
export const TEST_RESULTS_DIR = join(process.cwd(), 'test-results');

const safeName = (name: string) => name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 120) || 'screenshot';

/** Saves a full-page screenshot of `page` under test-results/ and returns its path (null if the page is gone). */
export async function saveFailureScreenshot(page: Page | undefined | null, name: string): Promise<string | null> {
  if (!page || page.isClosed()) return null;
  mkdirSync(TEST_RESULTS_DIR, { recursive: true });
  const path = join(TEST_RESULTS_DIR, `${safeName(name)}.png`);
  try {
    await page.screenshot({ path, fullPage: true });
    return path;
  } catch {
    return null;
  }
}

/**
 * Runs `step`; when it throws, saves a screenshot of `page` under test-results/ named after `name`, then
 * rethrows (with the screenshot's path added to the message).
 */
export async function withFailureScreenshot<T>(page: Page | undefined | null, name: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const path = await saveFailureScreenshot(page, name);
    if (path && error instanceof Error) error.message += `\n(screenshot: ${path})`;
    throw error;
  }
}
