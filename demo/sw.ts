/// <reference lib="webworker" />
/**
 * The demo's service worker. It keeps the whole app on the device: every built file, the memory
 * worker and the 9.5 MB embedding model are precached at install, served cache-first, and kept
 * in caches named by a content version (old versions are deleted on activate). Lazily loaded
 * chunks (WebLLM) are cached the first time they are used; the memory worker keeps the teacher
 * reranker's 28 MB model in its own cache. When it hosts the memory itself (no tab open),
 * agentic search has no reranker. It also answers the EverOS HTTP API
 * from the local memory (see ./api-bridge.ts).
 */
import { createApiBridge } from './api-bridge.js';
import { CACHE_PREFIX, MEMORY_NAME, MODEL_PATH, SW_STATUS_REQUEST, type ServiceWorkerStatus } from './config.js';

declare const self: ServiceWorkerGlobalScope;

const SHELL_CACHE = `${CACHE_PREFIX}shell-${__CACHE_VERSION__}`;
const RUNTIME_CACHE = `${CACHE_PREFIX}runtime-${__CACHE_VERSION__}`;
const scope = new URL(self.registration.scope);
const precacheUrls = __PRECACHE_FILES__.map((file) => new URL(file, scope).href);


/** Reads the precache first: when no tab is open, the service worker loads the model itself. */
const cacheFirstFetch: typeof fetch = async (input, init) => (await caches.match(input instanceof Request ? input : String(input))) ?? fetch(input, init);

const bridge = createApiBridge({
  name: MEMORY_NAME,
  modelUrl: new URL(MODEL_PATH, scope).href,
  fetch: cacheFirstFetch,
  basePath: scope.pathname.replace(/\/$/, ''),
});

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(SHELL_CACHE);
      // `reload` skips the HTTP cache: the precache must hold exactly this build's files.
      await cache.addAll(precacheUrls.map((url) => new Request(url, { cache: 'reload' })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      const current = new Set([SHELL_CACHE, RUNTIME_CACHE]);
      for (const name of await caches.keys()) if (name.startsWith(CACHE_PREFIX) && !current.has(name)) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (url.origin !== scope.origin) return;
  if (bridge.matches(url)) {
    event.respondWith(bridge.handle(request));
    return;
  }
  if (request.method === 'GET') event.respondWith(cacheFirst(request, url));
});

async function cacheFirst(request: Request, url: URL): Promise<Response> {
  const shell = await caches.open(SHELL_CACHE);
  // Every page of the app is the same shell.
  const hit = request.mode === 'navigate' ? await shell.match(new URL('index.html', scope).href) : await shell.match(request);
  if (hit) return hit;
  const runtime = await caches.open(RUNTIME_CACHE);
  const kept = await runtime.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok && url.pathname.startsWith(`${scope.pathname}assets/`)) await runtime.put(request, response.clone());
  return response;
}

self.addEventListener('message', (event) => {
  if ((event.data as { type?: unknown } | null)?.type !== SW_STATUS_REQUEST) return;
  const port = event.ports[0];
  event.waitUntil(
    (async () => {
      const cached = await (await caches.open(SHELL_CACHE)).keys();
      const have = new Set(cached.map((r) => r.url));
      const status: ServiceWorkerStatus = {
        version: __CACHE_VERSION__,
        precached: precacheUrls.length,
        complete: precacheUrls.every((url) => have.has(url)),
        bridge: bridge.role(),
      };
      port?.postMessage(status);
    })(),
  );
});
