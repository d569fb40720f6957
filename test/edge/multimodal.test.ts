/**
 * Multimodal memories inside workerd, through the Worker and its Durable Object: the Markdown
 * document, the PNG by its caption and the WAV by its transcript are found by keyword, vector and
 * hybrid search with their references; the PDF cannot be read at the edge (pdfjs does not run in
 * workerd), so `add` keeps it by reference and says so in `notices`, and it is found by what the
 * conversation says about it. Write-time metadata is kept and matched here too.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import pdfUrl from '../fixtures/media/two-pages.pdf?inline';
import pngUrl from '../fixtures/media/red-square.png?inline';
import wavUrl from '../fixtures/media/tone.wav?inline';
import markdown from '../fixtures/media/garden-notes.md?raw';
import { MARKDOWN_QUERY, mediaConversation, PDF_PAGE_TWO_QUERY, PNG_QUERY, WAV_QUERY } from '../support/media-fixtures.js';
import { call, ok, T0 } from './helpers.js';

const base64Of = (dataUrl: string) => dataUrl.slice(dataUrl.indexOf(',') + 1);
const fixtures = { pdf: base64Of(pdfUrl), png: base64Of(pngUrl), wav: base64Of(wavUrl), markdown: btoa(markdown) };

describe('multimodal memories at the edge', () => {
  let added: any;
  beforeAll(async () => {
    added = await ok('add', mediaConversation(fixtures, { session_id: 'media', user: 'ann', t0: T0, metadata: { source: 'upload' } }));
    await ok('flush', { session_id: 'media' });
  });

  it('keeps the PDF by reference, with a notice instead of a failure', async () => {
    expect(added.data).toEqual({ message_count: 4, status: 'accumulated' });
    expect(added.notices).toEqual([expect.objectContaining({ code: 'documents.pdf_unavailable', loc: ['body', 'messages', 0, 'content', 1] })]);
    const body = await ok('search', { user_id: 'ann', query: 'harbour survey you asked for', method: 'hybrid', top_k: 3 });
    expect(body.data.episodes[0].atomic_facts[0].content_items).toEqual([expect.objectContaining({ type: 'pdf', name: 'harbour-survey.pdf', text_source: 'none' })]);
    expect((await ok('search', { user_id: 'ann', query: PDF_PAGE_TWO_QUERY, method: 'keyword', top_k: 3 })).data.episodes).toEqual([]);
  });

  it('finds the image, the audio and the Markdown with every method', async () => {
    const expectations: [string, Record<string, unknown>][] = [
      [PNG_QUERY, { type: 'image', mime_type: 'image/png', text_source: 'caption' }],
      [WAV_QUERY, { type: 'audio', mime_type: 'audio/wav', text_source: 'transcript' }],
      [MARKDOWN_QUERY, { type: 'doc', section: 'Watering' }],
    ];
    for (const method of ['keyword', 'vector', 'hybrid']) {
      for (const [query, ref] of expectations) {
        const body = await ok('search', { user_id: 'ann', query, method, top_k: 3 });
        expect(body.data.episodes[0]?.atomic_facts[0]?.content_items, `${method}: ${query}`).toEqual([expect.objectContaining(ref)]);
      }
    }
  });

  it('filters on the metadata of the write, exactly', async () => {
    const hits = (filters: unknown) => ok('search', { user_id: 'ann', query: PNG_QUERY, method: 'hybrid', top_k: 3, filters }).then((b) => b.data.episodes.length);
    expect(await hits({ metadata: { source: 'upload' } })).toBe(1);
    expect(await hits({ metadata: { source: 'uploads' } })).toBe(0);
  });

  it('answers 415 for an unsupported item and 422 for a malformed one', async () => {
    const msg = (content: unknown) => ({ session_id: 'bad', messages: [{ sender_id: 'ann', role: 'user', timestamp: T0, content }] });
    const video = await call('add', msg([{ type: 'video', uri: 'https://example.com/v.mp4' }]));
    expect(video.status).toBe(415);
    expect(((await video.json()) as any).code).toBe('UNSUPPORTED_CONTENT_TYPE');
    const bad = await call('add', msg([{ type: 'image', mime_type: 'image/png', base64: '***' }]));
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as any).detail[0].loc).toEqual(['body', 'messages', 0, 'content', 0, 'base64']);
  });
});
