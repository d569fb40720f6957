/**
 * Durability in real Chromium: a tab killed in the middle of a 5,000-record ingest (its renderer
 * crashed through CDP `Page.crash`, or the tab simply closed) loses at most the writes that had not
 * resolved. Reopened, the memory holds every resolved write exactly once and searches correctly.
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { SearchResponse } from '../../src/contract/types.js';
import { chromiumMissingFor } from '../support/browser.js';
import { driver, useMemoryPages, value, within } from '../support/memory-pages.js';

const chromiumMissing = chromiumMissingFor('test/browser/crash-recovery.test.ts');
const TOTAL = 5_000;

describe.skipIf(chromiumMissing)('killed mid-ingest', () => {
  const pages = useMemoryPages();

  /** Starts the ingest in a tab and resolves once `killAfter` writes resolved; `resolved` keeps growing until the tab dies. */
  async function ingestUntil(context: BrowserContext, name: string, killAfter: number): Promise<{ page: Page; resolved: Set<number>; ingest: Promise<unknown>; cdp: CDPSession }> {
    const page = await context.newPage();
    // Attached before the ingest: attaching to a busy page can take seconds.
    const cdp = await context.newCDPSession(page);
    const resolved = new Set<number>();
    // Each resolved write reports itself to Node; a report lost with the crash only makes the check weaker.
    await page.exposeFunction('reportWrite', (i: number) => void resolved.add(i));
    await page.goto(pages().url);
    await page.waitForFunction(() => 'memoryPage' in globalThis);
    const d = driver(page);
    expect(value(await d.open(name)).role).toBe('host');
    // Held a while after the kill point, so a slow kill still lands mid-ingest.
    const ingest = d.ingest(name, 'ann', 0, TOTAL, 4, killAfter + 1_000).catch((error: unknown) => error);
    await within(120_000, async () => resolved.size >= killAfter, `${killAfter} writes resolved`);
    return { page, resolved, ingest, cdp };
  }

  async function reopenAndCheck(context: BrowserContext, name: string, resolved: Set<number>, page?: Page) {
    const known = new Set(resolved); // what Node heard of before the kill
    const d = driver(page ?? (await pages().open(context)));
    expect(value(await d.open(name)).role).toBe('host');
    const listed = await d.listKnowledge(name, 'ann');
    const titles = listed.map((k) => k.title);
    const unique = new Set(titles);
    expect(unique.size).toBe(titles.length); // no duplicate
    const missing = [...known].filter((i) => !unique.has(`Record ${i}`));
    expect(missing).toEqual([]);
    expect(titles.every((t) => /^Record \d+$/.test(t) && Number(t.slice(7)) < TOTAL)).toBe(true);
    expect(value(await d.call(name, 'stats'))).toMatchObject({ records: listed.length, buffered_messages: 0 });

    // Search works on the recovered memory: a record's unique number finds it first.
    const probe = [...known].sort((a, b) => a - b)[Math.floor(known.size / 2)]!;
    const found = value(await d.call<SearchResponse>(name, 'search', { user_id: 'ann', query: `item number ${probe}`, method: 'keyword', top_k: 3 }));
    expect(found.data.episodes[0]?.subject).toBe(`Record ${probe}`);
    // Every record's text differs only by its number, which the embedding model does not know, so
    // the vector leg cannot pick one out; it must still answer from the recovered vectors.
    const vector = value(await d.call<SearchResponse>(name, 'search', { user_id: 'ann', query: 'items of the blue series', method: 'vector', top_k: 5 }));
    expect(vector.data.episodes).toHaveLength(5);

    // And it takes writes again.
    value(await d.call(name, 'upsertKnowledge', { user_id: 'ann', title: 'After the crash', content: 'Written after reopening.' }));
    expect(value(await d.call(name, 'stats'))).toMatchObject({ records: listed.length + 1 });
    return { recovered: listed.length, heard: known.size };
  }

  it('crashes the renderer (CDP Page.crash) and recovers every resolved write, once', async () => {
    const context = await pages().browser.newContext();
    const { page, resolved, ingest, cdp } = await ingestUntil(context, 'crash', 1_500);
    const crashed = new Promise<void>((resolve) => page.once('crash', () => resolve()));
    const at = resolved.size;
    void cdp.send('Page.crash').catch(() => undefined); // never answers: the target is gone
    await crashed;
    console.info(`crash: asked at ${at} resolved writes, crashed at ${resolved.size}`);
    await ingest;
    const { recovered, heard } = await reopenAndCheck(context, 'crash', resolved);
    console.info(`crash: ${heard} writes resolved before the crash, ${recovered} recovered (of ${TOTAL} started)`);
    expect(recovered).toBeLessThan(TOTAL);
    await context.close();
  });

  it('closes the tab mid-ingest and recovers every resolved write, once', async () => {
    const context = await pages().browser.newContext();
    const { page, resolved, ingest } = await ingestUntil(context, 'closed', 1_000);
    await page.close();
    await ingest;
    const { recovered, heard } = await reopenAndCheck(context, 'closed', resolved);
    console.info(`close: ${heard} writes resolved before the tab closed, ${recovered} recovered (of ${TOTAL} started)`);
    expect(recovered).toBeLessThan(TOTAL);
    await context.close();
  });

  it('terminates the hosting worker mid-ingest; the tab reopens the memory intact', async () => {
    const context = await pages().browser.newContext();
    const { page, resolved, ingest } = await ingestUntil(context, 'worker', 800);
    // The worker dies without closing anything, as when the browser kills it for memory.
    expect(await page.evaluate(() => (globalThis as unknown as { memoryPage: { terminateWorkers(): number } }).memoryPage.terminateWorkers())).toBe(1);
    const heardBefore = resolved.size;
    await new Promise((r) => setTimeout(r, 200));
    expect(resolved.size).toBe(heardBefore); // nothing resolves once the host is gone
    // The same tab opens the memory again: a new worker, which gets the lock the dead one held.
    const { recovered, heard } = await reopenAndCheck(context, 'worker', resolved, page);
    console.info(`worker terminated: ${heard} writes resolved, ${recovered} recovered`);
    await context.close();
    await ingest; // its calls died with the worker; the page going away ends them
  });

  it('left no uncaught errors in any page', () => {
    expect(pages().pageErrors).toEqual([]);
  });
});
