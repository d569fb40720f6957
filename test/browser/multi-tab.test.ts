/**
 * Several tabs on one memory, in real Chromium: one tab's worker hosts the engine (it holds the
 * Web Lock `engram:<name>`), the others forward to it. A write in one tab is found from the other
 * and announced there within a second; concurrent writes from both all land; when the hosting tab
 * closes, the other takes over with everything intact.
 */
import type { BrowserContext } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { SearchResponse } from '../../src/contract/types.js';
import { chromiumMissingFor } from '../support/browser.js';
import { driver, useMemoryPages, value, within } from '../support/memory-pages.js';

const chromiumMissing = chromiumMissingFor('test/browser/multi-tab.test.ts');
describe.skipIf(chromiumMissing)('one memory, two tabs', () => {
  const pages = useMemoryPages();

  async function twoTabs(name: string) {
    // One context is one browser profile: both tabs share the origin's IndexedDB and locks.
    const context: BrowserContext = await pages().browser.newContext();
    const first = driver(await pages().open(context));
    const second = driver(await pages().open(context));
    const a = value(await first.open(name));
    const b = value(await second.open(name));
    return { context, first, second, roles: [a.role, b.role] };
  }

  const titles = (r: SearchResponse) => r.data.episodes.map((e) => e.subject);

  it('finds in one tab, within a second, what the other just wrote, and tells it', async () => {
    const { context, first, second, roles } = await twoTabs('shared');
    expect(roles).toEqual(['host', 'follower']);

    value(await first.call('shared', 'upsertKnowledge', { user_id: 'ann', title: 'Parking spot', content: 'The car is parked on level three, spot 42.' }));
    const seen = await within(1_000, async () => titles(value(await second.call<SearchResponse>('shared', 'search', { user_id: 'ann', query: 'where is the car parked', method: 'hybrid' }))).includes('Parking spot'), 'search in the second tab');
    const told = await within(1_000, async () => (await second.changes('shared')).some((c) => c.method === 'upsertKnowledge'), 'change event in the second tab');
    console.info(`second tab found the write after ${seen} ms and heard of it after ${told} ms`);

    value(await second.call('shared', 'upsertKnowledge', { user_id: 'ann', title: 'Locker code', content: 'The gym locker code is 7781.' }));
    expect(titles(value(await first.call<SearchResponse>('shared', 'search', { user_id: 'ann', query: 'gym locker code', method: 'keyword' })))).toContain('Locker code');
    await within(1_000, async () => (await first.changes('shared')).length === 2, 'both writes announced in the first tab');
    await context.close();
  });

  it('keeps every one of many concurrent writes from both tabs, also once both tabs are gone', async () => {
    const { context, first, second } = await twoTabs('busy');
    const [fromFirst, fromSecond] = await Promise.all([first.ingest('busy', 'ann', 0, 200, 8), second.ingest('busy', 'ann', 200, 400, 8)]);
    expect([value(fromFirst), value(fromSecond)]).toEqual([200, 200]);
    const listed = await second.listKnowledge('busy', 'ann');
    expect(new Set(listed.map((k) => k.title)).size).toBe(400);
    expect(listed.length).toBe(400);

    // Both tabs gone; a new tab of the same profile opens the memory from IndexedDB alone.
    for (const page of context.pages()) await page.close();
    const fresh = driver(await pages().open(context));
    expect(value(await fresh.open('busy')).role).toBe('host');
    const reread = await fresh.listKnowledge('busy', 'ann');
    expect(reread.map((k) => k.title).sort()).toEqual(listed.map((k) => k.title).sort());
    await context.close();
  });

  it('moves hosting to the other tab when the hosting tab closes, with every write intact', async () => {
    const { context, first, second } = await twoTabs('handover');
    value(await first.ingest('handover', 'ann', 0, 50, 4));
    value(await second.ingest('handover', 'ann', 50, 100, 4));
    const firstPage = context.pages()[0]!;
    await firstPage.close();
    await within(5_000, async () => (await second.status('handover')).role === 'host', 'second tab takes over');
    const listed = await second.listKnowledge('handover', 'ann');
    expect(new Set(listed.map((k) => k.title)).size).toBe(100);
    value(await second.call('handover', 'upsertKnowledge', { user_id: 'ann', title: 'After handover', content: 'Written once the second tab hosts.' }));
    expect(value(await second.call('handover', 'stats'))).toMatchObject({ records: 101 });

    // A third tab joins the new host.
    const third = driver(await pages().open(context));
    expect(value(await third.open('handover')).role).toBe('follower');
    expect(titles(value(await third.call<SearchResponse>('handover', 'search', { user_id: 'ann', query: 'written once the second tab hosts', method: 'keyword' })))).toContain('After handover');
    await context.close();
  });

  it('left no uncaught errors in any page', () => {
    expect(pages().pageErrors).toEqual([]);
  });
});
