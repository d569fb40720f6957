/**
 * The demo's attachments, in real Chromium against the built demo: a person attaches the PDF
 * fixture and the PNG with a caption to messages, flushes, and finds each again in the Search
 * pane by what it says, the result naming the file (and the PDF's page).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveDemo, type DemoServer } from '../../demo/serve.js';
import { chromiumMissingFor, launchChromium } from '../support/browser.js';
import { PDF_PAGE_TWO_QUERY, PNG_CAPTION, PNG_QUERY } from '../support/media-fixtures.js';

const REPO = resolve(import.meta.dirname, '..', '..');
const MEDIA = join(REPO, 'test', 'fixtures', 'media');

describe.skipIf(chromiumMissingFor('test/browser/demo-attachments.test.ts'))('demo attachments in Chromium', () => {
  let outDir: string;
  let served: DemoServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'engram-demo-attach-'));
    await build({ configFile: join(REPO, 'demo', 'vite.config.ts'), logLevel: 'error', build: { outDir } });
    served = await serveDemo({ dir: outDir, port: 0 });
    browser = await launchChromium({ webgpu: false });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${served.url}#conversation`);
    await page.waitForFunction(() => document.body.dataset['engine'] === 'ready', null, { timeout: 60_000 });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  async function attach(message: string, file: string, caption = ''): Promise<void> {
    await page.getByLabel('Message', { exact: true }).fill(message);
    await page.getByLabel('Attach an image or a document').setInputFiles(join(MEDIA, file));
    await page.getByLabel('Caption').fill(caption);
    await page.getByRole('button', { name: 'Add message' }).click();
    await page.getByText('Added to the buffer of trip-docs.').waitFor();
  }

  async function search(query: string): Promise<ReturnType<Page['locator']>> {
    await page.locator('nav a[data-pane="search"]').click();
    const before = Number(await page.locator('#search .results').getAttribute('data-answered'));
    await page.getByLabel('Method').selectOption('hybrid');
    await page.getByLabel('Query').fill(query);
    await page.getByLabel('Query').press('Enter');
    await page.waitForFunction((n) => Number(document.querySelector<HTMLElement>('#search .results')?.dataset['answered']) > n, before);
    return page.locator('#search .results .episode').first();
  }

  it('attaches a PDF and an image, and finds each by what it says', async () => {
    await page.getByLabel('Session id').fill('trip-docs');
    await page.getByLabel('Session id').press('Tab');
    await attach('The harbour survey from the council.', 'two-pages.pdf');
    await attach('Photo from Saturday.', 'red-square.png', PNG_CAPTION);
    // The buffer shows each attachment by name, never its bytes.
    await expect.poll(() => page.locator('.transcript .message').allTextContents()).toEqual([
      expect.stringContaining('📎 two-pages.pdf'), expect.stringContaining(`📎 red-square.png (${PNG_CAPTION})`),
    ]);
    await page.getByRole('button', { name: 'Flush session' }).click();
    await page.getByText('Flushed: the buffered messages are now memories.').waitFor();

    const pdf = await search(PDF_PAGE_TWO_QUERY);
    await expect.poll(() => pdf.locator('.facts li').first().textContent()).toMatch(/telescope repair costs 4200 euros[\s\S]*📎 two-pages\.pdf · page 2/);
    const image = await search(PNG_QUERY);
    await expect.poll(() => image.locator('.facts li').first().textContent()).toMatch(/red kite[\s\S]*📎 red-square\.png/);
    expect(pageErrors).toEqual([]);
  });
});
