import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPage, chromiumMissingFor, launchChromium, serveDir } from '../support/browser.js';
import type { ServedDir } from '../support/browser.js';
import type { ProbeModel, WebLlmProbe } from './webllm-probe.js';

// The WebLLM provider in real Chromium. There is no GPU on the test machine: `--enable-unsafe-webgpu`
// gives a SwiftShader adapter, which is enough to get past detection and into WebLLM's loader,
// whose failures must come back as typed MemoryErrors within a bounded time.

const chromiumMissing = chromiumMissingFor('test/browser/webllm.test.ts');
type Probe = WebLlmProbe;

describe.skipIf(chromiumMissing)('WebLLM provider in Chromium', () => {
  let outDir: string;
  let served: ServedDir;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'engram-webllm-page-'));
    await buildPage({ entry: join(import.meta.dirname, 'webllm-probe.ts'), outDir, title: 'webllm probe' });
    served = await serveDir(outDir, {
      // Weights that never arrive: the server accepts the request and says nothing.
      routes: { '/hang/': () => undefined },
    });
    browser = await launchChromium({ webgpu: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  async function openProbe(target: Browser = browser): Promise<Page> {
    // A fresh context per case: its own HTTP and Cache API storage, so nothing leaks between cases.
    const context = await target.newContext();
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(served.url);
    await page.waitForFunction(() => 'webllmProbe' in globalThis);
    return page;
  }

  const missingModel = (): ProbeModel => ({ modelUrl: `${served.url}missing/`, modelLibUrl: `${served.url}missing/model.wasm`, loadTimeoutMs: 30_000 });

  it('finds a WebGPU adapter with --enable-unsafe-webgpu', async () => {
    const page = await openProbe();
    const outcome = await page.evaluate(() => (globalThis as unknown as { webllmProbe: Probe }).webllmProbe.detect());
    await page.context().close();

    console.info('WebGPU adapter in Chromium:', JSON.stringify(outcome));
    expect(outcome.ok).toBe(true);
    if (outcome.ok) expect(`${outcome.value.vendor} ${outcome.value.architecture} ${outcome.value.description}`.toLowerCase()).toContain('swiftshader');
  }, 60_000);

  it('rejects a model whose weights are 404 with MODEL_UNAVAILABLE, quickly', async () => {
    const page = await openProbe();
    served.requests.length = 0;
    const outcome = await page.evaluate((model) => (globalThis as unknown as { webllmProbe: Probe }).webllmProbe.load(model), missingModel());
    await page.context().close();

    console.info('404 weights:', JSON.stringify(outcome));
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error).toMatchObject({ name: 'MemoryError', code: 'MODEL_UNAVAILABLE', status: 503, details: { model: 'engram-probe-q4f16_1-MLC', modelUrl: `${served.url}missing/` } });
    }
    // It failed on the weights, not on the deadline.
    expect(outcome.elapsedMs).toBeLessThan(30_000);
    expect(served.requests).toContain('/missing/resolve/main/mlc-chat-config.json');
    // WebLLM is a separate chunk, fetched only once WebGPU was found.
    expect(served.requests.some((path) => path.startsWith('/chunks/'))).toBe(true);
  }, 60_000);

  it('ends a load whose weights never arrive with MODEL_UNAVAILABLE at the load deadline', async () => {
    const page = await openProbe();
    const model: ProbeModel = { modelUrl: `${served.url}hang/`, modelLibUrl: `${served.url}hang/model.wasm`, loadTimeoutMs: 3_000 };
    const outcome = await page.evaluate((m) => (globalThis as unknown as { webllmProbe: Probe }).webllmProbe.load(m), model);
    await page.context().close();

    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toMatchObject({ name: 'MemoryError', code: 'MODEL_UNAVAILABLE', details: { reason: 'load-timeout' } });
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(2_900);
    expect(outcome.elapsedMs).toBeLessThan(10_000);
  }, 60_000);

  it('answers WEBGPU_UNAVAILABLE in a page without navigator.gpu, without fetching WebLLM', async () => {
    const page = await openProbe();
    served.requests.length = 0;
    const outcome = await page.evaluate((model) => {
      const probe = (globalThis as unknown as { webllmProbe: Probe }).webllmProbe;
      probe.hideWebGpu();
      return probe.load(model);
    }, missingModel());
    await page.context().close();

    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toMatchObject({ name: 'MemoryError', code: 'WEBGPU_UNAVAILABLE', details: { reason: 'no-navigator-gpu' } });
    expect(served.requests.filter((path) => path.startsWith('/chunks/') || path.startsWith('/missing/'))).toEqual([]);
  }, 60_000);

  it('answers WEBGPU_UNAVAILABLE in a Chromium started without WebGPU', async () => {
    const plain = await launchChromium({ webgpu: false, args: ['--disable-gpu'] });
    try {
      const page = await openProbe(plain);
      const outcome = await page.evaluate((model) => (globalThis as unknown as { webllmProbe: Probe }).webllmProbe.load(model), missingModel());

      console.info('Chromium without WebGPU:', JSON.stringify(outcome.ok ? outcome : outcome.error));
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect(outcome.error).toMatchObject({ name: 'MemoryError', code: 'WEBGPU_UNAVAILABLE' });
    } finally {
      await plain.close();
    }
  }, 60_000);

  it('works the same inside a Web Worker', async () => {
    const page = await openProbe();
    const outcome = await page.evaluate((model) => (globalThis as unknown as { webllmProbe: Probe }).webllmProbe.inWorker(model), missingModel());
    await page.context().close();

    console.info('WebGPU adapter in a worker:', JSON.stringify(outcome.detect));
    expect(outcome.detect.ok).toBe(true);
    expect(outcome.load.ok).toBe(false);
    if (!outcome.load.ok) expect(outcome.load.error).toMatchObject({ name: 'MemoryError', code: 'MODEL_UNAVAILABLE' });
  }, 60_000);

  it('left no uncaught errors in any page', () => {
    expect(pageErrors).toEqual([]);
  });
});
