/**
 * Plumbing for tests that run in real Chromium: launch the Debian build of Chromium, bundle a test
 * page with Vite, and serve it from a loopback HTTP server. Nothing here knows about Engram.
 */

import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname, extname, join, resolve, sep } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { engramBrowserBuiltins } from '../../src/bundler/vite.js';

/** Where the Debian `chromium` package puts the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** True when Chromium is installed; browser tests skip (with a message) only when it is not. */
export function hasChromium(): boolean {
  return existsSync(CHROMIUM_PATH);
}

/**
 * True (and says so on the console) when Chromium is missing, for `describe.skipIf`: a browser
 * suite that cannot run is reported as skipped, never as passed. `npm test` installs Chromium first.
 */
export function chromiumMissingFor(file: string): boolean {
  if (hasChromium()) return false;
  console.warn(`SKIPPED ${file}: ${CHROMIUM_PATH} does not exist (apt-get install -y chromium)`);
  return true;
}

/** Options of `launchChromium`. */
export interface LaunchChromiumOptions {
  /** Adds `--enable-unsafe-webgpu`, which gives a SwiftShader (CPU) WebGPU adapter on a machine without a GPU. Default true. */
  webgpu?: boolean;
  /** Extra command-line switches, e.g. `--disable-gpu`. */
  args?: string[];
}

/** Launches headless Chromium with the switches that keep it quiet and offline-friendly. */
export async function launchChromium(options: LaunchChromiumOptions = {}): Promise<Browser> {
  const args = ['--headless=new', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
  if (options.webgpu ?? true) args.push('--enable-unsafe-webgpu');
  args.push(...(options.args ?? []));
  // Playwright adds its own `--headless`; `headless: false` keeps it from fighting `--headless=new`.
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: false, args });
}

/** Handles one request itself; used by `serveDir` for paths that need scripted behaviour. */
export type RouteHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** Options of `serveDir`. */
export interface ServeDirOptions {
  /** Path prefixes answered by a handler instead of a file, e.g. `{ '/hang/': () => {} }` for a server that never answers. */
  routes?: Record<string, RouteHandler>;
  /** Sends COOP/COEP so pages are cross-origin isolated (needed for SharedArrayBuffer, e.g. threaded wasm). Default false. */
  crossOriginIsolated?: boolean;
  /** More directories served under a path prefix, e.g. `{ '/models/': 'models' }` to serve the bundled model files. */
  mounts?: Record<string, string>;
}

/** A running static server. */
export interface ServedDir {
  /** Origin with a trailing slash, e.g. `http://127.0.0.1:43121/`. */
  url: string;
  /** Paths requested so far, in order; clear it with `requests.length = 0`. */
  requests: string[];
  close(): Promise<void>;
}

const MIME_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
};

/** Serves `dir` over HTTP on 127.0.0.1 with a free port; `/` serves `index.html`; unknown paths are 404. */
export async function serveDir(dir: string, options: ServeDirOptions = {}): Promise<ServedDir> {
  const root = resolve(dir);
  const requests: string[] = [];
  const routes = Object.entries(options.routes ?? {});
  const mounts = Object.entries(options.mounts ?? {}).map(([prefix, mounted]) => [prefix.endsWith('/') ? prefix : `${prefix}/`, resolve(mounted)] as const);

  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    requests.push(path);
    if (options.crossOriginIsolated) {
      response.setHeader('cross-origin-opener-policy', 'same-origin');
      response.setHeader('cross-origin-embedder-policy', 'require-corp');
    }
    const route = routes.find(([prefix]) => path.startsWith(prefix));
    if (route) {
      route[1](request, response);
      return;
    }
    const mount = mounts.find(([prefix]) => path.startsWith(prefix));
    if (mount) {
      void sendFile(mount[1], `/${path.slice(mount[0].length)}`, response);
      return;
    }
    void sendFile(root, path, response);
  });
  await new Promise<void>((resolvePromise) => server.listen(0, '127.0.0.1', resolvePromise));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise<void>((resolvePromise) => {
        // Routes that never answer keep sockets open; cut them so close() returns.
        server.closeAllConnections();
        server.close(() => resolvePromise());
      }),
  };
}

async function sendFile(root: string, path: string, response: ServerResponse): Promise<void> {
  const file = resolve(root, `.${path.endsWith('/') ? `${path}index.html` : path}`);
  // resolve() has already collapsed `..`; anything outside the root is refused.
  if (file !== root && !file.startsWith(root + sep)) {
    response.writeHead(403).end();
    return;
  }
  try {
    if (!(await stat(file)).isFile()) throw new Error('not a file');
    const body = await readFile(file);
    response.writeHead(200, { 'content-type': MIME_TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    response.end(body);
  } catch {
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }
}

/** Options of `buildPage`. */
export interface BuildPageOptions {
  /** An `.html` page, or a `.ts`/`.js` module that gets a generated page loading it. */
  entry: string;
  /** Emptied and filled with the built page; serve it with `serveDir`. */
  outDir: string;
  /** Title of the generated page (module entries only). */
  title?: string;
}

/**
 * Bundles a test page with Vite into `outDir` (relative URLs, no minification, dynamic imports as
 * separate chunks) and returns the path of its `index.html` (or of the built `.html` entry).
 */
export async function buildPage(options: BuildPageOptions): Promise<{ outDir: string; html: string }> {
  const entry = resolve(options.entry);
  const outDir = resolve(options.outDir);
  const isHtml = entry.endsWith('.html');
  await build({
    configFile: false,
    root: dirname(entry),
    base: './',
    logLevel: 'warn',
    // Module workers, so a worker may `await import()` like the page does; Node built-ins as the
    // demo and the library bundle them for a worker (src/bundler/vite.ts).
    worker: { format: 'es', plugins: () => [engramBrowserBuiltins()] },
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      minify: false,
      modulePreload: false,
      reportCompressedSize: false,
      chunkSizeWarningLimit: 100_000,
      rolldownOptions: {
        input: entry,
        output: isHtml ? {} : { entryFileNames: 'page.js', chunkFileNames: 'chunks/[name]-[hash].js', assetFileNames: 'assets/[name]-[hash][extname]' },
      },
    },
  });
  if (isHtml) return { outDir, html: join(outDir, basename(entry)) };

  const html = join(outDir, 'index.html');
  const title = escapeHtml(options.title ?? basename(entry));
  await writeFile(html, `<!doctype html>\n<html><head><meta charset="utf-8"><title>${title}</title></head>\n<body><script type="module" src="./page.js"></script></body></html>\n`);
  return { outDir, html };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char] ?? char);
}

/** A test page built, served and open in a fresh Chromium (`openTestPage`). */
export interface OpenTestPage {
  page: Page;
  /** Uncaught errors the page has thrown so far. */
  pageErrors: string[];
  /** Closes the browser and the server and removes the built page. */
  close(): Promise<void>;
}

/**
 * Builds a module page, serves it, opens it in Chromium (no WebGPU) and waits until it has set
 * `globalThis[ready]`, the object the test drives it through.
 */
export async function openTestPage(options: { entry: string; title: string; ready: string }): Promise<OpenTestPage> {
  const outDir = await mkdtemp(join(tmpdir(), 'engram-test-page-'));
  await buildPage({ entry: options.entry, outDir, title: options.title });
  const served = await serveDir(outDir);
  const browser = await launchChromium({ webgpu: false });
  const page = await (await browser.newContext()).newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(served.url);
  await page.waitForFunction((name) => name in globalThis, options.ready);
  return {
    page,
    pageErrors,
    close: async () => {
      await browser.close();
      await served.close();
      await rm(outDir, { recursive: true, force: true });
    },
  };
}
