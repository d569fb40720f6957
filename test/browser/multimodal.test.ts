/**
 * Multimodal memories in real Chromium, through the memory worker (IndexedDB store, the bundled
 * static model): the media fixtures are added over comlink, the PDF is read by pdfjs inside the
 * worker (its lazy chunk), and each file is found by keyword, vector and hybrid search with the
 * item's reference on the result; the bytes survive a reload, and a malformed item is a 422
 * across the worker boundary.
 */
import { describe, expect, it } from 'vitest';
import type { AddResponse, SearchResponse } from '../../src/contract/types.js';
import { chromiumMissingFor } from '../support/browser.js';
import { driver, useMemoryPages, value } from '../support/memory-pages.js';
import { loadMediaFixtures } from '../support/media-files.js';
import { MARKDOWN_QUERY, mediaConversation, PDF_PAGE_TWO_QUERY, PNG_QUERY, WAV_QUERY } from '../support/media-fixtures.js';

const chromiumMissing = chromiumMissingFor('test/browser/multimodal.test.ts');
describe.skipIf(chromiumMissing)('multimodal memories in the memory worker', () => {
  const pages = useMemoryPages();

  it('finds text inside the PDF, the image by its caption, the audio and the Markdown, with every method', async () => {
    const page = await pages().open();
    const d = driver(page);
    value(await d.open('media'));
    const f = loadMediaFixtures();
    const added = value(await d.call<AddResponse>('media', 'add', mediaConversation(f, { session_id: 'm', user: 'ann', t0: Date.UTC(2026, 10, 2, 9) })));
    expect(added.data.message_count).toBe(4);
    expect(added.notices).toBeUndefined(); // the PDF was read in the worker
    value(await d.call('media', 'flush', { session_id: 'm' }));

    const expectations: [string, Record<string, unknown>][] = [
      [PDF_PAGE_TWO_QUERY, { type: 'pdf', page: 2, text_source: 'extracted' }],
      [PNG_QUERY, { type: 'image', mime_type: 'image/png', text_source: 'caption' }],
      [WAV_QUERY, { type: 'audio', mime_type: 'audio/wav', text_source: 'transcript' }],
      [MARKDOWN_QUERY, { type: 'doc', section: 'Watering' }],
    ];
    for (const method of ['keyword', 'vector', 'hybrid']) {
      for (const [query, ref] of expectations) {
        const { data } = value(await d.call<SearchResponse>('media', 'search', { user_id: 'ann', query, method, top_k: 3 }));
        const fact = data.episodes[0]?.atomic_facts[0];
        expect(fact?.content_items, `${method}: ${query}`).toEqual([expect.objectContaining(ref)]);
      }
    }

    await page.reload();
    await page.waitForFunction(() => 'memoryPage' in globalThis);
    value(await d.open('media'));
    const { data } = value(await d.call<SearchResponse>('media', 'search', { user_id: 'ann', query: PNG_QUERY, method: 'hybrid', top_k: 1 }));
    const sha = data.episodes[0]!.atomic_facts[0]!.content_items![0]!.sha256!;
    const bundle = value(await d.call<{ items: Record<string, unknown>[] }>('media', 'export'));
    const episode = bundle.items.find((i) => i['kind'] === 'episode') as { media: Record<string, string> };
    expect(episode.media[sha]).toBe(f.png);
    await page.context().close();
  });

  it('sends a 415 and a 422 for bad items across the worker boundary', async () => {
    const page = await pages().open();
    const d = driver(page);
    value(await d.open('bad-items'));
    const msg = (content: unknown) => ({ session_id: 'b', messages: [{ sender_id: 'ann', role: 'user', timestamp: Date.UTC(2026, 10, 2), content }] });
    const video = await d.call('bad-items', 'add', msg([{ type: 'video', uri: 'https://example.com/v.mp4' }]));
    expect(video.ok ? null : video.error).toMatchObject({ code: 'UNSUPPORTED_CONTENT_TYPE', status: 415 });
    const bad = await d.call('bad-items', 'add', msg([{ type: 'pdf', base64: btoa('not a pdf at all') }]));
    expect(bad.ok ? null : bad.error).toMatchObject({ code: 'VALIDATION_FAILED', status: 422, details: [expect.objectContaining({ loc: ['body', 'messages', 0, 'content', 0] })] });
    await page.context().close();
  });
});
