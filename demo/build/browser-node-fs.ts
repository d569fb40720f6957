/**
 * `node:fs/promises` for bundles that run in a browser (the demo's page, memory worker and
 * service worker; the library's Web Worker). The model loader imports it lazily, only on its Node
 * path (`readModelFile`); in a browser it fetches instead. Left alone, Vite replaces the module
 * with an empty one and warns about it on every build. Resolving it here to a module whose
 * `readFile` fails with a clear error says the same thing once, in code, and keeps the build quiet.
 * The teacher's packages get the same treatment for the built-ins they name (below).
 */
import type { Plugin } from 'vite';

const STUB = '\0engram-browser-node-fs';

const EMPTY = '\0engram-browser-empty';

/**
 * The Node built-ins the teacher's packages (`@energetic-ai/*`, CommonJS bundles built for Node)
 * name at load, on paths a browser never takes (teacher-browser.ts): resolved to an empty module
 * for those packages only, so nothing else's imports change.
 */
const TEACHER_BUILTINS = new Set(['fs', 'fs/promises', 'path', 'os', 'crypto', 'perf_hooks', 'util', 'worker_threads']);

/** The plugin; `enforce: 'pre'` so it answers before Vite's own resolver externalizes the module. */
export function browserNodeFs(): Plugin {
  return {
    name: 'engram-browser-node-fs',
    enforce: 'pre',
    resolveId: (id, importer) => {
      if (id === 'node:fs/promises') return STUB;
      if (TEACHER_BUILTINS.has(id) && importer?.includes('/@energetic-ai/')) return EMPTY;
      return null;
    },
    load: (id) => {
      if (id === STUB) return `export function readFile(path) { return Promise.reject(new Error('Cannot read ' + String(path) + ': there is no file system in a browser; load the model by URL')); }\n`;
      if (id === EMPTY) return 'export default {};\n';
      return null;
    },
  };
}
