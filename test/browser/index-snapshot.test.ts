/**
 * Index snapshots in real Chromium over the real IndexedDB store (the page is
 * test/browser/pages/index-snapshot-page.ts): a clean reopen restores the keyword index from its
 * snapshot; records written through the engine while a snapshot exists are in the snapshot the
 * close keeps; a commit the snapshot never saw, or damaged bytes, make the partition rebuild from
 * its records, and the answers are those of a memory that never had a snapshot.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissingFor, openTestPage, type OpenTestPage } from '../support/browser.js';
import type { SnapshotScenario } from './pages/index-snapshot-page.js';

const chromiumMissing = chromiumMissingFor('test/browser/index-snapshot.test.ts');
describe.skipIf(chromiumMissing)('index snapshots in Chromium', () => {
  let opened: OpenTestPage;
  let page: Page;
  let pageErrors: string[];

  beforeAll(async () => {
    opened = await openTestPage({ entry: join(import.meta.dirname, 'pages', 'index-snapshot-page.ts'), title: 'index snapshots', ready: 'indexSnapshots' });
    ({ page, pageErrors } = opened);
  }, 120_000);

  afterAll(async () => {
    await opened?.close();
  });

  it('restores, refreshes after engine writes, and rebuilds when stale or damaged', async () => {
    const r = await page.evaluate(() => (globalThis as unknown as { indexSnapshots: { scenario(): Promise<SnapshotScenario> } }).indexSnapshots.scenario());
    expect(r.clean).toMatchObject({ offered: 1, built: 'snapshot' });
    expect(r.clean.hits[0]!.length).toBeGreaterThan(0);
    expect(r.clean.hits[3]).toEqual([]);

    // Written while the snapshot existed: the next open restores a snapshot that holds the new record.
    expect(r.afterEngineWrite).toMatchObject({ offered: 1, built: 'snapshot' });
    expect(r.afterEngineWrite.hits[3]).toEqual(['late']);

    // A commit the snapshot never saw moved the generation on: not offered, rebuilt from the records.
    expect(r.afterForeignCommit).toMatchObject({ offered: 0, built: 'records' });
    expect(r.afterForeignCommit.hits).toEqual(r.afterEngineWrite.hits);

    // Damaged bytes with the right stamp: offered, refused by its checks, rebuilt.
    expect(r.afterDamage).toMatchObject({ offered: 1, built: 'records' });
    expect(r.afterDamage.hits).toEqual(r.afterForeignCommit.hits);

    expect(r.answers.first.some((ids) => ids.length > 0)).toBe(true);
    expect(r.answers.reopened).toEqual(r.answers.first);
    expect(r.answers.damaged).toEqual(r.answers.control);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
