import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium (`apt-get install chromium`; .ci/run installs it). Playwright's own download is never used. */
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

export const SCREENSHOTS = path.resolve('test-results/screenshots');

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface OfflineBrowser {
  context: BrowserContext;
  /** Every request to anything but this machine the pages attempted (all were refused). */
  outside: string[];
  /** Errors the pages logged to their console, and uncaught exceptions. */
  pageErrors: string[];
  newPage(): Promise<Page>;
  screenshot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Headless Chromium with a new empty profile, cut off from everything but loopback: each request to
 * another host is recorded and aborted, and host resolution is mapped away as a second wall, so a
 * page that needs the internet fails here exactly as it would on an air-gapped machine.
 */
export async function launchOfflineChromium(): Promise<OfflineBrowser> {
  const profile = await mkdtemp(path.join(tmpdir(), 'cms-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
    ],
  });
  const outside: string[] = [];
  const pageErrors: string[] = [];
  const isOutside = (url: string) => {
    const u = new URL(url);
    if (u.protocol === 'data:' || u.protocol === 'blob:' || u.protocol === 'about:') return false;
    return !LOOPBACK_HOSTS.has(u.hostname);
  };
  context.on('request', (request) => {
    if (isOutside(request.url())) outside.push(request.url());
  });
  await context.route('**/*', async (route) => {
    if (isOutside(route.request().url())) await route.abort('blockedbyclient');
    else await route.continue();
  });
  const watch = (page: Page) => {
    page.on('console', (msg) => {
      if (msg.type() === 'error') pageErrors.push(msg.text());
    });
    page.on('pageerror', (err) => pageErrors.push(String(err)));
  };
  context.on('page', watch);
  for (const page of context.pages()) watch(page);
  await mkdir(SCREENSHOTS, { recursive: true });
  return {
    context,
    outside,
    pageErrors,
    newPage: () => context.newPage(),
    screenshot: async (page, name) => void (await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) })),
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
