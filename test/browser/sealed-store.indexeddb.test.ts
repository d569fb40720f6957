/**
 * Encryption at rest in real Chromium: a memory sealed through `createMemory({ encryption })` over
 * IndexedDB holds none of its words or owner ids, neither in what IndexedDB returns nor in the
 * profile's files on disk, while a plain memory written beside it does (the control). The key
 * reads it back; another key, no key, or a key for the plain memory is ENCRYPTION_KEY_INVALID.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPage, CHROMIUM_PATH, chromiumMissingFor, serveDir, type ServedDir } from '../support/browser.js';
import type { SealedStorePage } from './pages/sealed-store-page.js';

const KEY = Array.from({ length: 32 }, (_, i) => (i * 29 + 3) & 255);
const OTHER = KEY.map((b) => b ^ 0x80);
const PLAIN_WORD = 'plainwordzebrafinch';
const SEALED_WORDS = ['sealedwordokapi', 'sealedwordquagga'];

/** Every file under `dir`, concatenated, as latin1 (IndexedDB keeps ASCII strings one byte a character). */
async function filesUnder(dir: string): Promise<string> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push((await readFile(join(entry.parentPath, entry.name))).toString('latin1'));
  }
  return out.join('\n');
}

const chromiumMissing = chromiumMissingFor('test/browser/sealed-store.indexeddb.test.ts');
describe.skipIf(chromiumMissing)('sealed IndexedDB memory in Chromium', () => {
  let outDir: string;
  let profile: string;
  let served: ServedDir;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  const call = <K extends keyof SealedStorePage>(method: K, ...args: Parameters<SealedStorePage[K]>) =>
    page.evaluate(([m, a]) => ((globalThis as unknown as { sealedStore: Record<string, (...x: unknown[]) => unknown> }).sealedStore[m as string]!(...(a as unknown[]))), [method, args] as const) as ReturnType<SealedStorePage[K]>;

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'engram-sealed-page-'));
    profile = await mkdtemp(join(tmpdir(), 'engram-sealed-profile-'));
    await buildPage({ entry: join(import.meta.dirname, 'pages', 'sealed-store-page.ts'), outDir, title: 'sealed store' });
    served = await serveDir(outDir);
    // A persistent profile, so the test can read IndexedDB's files once the browser is closed.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: false,
      args: ['--headless=new', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(served.url);
    await page.waitForFunction(() => 'sealedStore' in globalThis);
  }, 120_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await served?.close();
    if (outDir) await rm(outDir, { recursive: true, force: true });
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  it('holds no plaintext in IndexedDB or on disk, and opens only with its key', async () => {
    await call('write', 'plain', [PLAIN_WORD], null);
    await call('write', 'sealed', SEALED_WORDS, KEY);

    const plainRaw = await call('raw', 'plain');
    expect(plainRaw).toContain(PLAIN_WORD);
    const sealedRaw = await call('raw', 'sealed');
    expect(sealedRaw.length).toBeGreaterThan(500);
    expect(sealedRaw).not.toContain('sealedword');
    expect(sealedRaw).not.toContain('owner-');

    expect(await call('read', 'sealed', KEY, SEALED_WORDS[0]!)).toEqual({ text: expect.stringContaining(`The note about ${SEALED_WORDS[0]}`) });
    expect(await call('read', 'sealed', OTHER, SEALED_WORDS[0]!)).toEqual({ code: 'ENCRYPTION_KEY_INVALID' });
    expect(await call('read', 'sealed', null, SEALED_WORDS[0]!)).toEqual({ code: 'ENCRYPTION_KEY_INVALID' });
    expect(await call('read', 'plain', KEY, PLAIN_WORD)).toEqual({ code: 'ENCRYPTION_KEY_INVALID' });
    expect(pageErrors).toEqual([]);

    // On disk: LevelDB's files of the profile, once the browser has let go of them.
    await context.close();
    const disk = await filesUnder(join(profile, 'Default', 'IndexedDB'));
    expect(disk).toContain(PLAIN_WORD);
    for (const word of SEALED_WORDS) expect(disk).not.toContain(word);
  }, 120_000);
});
