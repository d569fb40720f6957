/**
 * Node-side driver of test/browser/pages/memory-page.ts: builds that page once, serves it with the
 * bundled model under /models/ (and the teacher reranker's files under /teacher/ and /tfjs/), launches one Chromium, and wraps `page.evaluate` calls into typed
 * functions. Each browser test file starts one of these and opens as many pages as it needs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { MemoryChange, MemoryClient, MemoryClientOptions } from '../../src/client.js';
import type { WorkerStatus } from '../../worker/memory.worker.js';
import type { MemoryPage, Outcome, PageEncryption } from '../browser/pages/memory-page.js';
import { buildPage, launchChromium, serveDir, type ServedDir } from './browser.js';

const REPO = resolve(import.meta.dirname, '..', '..');

export interface MemoryPages {
  url: string;
  browser: Browser;
  served: ServedDir;
  /** Uncaught errors of every page opened so far. */
  pageErrors: string[];
  /** A page of the memory test app in `context` (a new context, i.e. a fresh origin storage, when omitted). */
  open(context?: BrowserContext): Promise<Page>;
  close(): Promise<void>;
}

/** Builds the memory page, serves it and launches Chromium. */
export async function startMemoryPages(): Promise<MemoryPages> {
  const outDir = await mkdtemp(join(tmpdir(), 'engram-memory-page-'));
  await buildPage({ entry: join(REPO, 'test', 'browser', 'pages', 'memory-page.ts'), outDir, title: 'memory page' });
  // The teacher reranker's files, as an app serves them (the worker loads them only when asked).
  const served = await serveDir(outDir, {
    mounts: {
      '/models/': join(REPO, 'models'),
      '/teacher/': join(REPO, 'node_modules', '@energetic-ai', 'model-embeddings-en', 'dist'),
      '/tfjs/': join(REPO, 'node_modules', '@energetic-ai', 'core', 'dist'),
    },
  });
  const browser = await launchChromium({ webgpu: false });
  const pageErrors: string[] = [];
  return {
    url: served.url,
    browser,
    served,
    pageErrors,
    async open(context) {
      const page = await (context ?? (await browser.newContext())).newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(served.url);
      await page.waitForFunction(() => 'memoryPage' in globalThis);
      return page;
    },
    async close() {
      await browser.close();
      await served.close();
      await rm(outDir, { recursive: true, force: true });
    },
  };
}

type Api = { memoryPage: MemoryPage };

/** Typed calls into one page's `memoryPage`. */
export function driver(page: Page) {
  return {
    open: (name: string, modelUrl?: string, llm?: MemoryClientOptions['llm'], encryption?: PageEncryption, reranker?: MemoryClientOptions['reranker']) =>
      page.evaluate(([n, m, l, e, r]) => (globalThis as unknown as Api).memoryPage.open(n, m, l, e, r), [name, modelUrl, llm, encryption, reranker] as const) as Promise<Outcome<WorkerStatus>>,
    notices: (name: string) => page.evaluate((n) => (globalThis as unknown as Api).memoryPage.notices(n), name),
    status: (name: string) => page.evaluate((n) => (globalThis as unknown as Api).memoryPage.status(n), name),
    call: <T = unknown>(name: string, method: keyof MemoryClient, request?: unknown) =>
      page.evaluate(([n, m, r]) => (globalThis as unknown as Api).memoryPage.call(n, m, r), [name, method, request] as const) as Promise<Outcome<T>>,
    callWithAbort: (name: string, method: keyof MemoryClient, request: unknown, afterMs: number) =>
      page.evaluate(([n, m, r, ms]) => (globalThis as unknown as Api).memoryPage.callWithAbort(n, m, r, ms), [name, method, request, afterMs] as const),
    changes: (name: string) => page.evaluate((n) => (globalThis as unknown as Api).memoryPage.changes(n), name) as Promise<MemoryChange[]>,
    progress: (name: string) => page.evaluate((n) => (globalThis as unknown as Api).memoryPage.progress(n), name),
    ingest: (name: string, user: string, from: number, to: number, concurrency = 4, holdAfter?: number) =>
      page.evaluate(([n, u, f, t, c, h]) => (globalThis as unknown as Api).memoryPage.ingest(n, u, f, t, c, h), [name, user, from, to, concurrency, holdAfter] as const),
    listKnowledge: (name: string, user: string) => page.evaluate(([n, u]) => (globalThis as unknown as Api).memoryPage.listKnowledge(n, u), [name, user] as const),
    storage: (name: string) => page.evaluate((n) => (globalThis as unknown as Api).memoryPage.storage(n), name),
    close: (name: string) => page.evaluate((n) => (globalThis as unknown as Api).memoryPage.close(n), name),
  };
}

/** Unwraps an outcome, failing with the page's error when it is one. */
export function value<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new Error(`page call failed: ${outcome.error.name} ${outcome.error.code ?? ''} ${outcome.error.message}`);
  return outcome.value;
}

/** Polls `check` until it returns true or `ms` pass; resolves with how long it took, or rejects. */
export async function within(ms: number, check: () => Promise<boolean>, what: string): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * One built bundle and one browser for a whole test file: call inside `describe`; the returned
 * function gives the running pages to each test.
 */
export function useMemoryPages(): () => MemoryPages {
  let pages: MemoryPages | undefined;
  beforeAll(async () => {
    pages = await startMemoryPages();
  }, 120_000);
  afterAll(async () => {
    await pages?.close();
  });
  return () => {
    if (!pages) throw new Error('the memory pages did not start');
    return pages;
  };
}
