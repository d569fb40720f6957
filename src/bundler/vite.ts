/**
 * `engram-memory/vite`: the Vite plugin for bundles of Engram that run in a browser (an app's
 * memory worker; here also the demo's page, worker and service worker). It resolves the Node
 * built-ins that browser code never reaches: `node:fs/promises`, which the model loader imports
 * lazily, only on its Node path (`readModelFile`), and the built-ins the teacher reranker's
 * packages name at load. Left alone, Vite replaces each with an empty module and warns about it on
 * every build (nine warnings); resolved here, the build is quiet and a stray call says what is
 * wrong. Add it to `worker.plugins` (see the README's browser app).
 */
import type { Plugin } from 'vite';

const STUB = '\0engram-browser-node-fs';

const EMPTY = '\0engram-browser-empty';

/**
 * The Node built-ins the teacher's packages (`@energetic-ai/*`, CommonJS bundles built for Node)
 * name at load, on paths a browser never takes (use-lite-browser.ts): resolved to an empty module
 * for those packages only, so nothing else's imports change.
 */
const TEACHER_BUILTINS = new Set(['fs', 'fs/promises', 'path', 'os', 'crypto', 'perf_hooks', 'util', 'worker_threads']);

/** The plugin; `enforce: 'pre'` so it answers before Vite's own resolver externalizes the module. */
export function engramBrowserBuiltins(): Plugin {
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
