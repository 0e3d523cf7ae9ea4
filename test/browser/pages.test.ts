import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, posts } from '../helpers/world.ts';
import { saveLocalGraphiqlHeaders } from '../../src/graphql/graphiql/page.ts';
import { allRoutes } from '../../src/rest/index.ts';
import { buildOpenApi } from '../../src/rest/openapi.ts';
import { hasChromium, launchOfflineChromium, type OfflineBrowser } from './chromium.ts';

/**
 * GraphiQL and the REST reference in a real browser with no internet: every request that leaves this
 * machine is refused, and each test asserts none was even attempted. Screenshots of each page land in
 * test-results/screenshots/ for people to look at.
 */
describe.skipIf(!hasChromium)('browser pages with no internet', () => {
  let t: TestApp;
  let p: TestProject;
  let dataDir: string;
  let base: string;
  let browser: OfflineBrowser;

  beforeAll(async () => {
    // An embedded install whose first start kept the demo headers, as `npm start` does.
    dataDir = await mkdtemp(path.join(tmpdir(), 'cms-browser-'));
    const w = await world({ app: { embedded: true, config: { DATA_DIR: dataDir } }, project: { name: 'Browser project' }, via: 'api', collections: [posts()] });
    ({ t, p } = w);
    await w.api('POST', '/api/posts', { state: 'published', data: { title: 'Written offline' } });
    await saveLocalGraphiqlHeaders(dataDir, p.uuid, p.token);
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchOfflineChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /** GraphiQL keeps its tabs in localStorage: the plain record of what each tab holds. */
  async function tabs(page: Page): Promise<Array<{ query: string | null; headers: string | null }>> {
    const raw = await page.evaluate(() => localStorage.getItem('graphiql:tabState'));
    return raw ? (JSON.parse(raw) as { tabs: Array<{ query: string | null; headers: string | null }> }).tabs : [];
  }

  /**
   * Replaces the query editor's text and waits until GraphiQL has taken it (the tab's stored text moves;
   * its change handling is debounced). On a loaded machine Monaco may not have focus yet when the keys
   * arrive, so the text is typed again, idempotently, until the tab shows it.
   */
  async function replaceQuery(page: Page, editor: ReturnType<Page['locator']>, text: string, tab: number): Promise<void> {
    const marker = text.slice(0, text.indexOf('{')).trim();
    const stored = async () => (await tabs(page))[tab]?.query ?? '';
    await expect
      .poll(
        async () => {
          if (!(await stored()).includes(marker)) {
            await editor.click();
            await page.keyboard.press('ControlOrMeta+A');
            await page.keyboard.insertText(text);
          }
          return stored();
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toContain(marker);
  }

  it('GraphiQL renders, opens on the example query with the first start headers, and runs a typed query', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/graphql`);
    const queryEditor = page.locator('.graphiql-query-editor .monaco-editor');
    await queryEditor.waitFor({ state: 'visible' });
    await expect.poll(async () => (await tabs(page))[0]?.query ?? '', { timeout: 30_000 }).toContain('query Project');
    const [first] = await tabs(page);
    expect(JSON.parse(first.headers ?? '{}')).toEqual({ 'project-id': p.uuid, Authorization: `Bearer ${p.token}` });
    await browser.screenshot(page, 'graphiql-opened');

    // A new tab starts with the same headers, not placeholders.
    await page.getByRole('button', { name: 'New tab' }).click();
    await expect.poll(async () => (await tabs(page)).length).toBe(2);
    expect(JSON.parse((await tabs(page))[1].headers ?? '{}')).toEqual({ 'project-id': p.uuid, Authorization: `Bearer ${p.token}` });

    // Type a query against the project's typed schema (posts) and run it.
    await replaceQuery(page, queryEditor, 'query Posts { posts { data { title } } }', 1);
    await page.locator('.graphiql-execute-button').click();
    // Monaco draws spaces as non-breaking ones.
    const response = async () => (await page.locator('.graphiql-response').innerText()).replace(/\u00a0/g, ' ');
    await expect.poll(response).toContain('"title": "Written offline"');
    await browser.screenshot(page, 'graphiql-query-result');

    expect(browser.outside).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
    await page.close();
  });

  it('GraphiQL runs a subscription and shows events as they arrive (GraphQL over SSE)', async () => {
    const SUBSCRIPTION = 'subscription Live { postChanged(events: [CREATED]) { event entry { title } } }';
    const page = await browser.newPage();
    await page.goto(`${base}/graphql`);
    // A fresh editor: the tabs the previous test left (and their remembered operation name) go, and the
    // document GraphiQL restores on load is the subscription (typing into Monaco is what the first test
    // covers; here keystrokes racing the editor's start-up made the run flaky on a loaded machine).
    await page.evaluate((q) => {
      localStorage.clear();
      localStorage.setItem('graphiql:query', q);
    }, SUBSCRIPTION);
    await page.reload();
    const queryEditor = page.locator('.graphiql-query-editor .monaco-editor');
    await queryEditor.waitFor({ state: 'visible' });
    // GraphiQL may still restore the tabs it saved while unloading (after the clear): then the document
    // is typed into the open tab, again until GraphiQL has taken it, as replaceQuery does.
    const holds = async () => (await tabs(page)).some((tab) => (tab.query ?? '').includes('subscription Live'));
    await expect
      .poll(
        async () => {
          if (!(await holds())) {
            await queryEditor.click();
            await page.keyboard.press('ControlOrMeta+A');
            await page.keyboard.insertText(SUBSCRIPTION);
          }
          return holds();
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toBe(true);
    // GraphiQL takes the operation to run from the editor's text once its change has been handled (it
    // is debounced): clicking before that runs the replaced document's operation ("Cannot infer
    // operation Project"). The tab's stored text moving is the sign the change went through.
    await page.locator('.graphiql-execute-button').click();
    const response = async () => (await page.locator('.graphiql-response').innerText()).replace(/\u00a0/g, ' ');
    // Writes until one arrives: the stream is open once GraphiQL shows it running, which the page does not say.
    let n = 0;
    await expect
      .poll(
        async () => {
          n++;
          await t.request({ method: 'POST', url: '/api/posts', headers: p.headers, body: { state: 'published', data: { title: `Live ${n}` } } });
          return response();
        },
        { timeout: 60_000, interval: 500 },
      )
      .toMatch(/"title": "Live \d+"/);
    expect(await response()).toContain('"event": "CREATED"');
    await browser.screenshot(page, 'graphiql-subscription-events');
    await page.locator('.graphiql-execute-button').click(); // stops the subscription
    expect(browser.outside).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
    await page.close();
  }, 120_000);

  /** What Scalar's inputs hold (its authentication box among them), and their placeholders. */
  const referenceInputs = (page: Page) =>
    page.locator('#reference input:not([type=checkbox])').evaluateAll((els) => els.map((e) => ({ value: (e as HTMLInputElement).value, placeholder: (e as HTMLInputElement).placeholder })));
  const bodyText = (page: Page) => page.locator('body').innerText();

  it('the REST reference opens on the project\'s typed document with the first start headers, and offers no upload or deploy', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/api/docs`);
    // The project's collections are in the document only when it was fetched with the headers.
    await expect.poll(() => bodyText(page), { timeout: 60_000 }).toContain('/api/posts/{uuid}');
    const values = (await referenceInputs(page)).map((i) => i.value);
    expect(values).toContain(p.uuid);
    expect(values).toContain(p.token);
    expect(await page.locator('#project-headers [name=project-id]').inputValue()).toBe(p.uuid);
    const text = await bodyText(page);
    // Scalar's developer toolbar (shown on localhost unless told not to) sends the document to Scalar's servers.
    expect(text).not.toContain('Upload Document');
    expect(text).not.toContain('Deploy on Scalar');
    await browser.screenshot(page, 'api-reference-local');
    expect(browser.outside).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
    await page.close();
  }, 90_000);

  it('the REST reference reached through a proxy offers no headers, and shows the typed document once they are given', async () => {
    const page = await browser.newPage();
    // A reverse proxy on this host: the page is then not the local developer's.
    await page.setExtraHTTPHeaders({ 'x-forwarded-for': '203.0.113.9' });
    await page.goto(`${base}/api/docs`);
    await expect.poll(() => bodyText(page), { timeout: 60_000 }).toContain('/api/webhooks/{webhook}/ping');
    expect(await bodyText(page)).not.toContain('/api/posts');
    const empty = await referenceInputs(page);
    expect(empty.map((i) => i.value)).not.toContain(p.token);
    // Placeholders that say what goes there, as in GraphiQL, never Scalar's base64 sample.
    expect(empty.map((i) => i.value)).toContain('<project uuid>');
    expect(await page.content()).not.toContain(p.token);

    await page.locator('#project-headers [name=project-id]').fill(p.uuid);
    await page.locator('#project-headers [name=token]').fill(`Bearer ${p.token}`);
    await page.getByRole('button', { name: "Show this project's reference" }).click();
    await expect.poll(() => bodyText(page), { timeout: 60_000 }).toContain('/api/posts/{uuid}');
    expect((await referenceInputs(page)).map((i) => i.value)).toEqual(expect.arrayContaining([p.uuid, p.token]));
    await browser.screenshot(page, 'api-reference-headers-given');

    // Headers that fail say why, and the generic reference stays.
    await page.locator('#project-headers [name=token]').fill('not-a-token');
    await page.getByRole('button', { name: "Show this project's reference" }).click();
    await expect.poll(() => page.locator('#project-headers-status').innerText()).toContain('(401)');
    await expect.poll(() => bodyText(page)).not.toContain('/api/posts');
    expect(browser.outside).toEqual([]);
    // The browser logs the refused document fetch itself.
    expect(browser.pageErrors.filter((e) => !e.includes('401'))).toEqual([]);
    browser.pageErrors.length = 0;
    await page.close();
  }, 120_000);

  it('the REST reference renders from this server and lists the routes', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/api/docs`);
    await page.getByText('Content gateway REST API').first().waitFor({ state: 'visible' });
    // Every path of the route table (src/rest/*-routes.ts), as the OpenAPI document names it.
    const paths = Object.keys((buildOpenApi(allRoutes) as { paths: Record<string, unknown> }).paths);
    expect(paths.length).toBeGreaterThan(20);
    await expect.poll(() => page.locator('body').innerText()).toContain('/api/webhooks/{webhook}/ping');
    const text = await page.locator('body').innerText();
    expect(paths.filter((path) => !text.includes(path))).toEqual([]);
    await browser.screenshot(page, 'api-reference');
    expect(browser.outside).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
    await page.close();
  });
});
