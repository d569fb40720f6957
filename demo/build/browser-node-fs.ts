/**
 * `node:fs/promises` for bundles that run in a browser (the demo's page, memory worker and
 * service worker; the library's Web Worker). The model loader imports it lazily, only on its Node
 * path (`readModelFile`); in a browser it fetches instead. Left alone, Vite replaces the module
 * with an empty one and warns about it on every build. Resolving it here to a module whose
 * `readFile` fails with a clear error says the same thing once, in code, and keeps the build quiet.
 */
import type { Plugin } from 'vite';

const STUB = '\0engram-browser-node-fs';

/** The plugin; `enforce: 'pre'` so it answers before Vite's own resolver externalizes the module. */
export function browserNodeFs(): Plugin {
  return {
    name: 'engram-browser-node-fs',
    enforce: 'pre',
    resolveId: (id) => (id === 'node:fs/promises' ? STUB : null),
    load: (id) =>
      id === STUB
        ? `export function readFile(path) { return Promise.reject(new Error('Cannot read ' + String(path) + ': there is no file system in a browser; load the model by URL')); }\n`
        : null,
  };
}
