/**
 * The shared storage contract against IndexedDB in real Chromium: the contract's cases are bundled
 * into a page and run there one by one (fake-indexeddb runs the same cases in Node).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPage, chromiumMissingFor, launchChromium, serveDir, type ServedDir } from '../support/browser.js';
import { defineStorageContract, STORAGE_CONTRACT_CASES } from '../support/storage-contract.js';
import type { StorageContractPage } from './pages/storage-contract-page.js';

const chromiumMissing = chromiumMissingFor('test/browser/storage-contract.indexeddb.test.ts');
describe.skipIf(chromiumMissing)('IndexedDB store in Chromium', () => {
  let outDir: string;
  let served: ServedDir;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'engram-contract-page-'));
    await buildPage({ entry: join(import.meta.dirname, 'pages', 'storage-contract-page.ts'), outDir, title: 'storage contract' });
    served = await serveDir(outDir);
    browser = await launchChromium({ webgpu: false });
    page = await (await browser.newContext()).newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(served.url);
    await page.waitForFunction(() => 'storageContract' in globalThis);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('bundles the same cases as Node runs', async () => {
    const names = await page.evaluate(() => (globalThis as unknown as { storageContract: StorageContractPage }).storageContract.names());
    expect(names).toEqual(STORAGE_CONTRACT_CASES.map((c) => c.name));
  });

  defineStorageContract('IndexedDB (Chromium)', {
    persistent: true,
    async runCase(name) {
      const outcome = await page.evaluate((n) => (globalThis as unknown as { storageContract: StorageContractPage }).storageContract.run(n), name);
      if (!outcome.ok) throw new Error(`${outcome.name}: ${outcome.message}`);
    },
  });

  it('left no uncaught errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
