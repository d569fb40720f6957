/**
 * The shared storage contract against IndexedDB in real Chromium: the contract's cases are bundled
 * into a page and run there one by one (fake-indexeddb runs the same cases in Node).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissingFor, openTestPage, type OpenTestPage } from '../support/browser.js';
import { defineStorageContract, STORAGE_CONTRACT_CASES } from '../support/storage-contract.js';
import type { StorageContractPage } from './pages/storage-contract-page.js';

const chromiumMissing = chromiumMissingFor('test/browser/storage-contract.indexeddb.test.ts');
describe.skipIf(chromiumMissing)('IndexedDB store in Chromium', () => {
  let opened: OpenTestPage;
  let page: Page;
  let pageErrors: string[];

  beforeAll(async () => {
    opened = await openTestPage({ entry: join(import.meta.dirname, 'pages', 'storage-contract-page.ts'), title: 'storage contract', ready: 'storageContract' });
    ({ page, pageErrors } = opened);
  }, 120_000);

  afterAll(async () => {
    await opened?.close();
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
