import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { beforeEach, expect, it } from 'vitest';
import { startTestServer, uniqueEmail, type TestServer } from './testServer.js';

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

/**
 * Whether a browser suite can run here: the built dashboard (npm run build; npm test's pretest does it) and
 * Chromium. When one is missing it registers a failing `prerequisites` test naming it: CI must run these
 * suites, so a missing prerequisite is a failure, never a silent skip.
 */
export function browserPrerequisites(): boolean {
  const dashboardBuilt = existsSync(join(process.cwd(), 'dist', 'dashboard', 'index.html'));
  const chromiumPresent = existsSync(CHROMIUM_PATH);
  if (dashboardBuilt && chromiumPresent) return true;
  it('prerequisites', () => {
    expect(dashboardBuilt, 'dist/dashboard is missing: run `npm run build` first').toBe(true);
    expect(chromiumPresent, `${CHROMIUM_PATH} is missing (apt-get install chromium)`).toBe(true);
  });
  return false;
}

export interface DashboardContextOptions {
  viewport?: { width: number; height: number };
  /** A session from POST /api/auth/login: the dashboard opens signed in. */
  session?: unknown;
  /** Default timeout of every action and navigation (ms). */
  timeoutMs?: number;
  colorScheme?: 'light' | 'dark';
  /** The browser's locale; en-US unless told (a suite checks the UI stays English in another). */
  locale?: string;
}

/**
 * A browser context as the suites use it: 1280×800 unless told, English locale unless told, and UTC (screenshots and
 * dates do not depend on the machine), default timeouts, and optionally signed in. The session goes into
 * the dashboard's own top frame only, not into the frames of the pages it embeds (the widget preview).
 */
export async function dashboardContext(browser: Browser, options: DashboardContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 800 },
    locale: options.locale ?? 'en-US',
    timezoneId: 'UTC',
    ...(options.colorScheme ? { colorScheme: options.colorScheme } : {}),
  });
  context.setDefaultTimeout(options.timeoutMs ?? 15_000);
  context.setDefaultNavigationTimeout(options.timeoutMs ?? 15_000);
  if (options.session !== undefined) {
    await context.addInitScript((value) => {
      if (window === window.top) localStorage.setItem('mas.session', value);
    }, JSON.stringify(options.session));
  }
  return context;
}

export interface SignedUp {
  email: string;
  session: { access_token: string; [k: string]: unknown };
  bearer: string;
  /** A JSON call as this user: status and parsed body. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
}

/** Registers a company through the API and signs its owner in (what a suite does before opening the dashboard). */
export async function signUpByApi(base: string, options: { tag: string; companyName: string; password?: string }): Promise<SignedUp> {
  const email = uniqueEmail(options.tag);
  const password = options.password ?? 'correct horse battery';
  const json = { 'content-type': 'application/json' };
  const registered = await fetch(`${base}/api/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ email, password, companyName: options.companyName }) });
  expect(registered.status, 'register').toBe(201);
  const login = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: json, body: JSON.stringify({ email, password }) });
  expect(login.status, 'login').toBe(200);
  const { session } = (await login.json()) as { session: SignedUp['session'] };
  const bearer = session.access_token;
  return {
    email,
    session,
    bearer,
    async api(method, path, body) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : json) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : null };
    },
  };
}

/**
 * The tests of a describe block as the steps of one journey, each depending on the ones before: once a step
 * fails, a screenshot of `page()` is saved and every later step is skipped naming it, instead of piling up
 * failures that only repeat the first.
 */
export function journeySteps(name: string, page: () => Page | undefined): void {
  let broken: string | null = null;
  beforeEach((ctx) => {
    if (broken) ctx.skip(`an earlier step failed: ${broken}`);
    ctx.onTestFailed(async () => {
      broken = ctx.task.name;
      await saveFailureScreenshot(page(), `${name}-${ctx.task.name}`);
    });
  });
}

/** A test server listening on 127.0.0.1 and headless Chromium: where every dashboard suite starts. */
export interface ServerAndBrowser {
  server: TestServer;
  /** http://127.0.0.1:{port} (as the server reports it). */
  base: string;
  browser: Browser;
  /** Closes the browser (and every context in it), then the server. */
  close(): Promise<void>;
}

export async function startServerAndBrowser(env: Record<string, string> = {}): Promise<ServerAndBrowser> {
  const server = await startTestServer(env);
  const base = await server.listen(0, '127.0.0.1');
  const browser = await launchBrowser().catch(async (error: unknown) => {
    await server.close();
    throw error;
  });
  return {
    server,
    base,
    browser,
    async close() {
      await browser.close().catch(() => {});
      await server.close();
    },
  };
}

/** A page in a new `dashboardContext`; its uncaught errors go into `pageErrors` when given. */
export async function dashboardPage(browser: Browser, options: DashboardContextOptions = {}, pageErrors?: string[]): Promise<Page> {
  const page = await (await dashboardContext(browser, options)).newPage();
  if (pageErrors) page.on('pageerror', (error) => pageErrors.push(error.message));
  return page;
}

/** The link to `label` in the dashboard's main navigation. */
export const navLink = (page: Page, label: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true });

/** The page's title: its one level-1 heading, named exactly `name`. */
export const pageHeading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true });

/** Signs a new company up through the dashboard's form and waits for the conversations page it lands on. */
export async function signUpInDashboard(page: Page, base: string, account: { companyName: string; email: string; password?: string; name?: string }): Promise<void> {
  await page.goto(`${base}/#/register`);
  await page.getByLabel('Your name').fill(account.name ?? 'Owen Owner');
  await page.getByLabel('Company name').fill(account.companyName);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password ?? 'correct horse battery');
  await page.getByRole('button', { name: 'Sign up', exact: true }).click();
  await pageHeading(page, 'Conversations').waitFor();
}

/** The bearer token of the session the dashboard in `page` keeps (it is signed in). */
export const dashboardBearer = (page: Page) =>
  page.evaluate(() => (JSON.parse(localStorage.getItem('mas.session') ?? 'null') as { access_token: string }).access_token);

/**
 * Dismisses the notifications, as a user would: they sit over the bottom-right corner (where forms have their
 * Save button) and would otherwise hide what a screenshot is about.
 */
export async function dismissNotifications(page: Page): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const dismiss = page.getByRole('button', { name: 'Dismiss notification', exact: true }).first();
    if ((await dismiss.count()) === 0) return;
    await dismiss.click({ timeout: 2000 }).catch(() => {});
  }
}

/** `it` whose failure leaves a screenshot of `page()` named `{prefix}-{name}` under test-results/. */
export function screenshotStep(prefix: string, page: () => Page | undefined, timeoutMs: number) {
  return (name: string, fn: () => Promise<void>) =>
    it(name, { timeout: timeoutMs }, async () => {
      try {
        await fn();
      } catch (error) {
        await saveFailureScreenshot(page(), `${prefix}-${name}`);
        throw error;
      }
    });
}
