/**
 * The offline demo, built and served the way `npm start` does it, driven in real Chromium: it
 * installs, reloads with the network off, writes and searches through its panes, answers the
 * EverOS routes from its service worker (also with no tab open), round-trips an export into a fresh
 * profile, and is usable from the keyboard with every control named. Screenshots of the main
 * states go to test-results/demo/.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchResponse } from '../../src/contract/types.js';
import { serveDemo, type DemoServer } from '../../demo/serve.js';
import { chromiumMissingFor, launchChromium } from '../support/browser.js';

const REPO = resolve(import.meta.dirname, '..', '..');
const SHOTS = join(REPO, 'test-results', 'demo');

const chromiumMissing = chromiumMissingFor('test/browser/demo.test.ts');
interface HttpAnswer<T = unknown> {
  status: number;
  body: T;
  notices: string | null;
}

/** A JSON request from the page, so it goes through the page's service worker. */
function api<T = unknown>(page: Page, path: string, body?: unknown): Promise<HttpAnswer<T>> {
  return page.evaluate(
    async ([p, b]) => {
      const response = await fetch(p, b === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
      return { status: response.status, body: (await response.json()) as never, notices: response.headers.get('x-engram-notices') };
    },
    [path, body] as const,
  );
}

/**
 * Requests the app made to the server. The browser's own update check of the service worker script
 * is left out: Chromium makes it after navigations and API calls, outside the page's emulated
 * offline network, and when it fails (as it does offline) the installed app is kept unchanged.
 */
const fromApp = (requests: readonly string[]) => requests.filter((path) => path !== '/sw.js');

const QUERIES = [
  { user_id: 'maya', query: 'where is Maya travelling in May?', method: 'hybrid', top_k: 5, include_profile: true },
  { user_id: 'maya', query: 'dog vet vaccines', method: 'keyword', top_k: 5 },
  { user_id: 'maya', query: 'food allergies', method: 'vector', top_k: 5 },
  { agent_id: 'assistant', query: 'summarize meeting notes', method: 'hybrid', top_k: 5 },
];

describe.skipIf(chromiumMissing)('offline PWA demo in Chromium', () => {
  let outDir: string;
  let served: DemoServer;
  let browser: Browser;
  const requests: string[] = [];
  const pageErrors: string[] = [];
  let contextA: BrowserContext;
  let pageA: Page;
  let contextB: BrowserContext;
  let pageB: Page;

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'engram-demo-'));
    await build({ configFile: join(REPO, 'demo', 'vite.config.ts'), logLevel: 'error', build: { outDir } });
    served = await serveDemo({ dir: outDir, port: 0, onRequest: (path) => requests.push(path) });
    browser = await launchChromium({ webgpu: false });
    await mkdir(SHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  async function newPage(context: BrowserContext): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    return page;
  }

  async function openApp(page: Page, pane = ''): Promise<void> {
    await page.goto(`${served.url}${pane ? `#${pane}` : ''}`);
    await page.waitForFunction(() => document.body.dataset['engine'] === 'ready', null, { timeout: 60_000 });
  }

  /** Waits until the service worker controls the page and holds every precached file. */
  async function waitOfflineReady(page: Page): Promise<void> {
    // Polled with evaluate: waitForFunction would take an async predicate's promise as truthy.
    const ready = () =>
      page.evaluate(async () => {
        if (navigator.serviceWorker.controller?.state !== 'activated') return false;
        const names = await caches.keys();
        const shell = names.find((n) => n.startsWith('engram-demo-shell-'));
        return !!shell && !!(await (await caches.open(shell)).match(new URL('models/static-en/model.bin', location.href).href));
      });
    await expect.poll(ready, { timeout: 60_000, interval: 200 }).toBe(true);
  }

  /** Switches pane with the navigation, as a person would (a hash change: no network involved). */
  async function showPane(page: Page, pane: string): Promise<void> {
    await page.locator(`nav a[data-pane="${pane}"]`).click();
    await page.locator(`#${pane}`).waitFor();
  }

  async function search(page: Page, query: string, method: string): Promise<void> {
    await page.getByLabel('Method').selectOption(method);
    const box = page.getByLabel('Query');
    await box.fill(query);
    await submitted(page, () => box.press('Enter'));
  }

  /** Runs `action` and waits for the search it starts to be answered and shown. */
  async function submitted(page: Page, action: () => Promise<void>): Promise<void> {
    const before = Number(await page.locator('#search .results').getAttribute('data-answered'));
    await action();
    await page.waitForFunction((n) => Number(document.querySelector<HTMLElement>('#search .results')?.dataset['answered']) > n, before);
  }

  it('installs on the first visit, then reloads and runs with the network off', async () => {
    contextA = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    pageA = await newPage(contextA);
    await openApp(pageA);
    await waitOfflineReady(pageA);
    const cacheNames = await pageA.evaluate(() => caches.keys());
    expect(cacheNames.filter((n) => n.startsWith('engram-demo-shell-'))).toHaveLength(1);
    // The teacher reranker loaded as the memory opened, and its model was kept for offline visits.
    await showPane(pageA, 'status');
    await pageA.locator('[data-reranker="ready"]').waitFor({ timeout: 60_000 });

    await contextA.setOffline(true);
    requests.length = 0;
    await pageA.reload();
    await pageA.waitForFunction(() => document.body.dataset['engine'] === 'ready', null, { timeout: 60_000 });
    // Everything came from the device: not one request reached the server.
    expect(fromApp(requests)).toEqual([]);
    // Chromium's offline emulation does not reach navigator.onLine in a reloaded document until
    // the next change: toggle it so the page hears the `offline` event a real disconnect fires.
    await contextA.setOffline(false);
    await contextA.setOffline(true);
    await expect.poll(() => pageA.locator('.network').textContent()).toBe('Offline');
    await showPane(pageA, 'status');
    await pageA.locator('[data-offline-ready="true"]').waitFor();
    // Offline, the teacher loaded again from what the first visit kept.
    await pageA.locator('[data-reranker="ready"]').waitFor({ timeout: 60_000 });
    expect(await pageA.locator('[data-reranker]').textContent()).toBe('teacher-rerank:use-lite:line (ready)');
    await pageA.screenshot({ path: join(SHOTS, 'offline.png'), fullPage: true });
    expect(fromApp(requests)).toEqual([]);
  });

  it('seeds the sample conversations, adds a message with Enter and flushes, offline', async () => {
    await showPane(pageA, 'conversation');
    await pageA.getByRole('button', { name: 'Seed a sample conversation' }).click();
    await pageA.getByText(/Loaded 7 conversations \(\d+ messages\)/).waitFor({ timeout: 60_000 });

    await pageA.getByLabel('Session id').fill('porto');
    await pageA.getByLabel('Session id').press('Tab');
    const message = pageA.getByLabel('Message', { exact: true });
    const composerStatus = pageA.locator('#conversation form .status-line');

    // An invalid user id in the header is explained at once, and nothing is written under the old one.
    const userId = pageA.locator('#identity-userId');
    await userId.fill('maya smith');
    await userId.press('Tab');
    expect(await userId.getAttribute('aria-invalid')).toBe('true');
    const explanation = pageA.locator('#identity-error');
    await explanation.waitFor();
    expect(await userId.getAttribute('aria-describedby')).toBe('identity-error');
    expect(await explanation.textContent()).toContain('maya smith');
    await message.fill('I just moved to Porto and I love surfing at Matosinhos beach.');
    await message.press('Enter');
    await expect.poll(() => composerStatus.getAttribute('data-tone')).toBe('error');
    expect(await message.inputValue()).toBe('I just moved to Porto and I love surfing at Matosinhos beach.');
    await userId.fill('maya');
    await userId.press('Tab');
    await explanation.waitFor({ state: 'hidden' });
    expect(await userId.getAttribute('aria-invalid')).toBe('false');

    await message.press('Enter');
    await pageA.getByText('Added to the buffer of porto.').waitFor();
    await expect.poll(() => pageA.locator('.transcript .message').count()).toBe(1);
    await pageA.getByRole('button', { name: 'Flush session' }).click();
    await pageA.getByText('Flushed: the buffered messages are now memories.').waitFor();
    await expect.poll(() => pageA.locator('.transcript .episode').count()).toBe(1);
    await expect.poll(() => pageA.locator('.transcript .episode').textContent()).toContain('Porto');
    await pageA.screenshot({ path: join(SHOTS, 'conversation.png'), fullPage: true });
  });

  it('searches with every method and shows scores, recall legs and notices', async () => {
    await showPane(pageA, 'search');
    for (const method of ['keyword', 'vector', 'agentic', 'hybrid']) {
      await search(pageA, 'trip to Lisbon with her sister', method);
      const first = pageA.locator('#search .results .episode').first();
      await expect.poll(() => first.locator('h4').textContent(), { message: method }).toContain('Lisbon');
      expect(await first.locator('header .badge.score').count()).toBe(1);
      const legs = await first.locator('header .badge.leg').allTextContents();
      if (method === 'keyword') expect(legs).toEqual(['keyword']);
      else if (method === 'vector') expect(legs).toEqual(['vector']);
      else expect(legs.length).toBeGreaterThan(0);
      const notices = await pageA.locator('#search .notices li code').allTextContents();
      if (method === 'agentic') expect(notices).toContain('agentic.single_round');
      else expect(notices).not.toContain('agentic.single_round');
      // Agentic search reranked with the teacher: no notice says it went without.
      expect(notices).not.toContain('agentic.no_reranker');
      expect(notices).not.toContain('agentic.reranker_failed');
    }
    // The profile came with the hybrid search (include_profile is on by default).
    expect(await pageA.locator('#search .results .profile').textContent()).toContain('Biscuit');
    await pageA.screenshot({ path: join(SHOTS, 'search-hybrid.png'), fullPage: true });

    // top_k 10 brings a tail of near-zero scores: the page keeps the whole answer but folds the
    // episodes under the floor behind a count, and says what the score means.
    const response = JSON.parse((await pageA.locator('#search .results > details pre.json').textContent()) ?? '{}') as SearchResponse;
    const scoreOf = async (list: ReturnType<Page['locator']>) => (await list.evaluateAll((els) => els.map((el) => Number((el as HTMLElement).dataset['score']))));
    const shown = await scoreOf(pageA.locator('#search .results .group > .episode'));
    const folded = pageA.locator('#search .results details.folded > .episode');
    const foldedScores = await scoreOf(folded);
    expect(shown.length + foldedScores.length).toBe(response.data.episodes.length);
    expect(shown.length).toBeGreaterThan(0);
    expect(foldedScores.length).toBeGreaterThan(0);
    expect(Math.min(...shown)).toBeGreaterThanOrEqual(0.01);
    expect(Math.max(...foldedScores)).toBeLessThan(0.01);
    expect(await pageA.locator('#search details.folded > summary').textContent()).toMatch(new RegExp(`^${foldedScores.length} more episode`));
    expect(await folded.first().isVisible()).toBe(false);
    await pageA.locator('#search details.folded > summary').click();
    expect(await folded.first().isVisible()).toBe(true);
    expect(await pageA.locator('#search .score-meaning').count()).toBe(1);

    // A refused request shows its problems once each; a later edit clears that stale error, and a
    // field the browser blocks is named in its place.
    const status = pageA.locator('#search .status-line');
    const topK = pageA.locator('#search input[name="top_k"]');
    const radius = pageA.locator('#search input[name="radius"]');
    await topK.fill('0');
    await pageA.getByLabel('Query').press('Enter');
    await expect.poll(() => status.getAttribute('data-tone')).toBe('error');
    const refused = (await status.textContent()) ?? '';
    expect(refused).toMatch(/^VALIDATION_FAILED: /);
    expect(refused.split('body.top_k').length - 1).toBe(1);
    await topK.fill('10');
    expect(await status.getAttribute('data-tone')).not.toBe('error');
    await radius.fill('2');
    const answered = await pageA.locator('#search .results').getAttribute('data-answered');
    await pageA.getByLabel('Query').press('Enter');
    await expect.poll(() => status.getAttribute('data-tone')).toBe('error');
    expect(await status.textContent()).toContain('radius');
    expect(await status.textContent()).not.toContain('top_k');
    expect(await pageA.locator('#search .results').getAttribute('data-answered')).toBe(answered);
    await radius.fill('');

    // A session filter brings the messages still waiting in that session's buffer.
    await pageA.locator('#search').getByLabel('Session', { exact: true }).fill('weekend-sintra');
    await search(pageA, 'train to Sintra', 'hybrid');
    expect(await pageA.locator('#search .results .messages .message').count()).toBe(2);
    const request = JSON.parse((await pageA.locator('#search details pre.json').first().textContent()) ?? '{}') as Record<string, unknown>;
    expect(request['filters']).toEqual({ session_id: 'weekend-sintra' });
    await pageA.locator('#search').getByLabel('Session', { exact: true }).fill('');

    // The same request sent as HTTP goes to the service worker, and renders the same episodes.
    await search(pageA, 'dog vet vaccines', 'keyword');
    const direct = await pageA.locator('#search .results .episode h4').allTextContents();
    await pageA.getByLabel(/Send as HTTP/).check();
    await search(pageA, 'dog vet vaccines', 'keyword');
    expect(await pageA.locator('#search .status-line').textContent()).toContain('over HTTP');
    expect(await pageA.locator('#search .results .episode h4').allTextContents()).toEqual(direct);
    await pageA.getByLabel(/Send as HTTP/).uncheck();
  });

  it('answers the EverOS routes from the service worker while offline', async () => {
    requests.length = 0;
    const ok = await api<SearchResponse>(pageA, '/api/v1/memory/search', { user_id: 'maya', query: 'Lisbon hotel near the tram', method: 'hybrid', top_k: 3 });
    expect(ok.status).toBe(200);
    expect(ok.body.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(ok.body.data).sort()).toEqual(['agent_cases', 'agent_skills', 'episodes', 'profiles', 'unprocessed_messages']);
    const episode = ok.body.data.episodes[0]!;
    expect(Object.keys(episode).sort()).toEqual(['app_id', 'atomic_facts', 'episode', 'id', 'project_id', 'score', 'sender_ids', 'session_id', 'subject', 'summary', 'timestamp', 'type', 'user_id'].sort());
    expect(episode.session_id).toBe('trip-lisbon');
    expect(episode.type).toBe('Conversation');

    const agentic = await api(pageA, '/api/v1/memory/search', { user_id: 'maya', query: 'Lisbon', method: 'agentic' });
    expect(agentic.status).toBe(200);
    expect(agentic.notices).toContain('agentic.single_round');

    const bad = await api<{ detail: { loc: unknown[]; type: string }[] }>(pageA, '/api/v1/memory/search', { user_id: 'maya', query: '', top_k: 0 });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d) => d.loc)).toEqual(expect.arrayContaining([['body', 'query'], ['body', 'top_k']]));

    const malformed = await pageA.evaluate(async () => {
      const response = await fetch('/api/v1/memory/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"user_id": ' });
      return { status: response.status, body: (await response.json()) as { detail: { type: string }[] } };
    });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]!.type).toBe('json_invalid');

    // The service worker reads bodies through the same byte-counting reader as every host.
    const oversized = await pageA.evaluate(async () => {
      const body = JSON.stringify({ user_id: 'maya', query: 'x'.repeat(10 * 1024 * 1024) });
      const response = await fetch('/api/v1/memory/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return { status: response.status, body: (await response.json()) as { code: string } };
    });
    expect(oversized.status).toBe(413);
    expect(oversized.body.code).toBe('PAYLOAD_TOO_LARGE');

    const health = await api<{ status: string; host: string; memory: { records: number } }>(pageA, '/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', host: 'tab' });
    expect(health.body.memory.records).toBeGreaterThan(20);
    // The OpenAPI document, from the service worker too; it serves no MCP, so it lists none.
    const openapi = await api<{ openapi: string; paths: Record<string, unknown> }>(pageA, '/openapi.json');
    expect(openapi.status).toBe(200);
    expect(openapi.body.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.body.paths)).toContain('/api/v1/memory/search');
    expect(Object.keys(openapi.body.paths)).not.toContain('/mcp');
    expect(fromApp(requests)).toEqual([]);
  });

  it('is usable from the keyboard and names every control', async () => {
    await showPane(pageA, 'search');
    const unnamed = await pageA.evaluate(() => {
      const nameOf = (el: Element): string => {
        const labelled = el.getAttribute('aria-labelledby');
        if (labelled) return labelled.split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' ').trim();
        const aria = el.getAttribute('aria-label');
        if (aria) return aria.trim();
        const labels = (el as HTMLInputElement).labels;
        if (labels && labels.length) return [...labels].map((l) => l.textContent ?? '').join(' ').trim();
        return el.matches('button, a') ? (el.textContent ?? '').trim() : '';
      };
      return [...document.querySelectorAll('input, select, textarea, button, a[href], progress')].filter((el) => !nameOf(el)).map((el) => el.outerHTML.slice(0, 120));
    });
    expect(unnamed).toEqual([]);

    // Tab walks the search form in reading order; date inputs take several presses (one per part).
    const query = pageA.getByLabel('Query');
    await query.focus();
    const order: string[] = [];
    for (let i = 0; i < 24 && order.length < 14; i++) {
      const name = await pageA.evaluate(() => {
        const el = document.activeElement as HTMLInputElement | null;
        return el?.name || el?.textContent?.trim() || el?.tagName || '';
      });
      if (order[order.length - 1] !== name) order.push(name);
      await pageA.keyboard.press('Tab');
    }
    expect(order).toEqual(['query', 'Search', 'method', 'top_k', 'radius', 'min_score', 'search-owner', 'include_profile', 'filter-session', 'filter-from', 'filter-to', 'filter-sender', 'over-http', 'Request body']);
    // Keyboard focus is visible.
    const outline = await pageA.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).not.toBe('none');

    await query.fill('');
    await query.focus();
    await pageA.keyboard.type('beagle energy');
    await submitted(pageA, () => pageA.keyboard.press('Enter'));
    await expect.poll(() => pageA.locator('#search .results .episode h4').first().textContent()).toContain('Biscuit');
  });

  it('fits a phone: the tabs stay on one line and the file picker is a styled button', async () => {
    await pageA.setViewportSize({ width: 390, height: 844 });
    try {
      const tabs = await pageA.locator('nav .tab').evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON() as DOMRect));
      expect(tabs).toHaveLength(5);
      expect(new Set(tabs.map((t) => Math.round(t.top))).size).toBe(1);
      // Nothing makes the page itself scroll sideways; the tab strip does, and keeps the current tab in view.
      expect(await pageA.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await showPane(pageA, 'status');
      const current = (await pageA.locator('nav .tab[aria-current="page"]').boundingBox())!;
      expect(current.x).toBeGreaterThanOrEqual(0);
      expect(current.x + current.width).toBeLessThanOrEqual(390);

      await showPane(pageA, 'transfer');
      const input = (await pageA.locator('#import-file').boundingBox())!;
      expect(input.width).toBeLessThanOrEqual(1);
      const picker = pageA.locator('label[for="import-file"]');
      const style = (selector: string) =>
        pageA.locator(selector).evaluate((el) => {
          const s = getComputedStyle(el);
          return { background: s.backgroundColor, border: s.borderColor, radius: s.borderRadius, weight: s.fontWeight, size: s.fontSize, cursor: s.cursor };
        });
      expect(await style('label[for="import-file"]')).toEqual(await style('#transfer button.secondary'));
      expect((await picker.boundingBox())!.height).toBeGreaterThanOrEqual(35);
      const [chooser] = await Promise.all([pageA.waitForEvent('filechooser'), picker.click()]);
      expect(chooser.isMultiple()).toBe(false);
      await showPane(pageA, 'search');
      await pageA.screenshot({ path: join(SHOTS, 'search-phone.png'), fullPage: true });
    } finally {
      await pageA.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('exports a bundle that, imported into a fresh profile, answers the same searches', async () => {
    await showPane(pageA, 'transfer');
    const [download] = await Promise.all([pageA.waitForEvent('download'), pageA.getByRole('button', { name: 'Download JSON bundle' }).click()]);
    const bundle = await readFile((await download.path())!, 'utf8');
    expect(JSON.parse(bundle)).toMatchObject({ format: 'engram-export', version: 2 });

    await pageA.getByRole('button', { name: 'Prepare Markdown files' }).click();
    await expect.poll(() => pageA.locator('.files a').allTextContents()).toContain('default/default/users/maya/episodes.md');

    contextB = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    pageB = await newPage(contextB);
    await openApp(pageB, 'transfer');
    await waitOfflineReady(pageB);
    await pageB.getByLabel('Bundle file').setInputFiles({ name: 'bundle.json', mimeType: 'application/json', buffer: Buffer.from(bundle) });
    await pageB.getByRole('radio', { name: /Replace/ }).check();
    await pageB.getByRole('button', { name: 'Import' }).click();
    await pageB.getByText(/^Imported \d+ items from bundle\.json \(replace\)/).waitFor({ timeout: 30_000 });

    const strip = (answer: HttpAnswer<SearchResponse>) => ({ status: answer.status, data: answer.body.data });
    for (const q of QUERIES) {
      const [a, b] = [strip(await api<SearchResponse>(pageA, '/api/v1/memory/search', q)), strip(await api<SearchResponse>(pageB, '/api/v1/memory/search', q))];
      expect(a.status).toBe(200);
      expect(a.data.episodes.length + a.data.agent_cases.length).toBeGreaterThan(0);
      expect(b).toEqual(a);
    }
  });

  it('shows the status: engine, offline copy, WebGPU and a typed error for an LLM it cannot load', async () => {
    await showPane(pageB, 'status');
    await expect.poll(() => pageB.locator('#status .pairs').first().textContent()).toContain('this tab');
    await pageB.locator('[data-offline-ready="true"]').waitFor();
    // The local API row follows a call to it, and keeps it after a refresh.
    await pageB.getByRole('button', { name: 'Call GET /health' }).click();
    const localApi = pageB.locator('[data-local-api]');
    await expect.poll(() => localApi.getAttribute('data-last-health')).toBe('200');
    expect(await localApi.getAttribute('data-local-api')).toBe('forwarding');
    await pageB.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => localApi.getAttribute('data-local-api')).toBe('forwarding');
    expect(await localApi.getAttribute('data-last-health')).toBe('200');
    await pageB.locator('[data-webgpu]').waitFor();
    await pageB.getByLabel('Model').selectOption('Qwen2.5-0.5B-Instruct-q4f16_1-MLC');
    await pageB.getByRole('button', { name: 'Load model' }).click();
    // No GPU here: the catalog code comes back, and the app says it keeps working without an LLM.
    await expect.poll(() => pageB.locator('#status .status-line[data-tone="error"]').textContent(), { timeout: 30_000 }).toMatch(/^(WEBGPU_UNAVAILABLE|MODEL_UNAVAILABLE): .*keeps working without an LLM/);
    await pageB.screenshot({ path: join(SHOTS, 'status.png'), fullPage: true });
  });

  it('browses memories by kind, opens and deletes one, and forgets a user', async () => {
    await showPane(pageA, 'memories');
    const rows = pageA.locator('#memories .records .record');
    await expect.poll(() => rows.count()).toBe(7);
    await pageA.getByLabel('Page size').selectOption('10');
    await pageA.getByLabel('Kind').selectOption('atomic_fact');
    await expect.poll(() => pageA.locator('.page-info').textContent()).toMatch(/Page 1 of [2-9]/);
    await pageA.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => pageA.locator('.page-info').textContent()).toMatch(/^Page 2 of/);
    await pageA.getByLabel('Kind').selectOption('episode');
    await expect.poll(() => rows.count()).toBe(7);
    await pageA.screenshot({ path: join(SHOTS, 'memories.png'), fullPage: true });

    await rows.first().getByRole('button', { name: /^Open/ }).click();
    const dialog = pageA.locator('dialog.record-dialog');
    await dialog.waitFor();
    await pageA.screenshot({ path: join(SHOTS, 'memory-detail.png') });
    await dialog.getByRole('button', { name: 'Delete this record' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => rows.count()).toBe(6);

    await pageA.getByRole('button', { name: 'Forget everything about user maya' }).click();
    await pageA.getByRole('alertdialog').getByRole('button', { name: 'Forget user maya' }).click();
    await pageA.getByText(/^Forgot user maya: \d+ records deleted\./).waitFor();
    await expect.poll(() => pageA.locator('#memories .records .empty').count()).toBe(1);
    const after = await api<SearchResponse>(pageA, '/api/v1/memory/search', { user_id: 'maya', query: 'Lisbon', method: 'keyword' });
    expect(after.body.data.episodes).toEqual([]);
  });

  it('with no tab open the service worker hosts the memory itself, and hands it back to a tab', async () => {
    const records = (await api<{ memory: { records: number } }>(pageB, '/health')).body.memory.records;
    await pageB.close();
    // A page that is not the app: only the service worker can open the memory now.
    const probe = await newPage(contextB);
    await probe.goto(`${served.url}health`);
    const health = JSON.parse((await probe.locator('body').textContent()) ?? '{}') as { host: string; memory: { records: number } };
    expect(health).toMatchObject({ host: 'service-worker', memory: { records } });
    const found = await api<SearchResponse>(probe, '/api/v1/memory/search', { user_id: 'maya', query: 'Lisbon hotel near the tram', method: 'hybrid', top_k: 3 });
    expect(found.status).toBe(200);
    expect(found.body.data.episodes[0]?.session_id).toBe('trip-lisbon');

    // A tab opens the app: the service worker steps aside and the tab's worker hosts again.
    const app = await newPage(contextB);
    await openApp(app, 'status');
    await expect.poll(async () => {
      await app.getByRole('button', { name: 'Refresh' }).click();
      return app.locator('#status .pairs').first().textContent();
    }, { timeout: 20_000 }).toContain('this tab');
    expect((await api<{ host: string }>(probe, '/health')).body.host).toBe('tab');
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
