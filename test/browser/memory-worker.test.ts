/**
 * The memory in a Web Worker over comlink, persisted to IndexedDB, in real Chromium: data survives
 * a reload, errors cross the boundary with their code and details, aborts reach the worker, named
 * memories stay apart, and the storage helpers answer.
 */
import { describe, expect, it } from 'vitest';
import type { SearchResponse } from '../../src/contract/types.js';
import { chromiumMissingFor } from '../support/browser.js';
import { driver, useMemoryPages, value, within } from '../support/memory-pages.js';

const chromiumMissing = chromiumMissingFor('test/browser/memory-worker.test.ts');
describe.skipIf(chromiumMissing)('memory worker in Chromium', () => {
  const pages = useMemoryPages();

  const seedKnowledge = [
    { user_id: 'ann', title: 'Wifi password', content: 'The wifi password is written on the fridge door.' },
    { user_id: 'ann', title: 'Bike lock', content: 'The code of the bike lock is the year grandma was born.' },
    { user_id: 'ann', title: 'Dentist', content: 'Dentist appointment moved to Thursday at nine.' },
    { user_id: 'bob', title: 'Wifi at work', content: 'Work wifi needs the VPN certificate first.' },
  ];

  it('reads back, after a reload, exactly what it answered before', async () => {
    const page = await pages().open();
    const d = driver(page);
    const status = value(await d.open('reload'));
    expect(status.role).toBe('host');
    for (const k of seedKnowledge) value(await d.call('reload', 'upsertKnowledge', k));
    value(await d.call('reload', 'upsertProfile', { user_id: 'ann', profile_data: { city: 'Lyon' } }));
    value(await d.call('reload', 'add', { session_id: 'chat', messages: [{ sender_id: 'ann', role: 'user', timestamp: Date.UTC(2026, 0, 5), content: 'I started learning the cello last month.' }] }));
    const queries = [
      { user_id: 'ann', query: 'wifi password', method: 'hybrid', include_profile: true },
      { user_id: 'ann', query: 'when is the dentist', method: 'keyword' },
      { user_id: 'bob', query: 'wifi', method: 'vector' },
    ];
    const strip = (r: SearchResponse) => ({ ...r, request_id: undefined });
    const before = [];
    for (const q of queries) before.push(strip(value(await d.call<SearchResponse>('reload', 'search', q))));
    const listing = value(await d.call('reload', 'get', { user_id: 'ann', memory_type: 'knowledge' }));
    const stats = value(await d.call('reload', 'stats'));
    expect(before[0]!.data.episodes.map((e) => e.subject)).toContain('Wifi password');

    await page.reload();
    await page.waitForFunction(() => 'memoryPage' in globalThis);
    value(await d.open('reload'));
    const after = [];
    for (const q of queries) after.push(strip(value(await d.call<SearchResponse>('reload', 'search', q))));
    expect(after).toEqual(before);
    expect({ ...(value(await d.call('reload', 'get', { user_id: 'ann', memory_type: 'knowledge' })) as object), request_id: 0 }).toEqual({ ...(listing as object), request_id: 0 });
    expect(value(await d.call('reload', 'stats'))).toEqual(stats);
    // Reopening found the vectors made by the same model: nothing was embedded again.
    const phases = (await d.progress('reload')).map((p) => p.phase);
    expect(phases).toContain('open');
    expect(phases).not.toContain('reembed');
    // The buffered message of the open conversation survived too.
    expect(stats).toMatchObject({ records: 5, buffered_messages: 1, store: 'indexeddb' });
    await page.context().close();
  });

  it('sends a 422 across comlink with its code, status and details', async () => {
    const page = await pages().open();
    const d = driver(page);
    value(await d.open('errors'));
    const outcome = await d.call('errors', 'search', { user_id: 'ann', query: '', top_k: 0, unknown_field: 1 });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toMatchObject({ name: 'MemoryError', code: 'VALIDATION_FAILED', status: 422, isMemoryError: true, isMemoryErrorInstance: true });
    const details = outcome.error.details as { loc: (string | number)[]; type: string }[];
    expect(details).toEqual(expect.arrayContaining([
      expect.objectContaining({ loc: ['body', 'query'], type: 'string_too_short' }),
      expect.objectContaining({ loc: ['body', 'unknown_field'], type: 'extra_forbidden' }),
    ]));
    const missing = await d.call('errors', 'delete', { user_id: 'ann', memory_id: 'kn_does_not_exist' });
    expect(missing.ok ? null : missing.error).toMatchObject({ code: 'NOT_FOUND', status: 404, details: { memory_id: 'kn_does_not_exist' }, isMemoryError: true });
    await page.context().close();
  });

  it('carries an abort into the worker: a flush waiting behind other writes is aborted there', async () => {
    const page = await pages().open();
    const d = driver(page);
    value(await d.open('abort'));
    value(await d.call('abort', 'add', { session_id: 's1', messages: [{ sender_id: 'ann', role: 'user', timestamp: Date.UTC(2026, 0, 5), content: 'My sister Clara lives in Porto.' }] }));
    // 300 writes queued ahead keep the engine busy long after the signal fires at 20 ms.
    const aborted = await page.evaluate(async () => {
      const p = (globalThis as unknown as { memoryPage: import('./pages/memory-page.js').MemoryPage }).memoryPage;
      const busy = p.ingest('abort', 'ann', 0, 300, 300);
      const flushed = await p.callWithAbort('abort', 'flush', { session_id: 's1' }, 20);
      await busy;
      return flushed;
    });
    expect(aborted.ok ? null : aborted.error).toMatchObject({ code: 'ABORTED', isMemoryError: true });
    // Nothing was extracted: the message still waits in its buffer, and a flush without a signal works.
    expect(value(await d.call('abort', 'stats'))).toMatchObject({ buffered_messages: 1 });
    expect(value(await d.call('abort', 'flush', { session_id: 's1' }))).toMatchObject({ data: { status: 'extracted' } });
    await page.context().close();
  });

  it('keeps named memories apart in one origin, and reports progress while opening', async () => {
    const page = await pages().open();
    const d = driver(page);
    value(await d.open('left'));
    value(await d.open('right'));
    value(await d.call('left', 'upsertKnowledge', { user_id: 'ann', title: 'Only left', content: 'This lives in the left memory.' }));
    expect(value(await d.call('left', 'stats'))).toMatchObject({ records: 1 });
    expect(value(await d.call('right', 'stats'))).toMatchObject({ records: 0 });
    const databases = await page.evaluate(async () => (await indexedDB.databases()).map((db) => db.name).sort());
    expect(databases).toEqual(expect.arrayContaining(['engram:left', 'engram:right']));
    const phases = (await d.progress('left')).map((p) => p.phase);
    expect(phases).toEqual(expect.arrayContaining(['embedder', 'open']));
    await page.context().close();
  });

  it('asks for persistent storage and estimates usage', async () => {
    const page = await pages().open();
    const d = driver(page);
    value(await d.open('storage'));
    value(await d.call('storage', 'upsertKnowledge', { user_id: 'ann', title: 'Something', content: 'Something worth keeping.' }));
    const storage = value(await d.storage('storage'));
    expect(typeof storage.persisted).toBe('boolean');
    expect(storage.estimate.usage).toBeGreaterThan(0);
    expect(storage.estimate.quota).toBeGreaterThan(storage.estimate.usage!);
    expect(storage.estimate.persisted).toBe(storage.persisted);
    await page.context().close();
  });

  it('gives way when its database is deleted from elsewhere, and later calls fail with STORAGE_FAILED', async () => {
    const page = await pages().open();
    const d = driver(page);
    value(await d.open('doomed'));
    value(await d.call('doomed', 'upsertKnowledge', { user_id: 'ann', title: 'Soon gone', content: 'This memory is about to be deleted.' }));
    // The page deletes the worker's database, as "clear site data" or an app's own reset would:
    // the worker's open connection must not block it.
    const deleted = await page.evaluate(() => new Promise<string>((resolve) => {
      const request = indexedDB.deleteDatabase('engram:doomed');
      request.onsuccess = () => resolve('deleted');
      request.onerror = () => resolve(`error ${request.error?.name}`);
      request.onblocked = () => resolve('blocked');
    }));
    expect(deleted).toBe('deleted');
    const outcome = await d.call('doomed', 'upsertKnowledge', { user_id: 'ann', title: 'Too late', content: 'Written after the deletion.' });
    expect(outcome.ok ? null : outcome.error).toMatchObject({ code: 'STORAGE_FAILED', status: 503, isMemoryError: true });
    await page.context().close();
  });

  it('rejects the open with MODEL_UNAVAILABLE when the model cannot be fetched, and a later open works', async () => {
    const page = await pages().open();
    const d = driver(page);
    const failed = await d.open('nomodel', new URL('/models/missing/model.bin', pages().url).href);
    expect(failed.ok ? null : failed.error).toMatchObject({ code: 'MODEL_UNAVAILABLE', status: 503, isMemoryError: true, details: { status: 404 } });
    // The failed host released the memory's lock: the next open hosts it.
    expect(value(await d.open('nomodel')).role).toBe('host');
    await page.context().close();
  });

  it('creates the LLM inside the worker without waiting for it; a model that cannot load is a typed notice and the memory carries on', async () => {
    const page = await pages().open();
    const d = driver(page);
    const missing = new URL('/llm/missing/', pages().url).href;
    const llm = {
      provider: 'webllm' as const,
      model: 'Engram-Missing-q4f32_1-MLC',
      loadTimeoutMs: 20_000,
      appConfig: { model_list: [{ model: missing, model_id: 'Engram-Missing-q4f32_1-MLC', model_lib: `${missing}lib.wasm` }] },
    };
    expect(value(await d.open('with-llm', undefined, llm)).role).toBe('host');
    expect(value(await d.call<{ llm: string }>('with-llm', 'stats')).llm).toBe('webllm:Engram-Missing-q4f32_1-MLC');
    value(await d.call('with-llm', 'upsertKnowledge', { user_id: 'ann', title: 'Bees', content: 'Ann keeps two beehives on the roof.' }));
    await within(30_000, async () => (await d.notices('with-llm')).some((n) => n.code === 'llm.unavailable'), 'the llm.unavailable notice');
    const notice = (await d.notices('with-llm')).find((n) => n.code === 'llm.unavailable')!;
    // SwiftShader gives an adapter, so the load fails on the missing weights; without WebGPU it would fail earlier.
    expect(notice.message).toMatch(/^(MODEL_UNAVAILABLE|WEBGPU_UNAVAILABLE): /);
    const { trace, response } = value(await d.call<{ trace: { rounds: number; notices: { code: string }[] }; response: { data: { episodes: unknown[] } } }>('with-llm', 'searchWithTrace', { user_id: 'ann', query: 'beehives', method: 'agentic' }));
    expect(response.data.episodes).toHaveLength(1);
    expect(trace.rounds).toBe(1);
    expect(trace.notices.map((n) => n.code)).toContain('agentic.llm_failed');
    await page.context().close();
  });

  it('left no uncaught errors in any page', () => {
    expect(pages().pageErrors).toEqual([]);
  });
});
