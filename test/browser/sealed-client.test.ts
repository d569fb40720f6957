/**
 * `createMemoryClient({ encryption })` in real Chromium: the key crosses to the memory worker, the
 * hosting tab seals the memory, a second tab joining with the wrong key or none is refused
 * although it never opens the store itself, and the right key lets it in.
 */
import { describe, expect, it } from 'vitest';
import { chromiumMissingFor } from '../support/browser.js';
import { driver, useMemoryPages, value } from '../support/memory-pages.js';

const KEY = Array.from({ length: 32 }, (_, i) => (i * 41 + 7) & 255);
const OTHER = KEY.map((b) => b ^ 1);

const chromiumMissing = chromiumMissingFor('test/browser/sealed-client.test.ts');
describe.skipIf(chromiumMissing)('encrypted memory client in Chromium', () => {
  const pages = useMemoryPages();

  it('hosts a sealed memory, and checks the key of every tab that joins it', async () => {
    const context = await pages().browser.newContext();
    const [a, b] = [driver(await pages().open(context)), driver(await pages().open(context))];
    expect(value(await a.open('vault', undefined, undefined, { key: KEY })).role).toBe('host');
    value(await a.call('vault', 'upsertKnowledge', { user_id: 'ann', title: 'Safe', content: 'The safe code is okapiquagga.' }));

    for (const wrong of [{ key: OTHER }, undefined]) {
      const joined = await b.open('vault', undefined, undefined, wrong);
      expect(joined.ok ? 'opened' : joined.error.code).toBe('ENCRYPTION_KEY_INVALID');
    }
    expect(value(await b.open('vault', undefined, undefined, { key: KEY })).role).toBe('follower');
    const found = value(await b.call('vault', 'search', { user_id: 'ann', query: 'safe code', method: 'keyword' }));
    expect(JSON.stringify(found)).toContain('okapiquagga');

    await b.close('vault');
    await a.close('vault');
    // With no tab hosting, a tab without the key is refused by the store itself.
    const reopened = await a.open('vault');
    expect(reopened.ok ? 'opened' : reopened.error.code).toBe('ENCRYPTION_KEY_INVALID');
    await context.close();
  }, 120_000);
});
