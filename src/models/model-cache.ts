/**
 * A fetch that keeps model files in the Cache API, so a returning visitor reads the ~10 MB model
 * from disk instead of the network (and offline works once it was fetched). Falls back to plain
 * fetch where the Cache API is missing (insecure origins, some runtimes) or fails.
 */

/**
 * Returns a fetch for GET requests of model files that answers from `cacheName` when it can and
 * stores successful answers there.
 *
 * @example
 * const model = await loadStaticModelFromUrl(url, { fetch: cachedModelFetch('engram-models') });
 */
export function cachedModelFetch(cacheName: string, baseFetch: typeof fetch = globalThis.fetch.bind(globalThis)): typeof fetch {
  const caches = (globalThis as { caches?: CacheStorage }).caches;
  if (!caches) return baseFetch;
  return async (input, init) => {
    let cache: Cache | undefined;
    try {
      cache = await caches.open(cacheName);
      const hit = await cache.match(input);
      if (hit) return hit;
    } catch {
      cache = undefined; // storage disabled or full: the network still works
    }
    const response = await baseFetch(input, init);
    if (cache && response.ok) {
      try {
        await cache.put(input, response.clone());
      } catch {
        // a full quota only costs the next visit a download
      }
    }
    return response;
  };
}

/** Drops a cached model file (one that turned out corrupt), so the next load downloads it again. */
export async function evictCachedModel(cacheName: string, url: string | URL): Promise<void> {
  const caches = (globalThis as { caches?: CacheStorage }).caches;
  if (!caches) return;
  try {
    await (await caches.open(cacheName)).delete(String(url));
  } catch {
    // nothing cached, or storage unavailable
  }
}
