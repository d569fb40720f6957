/** Build-time constants of the demo (see demo/vite.config.ts and demo/build/pwa-plugin.ts). */

/** True in the built app, which registers the service worker; false under `vite dev`. */
declare const __SERVICE_WORKER__: boolean;
/** Paths, relative to the service worker's scope, of every file it precaches. */
declare const __PRECACHE_FILES__: string[];
/** Changes whenever any precached file changes; names the caches. */
declare const __CACHE_VERSION__: string;
